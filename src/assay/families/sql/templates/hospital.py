"""Hospital shift scheduling: wards, staff, shifts and the rota of who works which shift."""

from __future__ import annotations

import datetime as dt
import random

from assay.families.sql.templates._model import Formats, Question, Schema, Template, inserts, sql

_CREATE = """\
-- Shift scheduling of a hospital. staff.ward_id is NULL for the floating pool; left_on is the
-- last day someone worked here (NULL while they still do).
CREATE TABLE wards (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  min_nurses INTEGER NOT NULL CHECK (min_nurses > 0)
);

CREATE TABLE staff (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('nurse', 'doctor', 'assistant')),
  ward_id INTEGER REFERENCES wards (id),
  hired_on DATE NOT NULL,
  left_on DATE
);

CREATE TABLE shifts (
  id INTEGER PRIMARY KEY,
  ward_id INTEGER NOT NULL REFERENCES wards (id),
  starts_at TIMESTAMP NOT NULL,
  hours INTEGER NOT NULL CHECK (hours > 0),
  kind TEXT NOT NULL CHECK (kind IN ('day', 'night'))
);

-- status: confirmed, swapped (someone else took it) or sick (reported sick, did not work).
CREATE TABLE rota (
  shift_id INTEGER NOT NULL REFERENCES shifts (id),
  staff_id INTEGER NOT NULL REFERENCES staff (id),
  status TEXT NOT NULL CHECK (status IN ('confirmed', 'swapped', 'sick')),
  PRIMARY KEY (shift_id, staff_id)
);
"""
_WARDS = ("Cardiology", "Oncology", "Maternity", "Emergency", "Geriatrics", "Paediatrics")
_PEOPLE = [
    "Amara Okafor",
    "Björn Lind",
    "Carmen Vidal",
    "Deepa Iyer",
    "Elif Kaya",
    "Farid Nasser",
    "Greta Holm",
    "Hana Kobayashi",
    "Ivan Petrov",
    "Julia Santos",
    "Kwame Mensah",
    "Lucia Romano",
    "Mikael Virtanen",
    "Nadia Benali",
    "Oskar Nowak",
    "Paula Schmidt",
    "Rafael Ortiz",
    "Sofia Rossi",
    "Tomasz Zielinski",
    "Ula Berg",
    "Viktor Hansen",
    "Wen Li",
    "Yusuf Demir",
    "Zoe Martin",
]
_START = dt.date(2024, 3, 1)
_DAYS = 28
_CONFIRMED_NURSES = (
    "LEFT JOIN rota AS r ON r.shift_id = s.id AND r.status = 'confirmed' "
    "LEFT JOIN staff AS n ON n.id = r.staff_id AND n.role = 'nurse'"
)


def _database(rng: random.Random) -> str:
    wards = [(i, name, rng.randint(1, 2)) for i, name in enumerate(rng.sample(_WARDS, 4), 1)]
    staff: list[tuple[object, ...]] = []
    for i, name in enumerate(rng.sample(_PEOPLE, rng.randint(16, 22)), 1):
        role = rng.choices(("nurse", "doctor", "assistant"), (6, 2, 2))[0]
        home = None if rng.random() < 0.2 else rng.randint(1, len(wards))
        hired = dt.date(2019, 1, 1) + dt.timedelta(days=rng.randrange(1900))
        left = None if rng.random() < 0.7 else _START + dt.timedelta(days=rng.randrange(-20, 40))
        staff.append((i, name, role, home, min(hired, _START + dt.timedelta(days=20)), left))
    shifts: list[tuple[object, ...]] = []
    rota: list[tuple[object, ...]] = []
    for day in range(_DAYS):
        date = _START + dt.timedelta(days=day)
        for ward in wards:
            for kind, hour, hours in (("day", 7, 12), ("night", 19, 12)):
                if rng.random() < (0.6 if kind == "day" else 0.45):
                    number = len(shifts) + 1
                    start = dt.datetime(date.year, date.month, date.day, hour)
                    shifts.append((number, ward[0], start, rng.choice((hours, 8)), kind))
                    for person in rng.sample(staff, rng.randint(0, 3)):
                        status = rng.choices(("confirmed", "swapped", "sick"), (7, 1, 1))[0]
                        rota.append((number, person[0], status))
    return "\n".join(
        (
            _CREATE,
            inserts("wards", wards),
            inserts("staff", staff),
            inserts("shifts", shifts),
            inserts("rota", rota),
        )
    )


SCHEMA = Schema("hospital", "roster.sql", "a hospital's wards, staff and shift rota", _database)


def _week(rng: random.Random, f: Formats) -> tuple[dict[str, object], str]:
    first = _START + dt.timedelta(days=rng.randrange(_DAYS - 7))
    last = first + dt.timedelta(days=rng.choice((6, 7, 13)))
    values: dict[str, object] = {
        "start": first,
        "after": last + dt.timedelta(days=1),
        "last": last,
    }
    return values, f"starting between {f.date(first)} and {f.date(last)} (both days included)"


def _understaffed(rng: random.Random, f: Formats) -> Question:
    values, period = _week(rng, f)
    reference = (
        "SELECT s.id, w.name, s.starts_at, COUNT(n.id) AS nurses FROM shifts AS s "  # noqa: S608 - template query text; values go through sql()
        f"JOIN wards AS w ON w.id = s.ward_id {_CONFIRMED_NURSES} "
        "WHERE s.starts_at >= :start AND s.starts_at < :after "
        "GROUP BY s.id, w.name, s.starts_at, w.min_nurses HAVING COUNT(n.id) < w.min_nurses"
    )
    return Question(
        ask=f"Which shifts {period} had fewer confirmed nurses than their ward's minimum?",
        spec=(
            "Only nurses count, and only with the status confirmed; a shift nobody is on counts.",
            "Return the shift id, the ward name, the start and the number of confirmed nurses.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "inner-join": sql(
                reference.replace("LEFT JOIN rota", "JOIN rota").replace(
                    "LEFT JOIN staff", "JOIN staff"
                ),
                **values,
            ),
            "count-star": sql(reference.replace("COUNT(n.id)", "COUNT(*)"), **values),
            "status-ignored": sql(reference.replace(" AND r.status = 'confirmed'", ""), **values),
            "date-boundary": sql(
                reference.replace("s.starts_at < :after", "s.starts_at < :last"), **values
            ),
        },
        tags=("left-join", "having", "zero-rows", "date-range"),
    )


def _hours_per_nurse(rng: random.Random, f: Formats) -> Question:
    values, period = _week(rng, f)
    reference = (
        "SELECT n.name, SUM(s.hours) AS hours FROM rota AS r JOIN shifts AS s ON s.id = r.shift_id "
        "JOIN staff AS n ON n.id = r.staff_id WHERE r.status = 'confirmed' AND n.role = 'nurse' "
        "AND s.starts_at >= :start AND s.starts_at < :after GROUP BY n.id, n.name"
    )
    return Question(
        ask=f"How many hours did each nurse work on confirmed shifts {period}?",
        spec=(
            "Swapped and sick entries are not hours worked.",
            "Return the nurse's name and the hours; nurses without such shifts are left out.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "dropped-filter": sql(reference.replace("r.status = 'confirmed' AND ", ""), **values),
            "role-ignored": sql(reference.replace(" AND n.role = 'nurse'", ""), **values),
            "date-boundary": sql(
                reference.replace("s.starts_at < :after", "s.starts_at <= :last"), **values
            ),
        },
        tags=("join", "group-by", "date-range"),
    )


def _employed_on(rng: random.Random, f: Formats) -> Question:
    day = _START + dt.timedelta(days=rng.randrange(-10, 30))
    reference = (
        "SELECT role, COUNT(*) AS people FROM staff WHERE hired_on <= :day "
        "AND (left_on IS NULL OR left_on >= :day) GROUP BY role"
    )
    return Question(
        ask=f"How many people of each role worked for us on {f.date(day)}?",
        spec=(
            "left_on is the last day someone worked here; it is empty while they still do.",
            "Return the role and the head count.",
        ),
        references={"reference": sql(reference, day=day)},
        bad={
            "null-dropped": sql(
                reference.replace("(left_on IS NULL OR left_on >= :day)", "left_on >= :day"),
                day=day,
            ),
            "boundary": sql(reference.replace("left_on >= :day", "left_on > :day"), day=day),
            "hired-ignored": sql(reference.replace("hired_on <= :day AND ", ""), day=day),
        },
        tags=("null", "date-boundary", "group-by"),
    )


def _night_ranking(rng: random.Random, f: Formats) -> Question:
    values, period = _week(rng, f)
    reference = (
        "SELECT w.name, COUNT(s.id) AS nights, DENSE_RANK() OVER (ORDER BY COUNT(s.id) DESC) "
        "AS place FROM wards AS w LEFT JOIN shifts AS s ON s.ward_id = w.id AND s.kind = 'night' "
        "AND s.starts_at >= :start AND s.starts_at < :after GROUP BY w.id, w.name "
        "ORDER BY place, w.name"
    )
    return Question(
        ask=f"Rank the wards by the number of night shifts {period}.",
        spec=(
            "Every ward is ranked, also one without night shifts.",
            "Tied wards share a place and the next place follows on (1, 2, 2, 3).",
            "Return ward name, number of night shifts and place, by place then name.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "rank-gaps": sql(reference.replace("DENSE_RANK()", "RANK()"), **values),
            "row-number": sql(reference.replace("DENSE_RANK()", "ROW_NUMBER()"), **values),
            "filter-in-where": sql(
                reference.replace(" AND s.kind = 'night'", "").replace(
                    "GROUP BY", "WHERE s.kind = 'night' GROUP BY"
                ),
                **values,
            ),
        },
        tags=("window", "ranking", "ties", "left-join"),
    )


def _floating_pool(rng: random.Random, f: Formats) -> Question:
    day = _START + dt.timedelta(days=rng.randrange(0, 28))
    reference = (
        "SELECT role, COUNT(*) - COUNT(ward_id) AS floating, COUNT(ward_id) AS on_a_ward "
        "FROM staff WHERE left_on IS NULL OR left_on >= :day GROUP BY role"
    )
    return Question(
        ask="For each role, how many current staff belong to the floating pool (no home ward) "
        "and how many have a ward?",
        spec=(
            f"Current staff have no left_on, or one not before today, {f.date(day)}.",
            "Return the role, the floating count and the count with a ward.",
        ),
        references={"reference": sql(reference, day=day)},
        bad={
            "count-star": sql(
                reference.replace("COUNT(ward_id) AS on_a_ward", "COUNT(*) AS on_a_ward"), day=day
            ),
            "null-equals": sql(
                reference.replace(
                    "COUNT(*) - COUNT(ward_id)", "SUM(CASE WHEN ward_id = NULL THEN 1 ELSE 0 END)"
                ),
                day=day,
            ),
            "dropped-filter": sql(
                reference.replace(" WHERE left_on IS NULL OR left_on >= :day", ""), day=day
            ),
        },
        tags=("null", "count", "group-by"),
    )


def _first_on_ward(rng: random.Random, f: Formats) -> Question:
    values, period = _week(rng, f)
    ranked = (
        "SELECT w.name AS ward, n.name AS person, RANK() OVER (PARTITION BY s.ward_id "
        "ORDER BY s.starts_at) AS place FROM shifts AS s JOIN wards AS w ON w.id = s.ward_id "
        "JOIN rota AS r ON r.shift_id = s.id JOIN staff AS n ON n.id = r.staff_id "
        "WHERE r.status = 'confirmed' AND s.starts_at >= :start AND s.starts_at < :after"
    )
    reference = f"SELECT ward, person FROM ({ranked}) AS firsts WHERE place = 1"  # noqa: S608 - template query text; values go through sql()
    return Question(
        ask=f"For each ward, who worked its first confirmed shift {period}?",
        spec=(
            "Everyone confirmed on that first shift is listed.",
            "Return the ward name and the person's name.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "no-partition": sql(reference.replace("PARTITION BY s.ward_id ", ""), **values),
            "status-ignored": sql(reference.replace("r.status = 'confirmed' AND ", ""), **values),
            "date-boundary": sql(
                reference.replace("s.starts_at >= :start", "s.starts_at > :start"), **values
            ),
        },
        tags=("window", "partition", "ties"),
    )


def _wards_per_nurse(rng: random.Random, f: Formats) -> Question:
    values, period = _week(rng, f)
    reference = (
        "SELECT n.name, COUNT(DISTINCT s.ward_id) AS wards FROM rota AS r "
        "JOIN shifts AS s ON s.id = r.shift_id JOIN staff AS n ON n.id = r.staff_id "
        "WHERE r.status = 'confirmed' AND s.starts_at >= :start AND s.starts_at < :after "
        "GROUP BY n.id, n.name HAVING COUNT(DISTINCT s.ward_id) > 1"
    )
    return Question(
        ask=f"Who worked confirmed shifts on more than one ward {period}, and on how many?",
        spec=("Return the person's name and the number of different wards.",),
        references={"reference": sql(reference, **values)},
        bad={
            "missing-distinct": sql(reference.replace("DISTINCT ", ""), **values),
            "status-ignored": sql(reference.replace("r.status = 'confirmed' AND ", ""), **values),
        },
        tags=("distinct", "having"),
    )


TEMPLATES = (
    Template("hospital-understaffed-shifts", SCHEMA, "hard", _understaffed),
    Template("hospital-hours-per-nurse", SCHEMA, "easy", _hours_per_nurse),
    Template("hospital-employed-on-day", SCHEMA, "medium", _employed_on),
    Template("hospital-night-shift-ranking", SCHEMA, "hard", _night_ranking),
    Template("hospital-floating-pool", SCHEMA, "medium", _floating_pool),
    Template("hospital-first-on-ward", SCHEMA, "hard", _first_on_ward),
    Template("hospital-wards-per-nurse", SCHEMA, "medium", _wards_per_nurse),
)
