"""The course gradebook: the tutors' score sheet to grades and the examination office's CSV."""

from __future__ import annotations

import json
import random

from assay.families.repo.templates._edits import put_back
from assay.families.repo.templates._model import Change, Probe, ProjectTemplate, Replace, Report

SCORES = "gradebook/scores.py"
COURSE = "gradebook/course.py"
SCHEMES = "gradebook/schemes.py"
EXPORT = "gradebook/export.py"
STUDENTS = (
    ("Schneider", "Lea"),
    ("Öztürk", "Can"),
    ("Fischer", "Jonas"),
    ("Nguyen", "Thi Mai"),
    ("Becker", "Paul"),
    ("Kowalczyk", "Zofia"),
    ("Hoffmann", "Marie"),
    ("Okonkwo", "Chidi"),
    ("Wagner", "Emil"),
    ("Rossi", "Giulia"),
    ("Ahmadi", "Sara"),
    ("Zimmermann", "Ben"),
)
BOUNDARIES = (95, 90, 85, 80, 75, 70, 65, 60, 55, 50)
HOMEWORK = ("HA1", "HA2", "HA3", "HA4", "HA5")
Student = tuple[str, str, str, dict[str, str]]


def _course(drop: int = 1, resit: bool = False) -> dict[str, object]:
    final: dict[str, object] = {"name": "final", "columns": ["Klausur"], "max": 60, "weight": "60"}
    if resit:
        final["resit"] = "Nachklausur"
    return {
        "title": "Datenbanken, SoSe 2025",
        "scheme": "de",
        "components": [
            {
                "name": "homework",
                "columns": list(HOMEWORK),
                "max": 20,
                "weight": 40,
                "drop_lowest": drop,
            },
            final,
        ],
    }


EXAM_ONLY = {
    "scheme": "de",
    "components": [{"name": "exam", "columns": ["Klausur"], "max": 60, "weight": 100}],
}


def _loaded(resit: bool = False) -> dict[str, object]:
    """The course of :func:`_course` as load_course gives it."""
    homework = {"name": "homework", "columns": list(HOMEWORK), "max": 20.0, "weight": 40.0}
    final: dict[str, object] = {"name": "final", "columns": ["Klausur"], "max": 60.0}
    final |= {"weight": 60.0, "drop_lowest": 0, "resit": "Nachklausur" if resit else None}
    return {"scheme": "de", "components": [homework | {"drop_lowest": 1, "resit": None}, final]}


LOADED = _loaded()
WITH_RESIT = _loaded(resit=True)


def _de(value: float) -> str:
    return f"{value:g}".replace(".", ",")


def _points(rng: random.Random, top: int = 20) -> float:
    return rng.randint(0, top * 2) / 2


def _cells(rng: random.Random, missing: int = 0, late: int = 0) -> dict[str, str]:
    cells = {column: _de(_points(rng)) for column in HOMEWORK}
    for column in rng.sample(HOMEWORK, missing):
        cells[column] = rng.choice(("", "-"))
    for column in rng.sample([c for c in HOMEWORK if cells[c] not in ("", "-")], late):
        cells[column] += f"*{rng.randint(1, 9)}"
    cells["Klausur"] = _de(_points(rng, 60))
    return cells


def _ids(rng: random.Random, count: int) -> list[str]:
    """Matrikelnummern: seven digits, and one of the old six-digit ones."""
    ids = [str(rng.randint(4_600_000, 4_799_999)) for _ in range(count - 1)]
    return [*ids, str(rng.randint(900_000, 999_999))]


def _students(rng: random.Random, count: int, missing: int = 0, late: int = 0) -> list[Student]:
    names = rng.sample(STUDENTS, count)
    return [
        (number, name, first, _cells(rng, missing, late))
        for number, (name, first) in zip(_ids(rng, count), names, strict=True)
    ]


def _sheet(students: list[Student], columns: tuple[str, ...] = (*HOMEWORK, "Klausur")) -> str:
    lines = [";".join(("Matrikelnr", "Name", "Vorname", *columns))]
    for number, name, first, cells in students:
        lines.append(";".join((number, name, first, *(cells.get(c, "") for c in columns))))
    return "\n".join(lines) + "\n"


def _export(
    students: list[Student], course: object = None, *extra: str, exam_only: bool = False
) -> Probe:
    columns = ("Klausur",) if exam_only else (*HOMEWORK, "Klausur")
    chosen = EXAM_ONLY if exam_only else (course or _course())
    return Probe(
        cli="gradebook.cli:main",
        argv=("export", "scores.csv", "--course", "course.json", *extra),
        files={"scores.csv": _sheet(students, columns), "course.json": json.dumps(chosen)},
    )


def _call(function: str, *args: object) -> Probe:
    module = {"german_grade": "schemes", "letter_grade": "schemes", "shown_grade": "schemes"}
    module |= {"component_percent": "course", "late_points": "scores", "parse_cell": "scores"}
    module |= {"registrar_rows": "export", "course_percent": "course", "load_course": "course"}
    return Probe(call=f"gradebook.{module[function]}:{function}", args=args)


def _off_boundary(rng: random.Random) -> float:
    return rng.choice(BOUNDARIES) + rng.choice((-1, 1)) * rng.randint(1, 40) / 10


def _pass_to_pass(rng: random.Random) -> list[Probe]:
    return [
        _call("german_grade", _off_boundary(rng)),
        _call("letter_grade", rng.choice((93, 90, 87, 83, 80, 77, 73, 70, 60))),
        _call("shown_grade", _off_boundary(rng), rng.choice(("de", "letter"))),
        _call("parse_cell", f"{_de(_points(rng))}*{rng.randint(1, 9)}"),
        _call("component_percent", [_points(rng) for _ in range(4)], 20, rng.randint(0, 2)),
        _export(_students(rng, 3)),
        _export(_students(rng, 3), None, "--scheme", "letter"),
    ]


def _exact(rng: random.Random, count: int) -> list[Student]:
    """Students whose exam is exactly on a grade boundary."""
    students = _students(rng, count)
    lows = rng.sample(BOUNDARIES, count)
    return [
        (n, a, b, {"Klausur": _de(low * 60 / 100)})
        for (n, a, b, _), low in zip(students, lows, strict=True)
    ]


BOUNDARY = Change(
    id="grade-boundary",
    kind="bug",
    undo=(
        Replace(
            SCHEMES,
            "        if percent >= low:\n            return grade\n    return 5.0\n",
            "        if percent > low:\n            return grade\n    return 5.0\n",
        ),
        Replace("tests/test_export.py", "        self.assertEqual(german_grade(50), 4.0)\n", ""),
    ),
    report=Report(
        title="Student with exactly 50 % failed",
        complaint="A student came to my office hour: she has exactly half the points, which "
        "passes by the exam regulations, and the list we sent to the Prüfungsamt says 5,0. Two "
        "others with exactly 85 % and 90 % got the worse grade too.",
        expected="A percentage exactly on a boundary gets the better grade, as the exam "
        "regulations and the docstring say: 50 % is a 4,0.",
        request="german_grade must include each boundary in the better grade (95 is 1.0, 90 is "
        "1.3, ..., 50 is 4.0); just below a boundary stays the worse grade (49.9 is 5.0).",
        translations={
            "de": Report(
                title="Studentin mit genau 50 % durchgefallen",
                complaint=(
                    "Eine Studentin war in meiner Sprechstunde: Sie hat genau die Hälfte der "
                    "Punkte, das ist laut Prüfungsordnung bestanden, und in der Liste ans "
                    "Prüfungsamt steht 5,0. Zwei andere mit genau 85 % und 90 % haben auch "
                    "die schlechtere Note bekommen."
                ),
                expected=(
                    "Ein Prozentwert genau auf einer Notengrenze bekommt die bessere Note, "
                    "wie Prüfungsordnung und Docstring sagen: 50 % sind eine 4,0."
                ),
                request=(
                    "german_grade muss jede Grenze der besseren Note zuschlagen (95 ist 1.0, "
                    "90 ist 1.3, ..., 50 ist 4.0); knapp darunter bleibt es die schlechtere "
                    "Note (49.9 ist 5.0)."
                ),
            )
        },
    ),
    example=lambda rng: _call("german_grade", rng.choice(BOUNDARIES)),
    fail_to_pass=lambda rng: [
        _call("german_grade", rng.choice(BOUNDARIES[:5])),
        _call("german_grade", float(rng.choice(BOUNDARIES[5:]))),
        _call("shown_grade", rng.choice(BOUNDARIES), "de"),
        _export(_exact(rng, 4), None, exam_only=True),
    ],
    pass_to_pass=lambda rng: [
        _call("german_grade", rng.choice(BOUNDARIES) - rng.randint(1, 4) / 10),
        _call("german_grade", rng.choice(BOUNDARIES) - rng.randint(1, 4) / 10),
        _call("german_grade", rng.choice(BOUNDARIES) + rng.randint(1, 40) / 10),
        _call("shown_grade", rng.choice(BOUNDARIES), "letter"),
    ],
    known_bad={
        "rounds-to-whole-percent": (
            Replace(SCHEMES, "        if percent > low:\n", "        if percent + 0.5 > low:\n"),
        ),
    },
)

MISSING = Change(
    id="missing-homework-dropped",
    kind="bug",
    undo=(
        Replace(
            COURSE,
            "    counted = sorted(0.0 if item is None else item for item in points)"
            "[drop_lowest:]\n",
            "    counted = sorted(item for item in points if item is not None)[drop_lowest:]\n",
        ),
        Replace(
            "tests/test_course.py",
            "    def test_missing_is_dropped_first(self):\n"
            "        self.assertEqual(component_percent([8, None, 10], 10, 1), 90)\n\n",
            "",
        ),
    ),
    report=Report(
        title="Skipping a homework pays off",
        complaint="Students figured out that not handing in a homework gives a better grade "
        "than handing in a weak one: the weak one gets dropped, the missing one is simply "
        "ignored. One student skipped two and still has 100 % in homework.",
        expected="A missing homework counts as zero points; the dropped lowest homework is then "
        "the missing one, and any further missing ones count as zero.",
        request="component_percent must count a missing item (None) as 0 points before dropping "
        "the `drop_lowest` lowest items, and average over the remaining items "
        "(`[8, None, 10]` out of 10 with one dropped is 90.0; with two missing and one dropped "
        "the other missing one counts as 0).",
        translations={
            "de": Report(
                title="Hausaufgabe weglassen lohnt sich",
                complaint=(
                    "Die Studierenden haben gemerkt, dass eine nicht abgegebene Hausaufgabe "
                    "eine bessere Note bringt als eine schwache: die schwache wird "
                    "gestrichen, die fehlende einfach ignoriert. Einer hat zwei weggelassen "
                    "und hat trotzdem 100 % bei den Hausaufgaben."
                ),
                expected=(
                    "Eine fehlende Hausaufgabe zählt null Punkte; gestrichen wird dann zuerst "
                    "die fehlende, weitere fehlende zählen null."
                ),
                request=(
                    "component_percent muss ein fehlendes Element (None) als 0 Punkte zählen, "
                    "bevor die `drop_lowest` schlechtesten gestrichen werden, und über die "
                    "übrigen mitteln (`[8, None, 10]` von 10 mit einer Streichung ergibt "
                    "90.0; bei zwei fehlenden und einer Streichung zählt die andere fehlende "
                    "mit 0)."
                ),
            )
        },
    ),
    example=lambda rng: _call(
        "component_percent", [_points(rng), None, _points(rng), _points(rng)], 20, 1
    ),
    fail_to_pass=lambda rng: [
        _call("component_percent", [_points(rng), None, _points(rng), None, 20.0], 20, 1),
        _call("component_percent", [None, _points(rng, 10), _points(rng, 10)], 10, 0),
        _call("component_percent", [_points(rng), None, _points(rng), _points(rng)], 20, 2),
        _export(_students(rng, 3, missing=2)),
        _export(_students(rng, 4, missing=1), _course(0)),
        _call("course_percent", _cells(rng, missing=2), LOADED),
    ],
    pass_to_pass=lambda rng: [
        _call("component_percent", [_points(rng) for _ in range(5)], 20, 1),
        _call("component_percent", [_points(rng) for _ in range(3)], 20, 0),
        _call("component_percent", [None, None], 20, 0),
    ],
    known_bad={
        "drops-a-handed-in-one": (
            Replace(
                COURSE,
                "    counted = sorted(item for item in points if item is not None)[drop_lowest:]\n",
                "    submitted = sorted(item for item in points if item is not None)"
                "[drop_lowest:]\n"
                "    counted = submitted + [0.0] * (len(points) - len(submitted) - drop_lowest)\n",
            ),
        ),
    },
)

LATE = Change(
    id="late-penalty",
    kind="bug",
    undo=(
        Replace(
            SCORES,
            "    return max(0.0, round(points - LATE_PENALTY * max_points * days_late, 2))\n",
            "    return round(points * (1 - LATE_PENALTY * days_late), 2)\n",
        ),
        Replace(
            "tests/test_course.py",
            "    def test_late(self):\n        self.assertEqual(late_points(18, 20, 2), 14)\n\n",
            "",
        ),
        Replace(
            "tests/test_course.py",
            "    def test_late_never_negative(self):\n"
            "        self.assertEqual(late_points(3, 20, 5), 0)\n\n",
            "",
        ),
    ),
    report=Report(
        title="Late penalty does not follow the course rules",
        complaint="A student who handed in 18 of 20 points two days late kept 14,4 points. The "
        "course rules say 10 % of the maximum per day, so that should be 14. Weak submissions "
        "that are late hardly lose anything.",
        expected="Each day late costs 10 % of the item's maximum points (not of the points "
        "reached), never going below zero; after seven days the item counts as zero.",
        request="late_points(points, max_points, days_late) must subtract 0.1 * max_points per "
        "day late, floor the result at 0.0, keep returning 0.0 after more than 7 days and the "
        "points unchanged when not late; the result rounded to 2 decimals.",
        translations={
            "de": Report(
                title="Verspätungsabzug entspricht nicht den Kursregeln",
                complaint=(
                    "Ein Student hat 18 von 20 Punkten zwei Tage zu spät abgegeben und 14,4 "
                    "Punkte behalten. Laut Kursregeln sind es 10 % der Höchstpunktzahl pro "
                    "Tag, also müssten es 14 sein. Schwache Abgaben verlieren bei Verspätung "
                    "fast nichts."
                ),
                expected=(
                    "Jeder Tag Verspätung kostet 10 % der Höchstpunktzahl der Aufgabe (nicht "
                    "der erreichten Punkte), nie unter null; nach sieben Tagen zählt die "
                    "Aufgabe null."
                ),
                request=(
                    "late_points(points, max_points, days_late) muss pro Verspätungstag 0.1 * "
                    "max_points abziehen, das Ergebnis bei 0.0 abschneiden, nach mehr als 7 "
                    "Tagen weiter 0.0 und ohne Verspätung die Punkte unverändert liefern; auf "
                    "2 Nachkommastellen gerundet."
                ),
            )
        },
    ),
    example=lambda rng: _call("late_points", float(rng.randint(14, 19)), 20, rng.randint(1, 3)),
    fail_to_pass=lambda rng: [
        _call("late_points", float(rng.randint(25, 39)), 40, rng.randint(1, 4)),
        _call("late_points", rng.randint(2, 6) / 2, 20, rng.randint(5, 7)),
        _call("late_points", float(rng.randint(10, 15)), 15, rng.randint(2, 6)),
        # an odd number of days late takes a third decimal off (1.775 a day): the result is
        # rounded to cents (with 2 days, a fix rounding to another place passed)
        _call("late_points", rng.randint(40, 71) / 4, 17.75, rng.choice((1, 3))),
        _export(_students(rng, 3, late=2)),
        _call("course_percent", _cells(rng, late=3), LOADED),
    ],
    pass_to_pass=lambda rng: [
        _call("late_points", _points(rng), 20, 0),
        _call("late_points", _points(rng), 20, rng.randint(8, 30)),
        _call("late_points", None, 20, rng.randint(1, 5)),
    ],
    known_bad={
        "forgets-the-floor": (
            Replace(
                SCORES,
                "    return round(points * (1 - LATE_PENALTY * days_late), 2)\n",
                "    return round(points - LATE_PENALTY * max_points * days_late, 2)\n",
            ),
        ),
    },
)


def _unsorted(rng: random.Random, count: int) -> list[Student]:
    """Students in an order that is neither by number nor by name."""
    while True:
        students = _students(rng, count)
        if students not in (
            sorted(students, key=lambda s: int(s[0])),
            sorted(students, key=lambda s: (s[1], s[2])),
        ):
            return students


def _rows(rng: random.Random, count: int) -> Probe:
    students = [
        {"id": n, "name": a, "first": b, "cells": cells} for n, a, b, cells in _unsorted(rng, count)
    ]
    return _call("registrar_rows", students, LOADED)


SORTED = Change(
    id="sorted-export",
    kind="feature",
    undo=(
        Replace(EXPORT, "    rows.sort(key=lambda row: int(row[0]))\n", ""),
        Replace(EXPORT, " grade; in order\n    of Matrikelnummer.", " grade."),
        Replace(
            "tests/test_export.py",
            'SHEET = "Matrikelnr;Name;Vorname;K\\n4700002;Weber;Anna;46\\n4700001;Lang;Tom;32\\n"',
            'SHEET = "Matrikelnr;Name;Vorname;K\\n4700001;Lang;Tom;32\\n4700002;Weber;Anna;46\\n"',
        ),
    ),
    report=Report(
        title="Prüfungsamt wants the grade list sorted",
        complaint="The examination office sent our grade list back: their import needs it "
        "sorted, and ours comes out in whatever order the tutors typed the score sheet.",
        expected="The exported list is sorted.",
        request="Sort the rows that go to the examination office, in registrar_rows and so in "
        "`gradebook export` (rows that compare equal keep the sheet's order).",
        translations={
            "de": Report(
                title="Prüfungsamt will die Notenliste sortiert",
                complaint=(
                    "Das Prüfungsamt hat unsere Notenliste zurückgeschickt: Ihr Import "
                    "braucht sie sortiert, und unsere kommt in der Reihenfolge heraus, in der "
                    "die Tutoren die Punkteliste getippt haben."
                ),
                expected="Die exportierte Liste ist sortiert.",
                request=(
                    "Die Zeilen für das Prüfungsamt sortieren, in registrar_rows und damit in "
                    "`gradebook export` (gleichrangige Zeilen behalten die Reihenfolge der "
                    "Punkteliste)."
                ),
            )
        },
    ),
    example=lambda rng: _export(_unsorted(rng, 4)),
    fail_to_pass=lambda rng: [
        _export(_unsorted(rng, 5)),
        _export(_unsorted(rng, 6), None, "--scheme", "letter"),
        _rows(rng, 5),
    ],
    readings={
        "by-name": (
            Replace(
                EXPORT,
                "    rows.sort(key=lambda row: int(row[0]))\n",
                "    rows.sort(key=lambda row: (row[1], row[2]))\n",
            ),
        ),
    },
    known_bad={
        "sorts-numbers-as-text": (
            Replace(EXPORT, "    return rows\n", "    rows.sort()\n    return rows\n"),
        ),
    },
)

_RESIT_BLOCK = (
    '        if component.get("resit"):\n'
    '            retry, _ = parse_cell(cells.get(component["resit"]) or "")\n'
    "            if retry is not None:\n"
    "                points = [max(retry, item or 0.0) for item in points]\n"
)
_RESIT = (
    Replace(COURSE, _RESIT_BLOCK, ""),
    Replace(COURSE, '                "resit": item.get("resit"),\n', ""),
    Replace(
        COURSE,
        "    drop_lowest, resit: the column of the resit exam, if the component has one).",
        "    drop_lowest).",
    ),
    Replace(
        "README.md",
        "are dropped; an exam component may name the column of its resit "
        '(`"resit": "Nachklausur"`),\nand the better of exam and resit counts.',
        "are dropped.",
    ),
    Replace("data/course.json", '"weight": 50, "resit": "Nachklausur"}', '"weight": 50}'),
    Replace(
        "tests/test_course.py",
        "    def test_resit(self):\n"
        "        course = load_course(\n"
        """            '{"components": [{"name": "exam", "columns": ["K"], "max": 50,"""
        """ "weight": 1,'\n"""
        """            ' "resit": "NK"}]}'\n"""
        "        )\n"
        '        self.assertEqual(course_percent({"K": "20", "NK": "31"}, course), 62)\n'
        '        self.assertEqual(course_percent({"K": "20", "NK": "12"}, course), 40)\n\n',
        "",
    ),
)


def _resat(rng: random.Random, count: int, better: int) -> list[Student]:
    """Students, ``better`` of them with a resit better than their exam, one with a worse
    resit, the others without one."""
    students = _students(rng, count)
    for index, (_, _, _, cells) in enumerate(students):
        exam = float(cells["Klausur"].replace(",", "."))
        if index < better:
            cells["Nachklausur"] = _de(min(60.0, exam + rng.randint(2, 40) / 2))
        elif index == better:
            cells["Nachklausur"] = _de(max(0.0, exam - rng.randint(2, 20) / 2))
    rng.shuffle(students)
    return students


def _resit_export(students: list[Student]) -> Probe:
    probe = _export(students, _course(resit=True))
    columns = (*HOMEWORK, "Klausur", "Nachklausur")
    return Probe(
        cli=probe.cli,
        argv=probe.argv,
        files={**probe.files, "scores.csv": _sheet(students, columns)},
    )


def _resit_cells(rng: random.Random, better: bool) -> dict[str, str]:
    [(_, _, _, cells)] = _resat(rng, 1, 1 if better else 0)
    return cells


RESIT = Change(
    id="resit-exam",
    kind="feature",
    undo=_RESIT,
    report=Report(
        title="Resit results are ignored",
        complaint="Students who passed the resit (Nachklausur) still have their failed first "
        "attempt on the list we send to the Prüfungsamt. The tutors entered the resit points "
        "in the Nachklausur column, but the gradebook does not look at it.",
        expected="When a student wrote the resit, the better of exam and resit counts. The exam "
        'component in course.json names its resit column: `"resit": "Nachklausur"`.',
        request="Support an optional `resit` key on a component in course.json (the column of "
        "the resit): load_course keeps it, and course_percent counts, for each of the "
        "component's items, the better of its points and the resit's points when the resit "
        "cell is not empty or missing.",
        translations={
            "de": Report(
                title="Ergebnisse der Nachklausur werden ignoriert",
                complaint=(
                    "Studierende, die die Nachklausur bestanden haben, stehen in der Liste "
                    "ans Prüfungsamt immer noch mit dem ersten, nicht bestandenen Versuch. "
                    "Die Tutoren haben die Punkte in die Spalte Nachklausur eingetragen, aber "
                    "das Notenbuch schaut sie nicht an."
                ),
                expected=(
                    "Wer die Nachklausur geschrieben hat, bekommt das bessere Ergebnis aus "
                    "Klausur und Nachklausur. Die Klausur-Komponente in course.json nennt "
                    'ihre Nachklausur-Spalte: `"resit": "Nachklausur"`.'
                ),
                request=(
                    "Einen optionalen Schlüssel `resit` an einer Komponente in course.json "
                    "unterstützen (die Spalte der Nachklausur): load_course übernimmt ihn, "
                    "und course_percent zählt für jedes Element der Komponente das Bessere "
                    "aus seinen Punkten und denen der Nachklausur, wenn die Nachklausur-Zelle "
                    "nicht leer oder fehlend ist."
                ),
            )
        },
    ),
    example=lambda rng: _call("course_percent", _resit_cells(rng, True), WITH_RESIT),
    fail_to_pass=lambda rng: [
        _call("course_percent", _resit_cells(rng, True), WITH_RESIT),
        _call(
            "course_percent",
            {**_cells(rng), "Klausur": "-", "Nachklausur": _de(rng.randint(1, 3) / 4)},
            WITH_RESIT,
        ),
        _resit_export(_resat(rng, 4, 2)),
        _call("load_course", json.dumps(_course(rng.randint(0, 2), resit=True))),
        _resit_export(_resat(rng, 5, 3)),
    ],
    pass_to_pass=lambda rng: [
        _call("course_percent", _resit_cells(rng, False), WITH_RESIT),
        _call("course_percent", _cells(rng), WITH_RESIT),
        _resit_export(_resat(rng, 3, 0)),
    ],
    known_bad={
        "resit-replaces-the-exam": (
            *put_back(_RESIT),
            Replace(
                COURSE,
                "                points = [max(retry, item or 0.0) for item in points]\n",
                "                points = [retry for _ in points]\n",
            ),
        ),
        "resit-averaged-in": (
            *put_back(_RESIT),
            Replace(
                COURSE,
                "                points = [max(retry, item or 0.0) for item in points]\n",
                "                points.append(retry)\n",
            ),
        ),
    },
)

TEMPLATE = ProjectTemplate(
    id="course-gradebook",
    title="the course gradebook",
    project="course_gradebook",
    cli="gradebook.cli:main",
    locale="de-DE",
    changes=(BOUNDARY, MISSING, LATE, SORTED, RESIT),
    pass_to_pass=_pass_to_pass,
    tags=("education", "grading", "csv"),
    titles={"de": "das Notenbuch des Kurses"},
)
