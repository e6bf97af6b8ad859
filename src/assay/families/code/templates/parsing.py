"""Templates for parsing text into values: durations, key-value lines, versions, CSV rows."""

from __future__ import annotations

import random

from assay.families.code.templates._model import Problem, Template

_UNITS = {"h": 3600, "m": 60, "s": 1}


def _duration(rng: random.Random) -> Problem:
    function = rng.choice(["parse_duration", "duration_to_seconds", "to_seconds"])
    reference = f'''
def {function}(text: str) -> int:
    text = text.strip().lower()
    if not text:
        raise ValueError("empty duration")
    units = {{"h": 3600, "m": 60, "s": 1}}
    total, number, seen = 0, "", False
    for char in text:
        if char.isdigit():
            number += char
        elif char in units and number:
            total += int(number) * units[char]
            number, seen = "", True
        elif char == " ":
            continue
        else:
            raise ValueError(f"bad duration: {{text!r}}")
    if number or not seen:
        raise ValueError(f"bad duration: {{text!r}}")
    return total
'''
    ignores_case = reference.replace("text = text.strip().lower()", "text = text.strip()")
    minutes_as_hours = reference.replace('"m": 60', '"m": 3600')
    cases: list[tuple[object, ...]] = [
        ("1h30m",), ("45s",), ("2H",), ("  10m 5s ",), ("0s",), ("1h1m1s",), ("90m",), ("3M",),
    ]
    for _ in range(4):
        parts = [f"{rng.randint(1, 99)}{unit}" for unit in _UNITS if rng.random() < 0.7] or ["7s"]
        cases.append(("".join(parts),))
    return Problem(
        function=function,
        signature=f"def {function}(text: str) -> int:",
        summary="Convert a duration such as '1h30m' into a whole number of seconds.",
        rules=(
            "A duration is one or more groups of digits followed by a unit: h, m or s.",
            "Units are case-insensitive; spaces between groups and around the text are ignored.",
            "Return the total number of seconds as an int.",
            "Raise ValueError for empty text, a unit without digits, digits without a unit, "
            "or any other character.",
        ),
        reference=reference,
        bad={"case-sensitive-units": ignores_case, "minutes-as-hours": minutes_as_hours},
        cases=tuple(cases),
        examples=(("1h30m",), ("45s",)),
        tags=("durations",),
    )


TEMPLATES: tuple[Template, ...] = (
    Template(id="parse-duration", category="parsing", difficulty="easy", build=_duration),
)
