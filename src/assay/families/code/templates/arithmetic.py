"""Templates for exact arithmetic: rounding division, percentages, check digits, dates, money."""

from __future__ import annotations

import random
from datetime import date, timedelta

from assay.families.code.templates._model import Problem, Template


def _swap(source: str, old: str, new: str) -> str:
    """``source`` with ``old`` replaced by ``new``; fails loudly if ``old`` is not there."""
    if old not in source:
        raise ValueError(f"template bug: {old!r} not found in source")
    return source.replace(old, new)


def _early(source: str, anchor: str, line: str) -> str:
    """``source`` with ``line`` returned just before the line that starts with ``anchor``."""
    return _swap(source, f"\n    {anchor}", f"\n    return {line}\n    {anchor}")


def _cents_text(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


# --- round-divide -------------------------------------------------------------------------------

_TIE_RULES = {  # the tie test in the reference, and how the rules state it
    "half-up": ("True", "away from zero (7 / 2 -> 4, -7 / 2 -> -4)"),
    "half-down": ("False", "toward zero (7 / 2 -> 3, -7 / 2 -> -3)"),
    "half-even": ("q % 2 == 1", "to the even one (5 / 2 -> 2, 7 / 2 -> 4, -5 / 2 -> -2)"),
}


def _round_divide(rng: random.Random) -> Problem:
    function = rng.choice(["divide_round", "rounded_div", "div_round"])
    mode = rng.choice(sorted(_TIE_RULES))
    tie, tie_rule = _TIE_RULES[mode]
    reference = f"""
def {function}(a: int, b: int) -> int | None:
    if b == 0:
        return None
    negative = (a < 0) != (b < 0)
    q, r = divmod(abs(a), abs(b))
    twice = 2 * r
    if twice > abs(b) or (twice == abs(b) and {tie}):
        q += 1
    return -q if negative else q
"""
    toward_positive = "import math\n" + _early(reference, "negative =", "math.floor(a / b + 0.5)")
    third = "float-division" if mode == "half-even" else "bankers-rounding"
    cases: list[tuple[object, ...]] = [
        (7, 2),
        (-7, 2),
        (5, 2),
        (-5, 2),
        (9, 3),
        (1, 0),
        (-8, 0),
        (0, 0),
        (7, -2),
        (-10, 4),
        (0, 5),
        (2, 3),
        (-2, 3),
        (10**17 + 3, 2),
        (-(10**17) - 1, 2),
    ]
    for _ in range(2):
        b = rng.choice([2, 4, 6, 10, -4])
        cases.append((b * rng.randint(-50, 50) + b // 2, b))
    for _ in range(2):
        cases.append((rng.randint(-1000, 1000), rng.choice([3, 7, 9, -11, 13])))
    return Problem(
        function=function,
        signature=f"def {function}(a: int, b: int) -> int | None:",
        summary="Divide two integers and round the quotient to the nearest integer.",
        rules=(
            "Return the exact quotient a / b rounded to the nearest integer, as an int.",
            f"A result exactly halfway between two integers is rounded {tie_rule}.",
            "Either argument may be negative, and the arguments may be far larger than 2**53: "
            "the result must be exact for any int arguments.",
            "Return None when b is 0.",
        ),
        reference=reference,
        bad={
            "floor-division": _early(reference, "negative =", "a // b"),
            "ties-toward-positive-infinity": toward_positive,
            third: _early(reference, "negative =", "round(a / b)"),
            # the example shows b == 0: the hidden cases must check it without that example
            "no-zero-guard": _swap(reference, "    if b == 0:\n        return None\n", ""),
        },
        cases=tuple(cases),
        examples=((7, 2), (-7, 2), (1, 0)),
        tags=("rounding", mode),
    )


# --- percent-change -----------------------------------------------------------------------------


def _percent_change(rng: random.Random) -> Problem:
    function = rng.choice(["percent_change", "pct_change", "relative_change"])
    places = rng.choice([1, 2])
    zero = f"0.{'0' * places}%"
    reference = f"""
from fractions import Fraction

def {function}(old: int, new: int) -> str | None:
    if old == 0:
        return {zero!r} if new == 0 else None
    scaled = Fraction(100 * (new - old), abs(old)) * 10 ** {places}
    units = int(abs(scaled) + Fraction(1, 2))
    sign = "" if units == 0 else ("-" if scaled < 0 else "+")
    return f"{{sign}}{{units // 10 ** {places}}}.{{units % 10 ** {places}:0{places}d}}%"
"""
    signed_base = _swap(reference, "abs(old))", "old)")
    float_change = f'f"{{(new - old) / abs(old) * 100:+.{places}f}}%"'
    float_format = _early(reference, "scaled =", float_change)
    no_zero_check = _swap(reference, f"return {zero!r} if new == 0 else None", "pass")
    none_for_zero = _swap(reference, f"return {zero!r} if new == 0 else None", "return None")
    tie = 2 * 10 ** (places + 2)
    cases: list[tuple[object, ...]] = [
        (80, 100),
        (3, 2),
        (0, 0),
        (0, 5),
        (0, -7),
        (-200, -100),
        (-50, 25),
        (100, 100),
        (100000, 99999),
        (tie, tie + 1),
        (tie, tie + 5),
        (tie, tie - 5),
        (tie, tie - 1),
        (tie, tie + 7),
    ]
    for _ in range(3):
        old = rng.choice([-1, 1]) * rng.randint(1, 500)
        cases.append((old, rng.randint(-600, 600)))
    return Problem(
        function=function,
        signature=f"def {function}(old: int, new: int) -> str | None:",
        summary="Describe the change from old to new as a signed percentage string.",
        rules=(
            "The change is (new - old) / abs(old) * 100, computed exactly (the baseline's "
            "magnitude is used, so a rise from -200 to -100 is +50%).",
            f"Round it to {places} decimal place(s), exactly halfway cases away from zero "
            f"(half-up on the magnitude), without any floating-point error.",
            f"Format it with exactly {places} decimal place(s) and '.' as decimal point, "
            "prefixed with '+' when the rounded value is positive and '-' when negative, "
            f"with no sign when it rounds to zero, then append '%' (e.g. '+25.{'0' * places}%', "
            f"'{zero}').",
            f"When old is 0: return '{zero}' if new is also 0, otherwise None.",
        ),
        reference=reference,
        bad={
            "signed-baseline": signed_base,
            "float-format-rounding": float_format,
            "zero-baseline-unhandled": no_zero_check,
            "none-for-no-change-from-zero": none_for_zero,
        },
        cases=tuple(cases),
        # (0, 0) is the one input of its rule: shown, no hidden case would check it
        examples=((80, 100), (3, 2), (0, 5)),
        tags=("percentages", "rounding"),
    )


# --- check-digit --------------------------------------------------------------------------------


def _luhn(digits: str) -> str:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 == 0 else 1)
        total += value - 9 if value > 9 else value
    return str((10 - total % 10) % 10)


def _isbn10(digits: str) -> str:
    check = (11 - sum((10 - i) * int(c) for i, c in enumerate(digits)) % 11) % 11
    return "X" if check == 10 else str(check)


def _ean13(digits: str) -> str:
    total = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(digits))
    return str((10 - total % 10) % 10)


_CHECK_SOURCE = """
def FUNC(payload: str) -> str | None:
    digits = payload.replace(" ", "").replace("-", "")
    if GUARD or not all(c in "0123456789" for c in digits):
        return None
"""
_LUHN_SOURCE = (
    _CHECK_SOURCE.replace("GUARD", "not digits")
    + """
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 == 0 else 1)
        total += value - 9 if value > 9 else value
    return str((10 - total % 10) % 10)
"""
)
_ISBN10_SOURCE = (
    _CHECK_SOURCE.replace("GUARD", "len(digits) != 9")
    + """
    total = sum((10 - i) * int(c) for i, c in enumerate(digits))
    check = (11 - total % 11) % 11
    return "X" if check == 10 else str(check)
"""
)
_EAN13_SOURCE = (
    _CHECK_SOURCE.replace("GUARD", "len(digits) != 12")
    + """
    total = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(digits))
    return str((10 - total % 10) % 10)
"""
)

_SCHEMES = {
    "luhn": (
        ["luhn_check_digit", "luhn_digit", "compute_luhn"],
        _LUHN_SOURCE,
        _luhn,
        0,
        (
            "Use the Luhn algorithm. The payload is any number (at least one) of digits.",
            "Walk the payload from its rightmost digit leftwards: double the 1st, 3rd, 5th, ... "
            "digit counted from the right; if a doubled value exceeds 9, subtract 9.",
            "Sum all the (possibly doubled) digits; the check digit is (10 - sum % 10) % 10.",
        ),
        {
            "doubles-from-the-left": ("index % 2 == 0", "(len(digits) - index) % 2 == 1"),
            "missing-final-modulo": ("(10 - total % 10) % 10", "10 - total % 10"),
            "no-subtract-nine": ("value - 9 if value > 9 else value", "value"),
        },
    ),
    "isbn10": (
        ["isbn10_check_digit", "isbn10_check", "isbn_check_char"],
        _ISBN10_SOURCE,
        _isbn10,
        9,
        (
            "Use ISBN-10. The payload must be exactly 9 digits.",
            "Multiply the digits, left to right, by the weights 10, 9, 8, ..., 2 and sum.",
            "The check value is (11 - sum % 11) % 11; the value 10 is written as 'X', "
            "every other value as its single digit.",
        ),
        {
            "weights-reversed": ("(10 - i)", "(i + 2)"),
            "missing-final-modulo": ("(11 - total % 11) % 11", "11 - total % 11"),
            "ten-not-written-as-x": ('"X" if check == 10 else ', ""),
        },
    ),
    "ean13": (
        ["ean13_check_digit", "isbn13_check_digit", "gtin13_check"],
        _EAN13_SOURCE,
        _ean13,
        12,
        (
            "Use EAN-13 (also ISBN-13). The payload must be exactly 12 digits.",
            "Multiply the digits, left to right, alternately by 1 and 3 (the first digit by 1) "
            "and sum.",
            "The check digit is (10 - sum % 10) % 10.",
        ),
        {
            "weights-swapped": ("(3 if i % 2 else 1)", "(1 if i % 2 else 3)"),
            "missing-final-modulo": ("(10 - total % 10) % 10", "10 - total % 10"),
        },
    ),
}


def _check_digit(rng: random.Random) -> Problem:
    scheme = rng.choice(sorted(_SCHEMES))
    names, source, compute, length, scheme_rules, mistakes = _SCHEMES[scheme]
    function = rng.choice(names)
    reference = source.replace("FUNC", function)
    bad = {label: _swap(reference, old, new) for label, (old, new) in mistakes.items()}
    bad["separators-not-ignored"] = _swap(
        reference, 'payload.replace(" ", "").replace("-", "")', "payload"
    )

    def draw(size: int) -> str:
        return "".join(rng.choice("0123456789") for _ in range(size))

    sizes = [length] * 6 if length else [rng.randint(4, 15) for _ in range(6)]
    payloads = [draw(size) for size in sizes]
    if not length:
        payloads += [draw(6), draw(7), "0", "59"]
    for wanted in ("0", "X" if scheme == "isbn10" else "5"):
        candidate = draw(length or 8)
        while compute(candidate) != wanted:
            candidate = draw(length or 8)
        payloads.append(candidate)
    hyphenated = payloads[0][:3] + "-" + payloads[0][3:5] + " " + payloads[0][5:]
    cases: list[tuple[object, ...]] = [(p,) for p in payloads]
    spaced = payloads[1][:2] + " " + payloads[1][2:]
    cases += [(hyphenated,), (spaced,), ("",), ("12a4" + draw(max(length - 4, 0)),)]
    if length:
        cases += [(draw(length - 1),), (draw(length + 1),)]
    return Problem(
        function=function,
        signature=f"def {function}(payload: str) -> str | None:",
        summary="Compute the check character to append to a numeric payload.",
        rules=(
            *scheme_rules,
            "Spaces and hyphens in the payload are ignored before anything else.",
            "Return the check character as a one-character str; return None if the payload "
            "(after removing spaces and hyphens) is empty, has the wrong length, or contains "
            "anything other than the ASCII digits 0-9.",
        ),
        reference=reference,
        bad=bad,
        cases=tuple(cases),
        examples=((payloads[0],), (hyphenated,), ("",)),
        tags=("checksums", scheme),
    )


# --- days-between -------------------------------------------------------------------------------

_DAYS_MODES = {
    "signed": ("(b - a).days", "end minus start: negative when end is before start"),
    "absolute": ("abs((b - a).days)", "the absolute number of days between them"),
    "inclusive": (
        "abs((b - a).days) + 1",
        "the number of calendar days in the range, counting both ends (the same date gives 1)",
    ),
}

_CALENDAR_BAD = """
import re

def _leap(year):
    return LEAP

def _ordinal(y, m, d):
    lengths = [31, 29 if _leap(y) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    if not 1 <= m <= 12 or not 1 <= d <= LIMIT:
        return None
    return sum(366 if _leap(year) else 365 for year in range(1, y)) + sum(lengths[: m - 1]) + d

def _parse(text):
    m = re.fullmatch(r"([0-9]{4})-([0-9]{2})-([0-9]{2})", text)
    if m is None or int(m[1]) == 0:
        return None
    return _ordinal(int(m[1]), int(m[2]), int(m[3]))

def FUNC(start: str, end: str) -> int | None:
    a, b = _parse(start), _parse(end)
    if a is None or b is None:
        return None
    return RESULT
"""


def _days_between(rng: random.Random) -> Problem:
    function = rng.choice(["days_between", "day_difference", "count_days"])
    mode = rng.choice(sorted(_DAYS_MODES))
    result, meaning = _DAYS_MODES[mode]
    reference = f"""
import re
from datetime import date

def _parse(text):
    m = re.fullmatch(r"([0-9]{{4}})-([0-9]{{2}})-([0-9]{{2}})", text)
    if m is None:
        return None
    try:
        return date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return None

def {function}(start: str, end: str) -> int | None:
    a, b = _parse(start), _parse(end)
    if a is None or b is None:
        return None
    return {result}
"""
    calendar = _CALENDAR_BAD.replace("FUNC", function)
    calendar = calendar.replace("RESULT", result.replace(".days", ""))
    century = calendar.replace("LEAP", "year % 4 == 0").replace("LIMIT", "lengths[m - 1]")
    unchecked = calendar.replace(
        "LEAP", "year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)"
    ).replace("LIMIT", "31")
    if mode == "inclusive":
        off_by_one = _swap(reference, "abs((b - a).days) + 1", "abs((b - a).days)")
    else:
        off_by_one = _swap(reference, f"return {result}", f"return {result} + 1")
    cases: list[tuple[object, ...]] = [
        ("2024-01-01", "2024-12-31"),
        ("2023-03-01", "2023-02-28"),
        ("1899-12-31", "1900-03-01"),
        ("2000-02-28", "2000-03-01"),
        ("2100-02-28", "2100-03-01"),
        ("2023-02-29", "2023-03-01"),
        ("2024-04-30", "2023-04-31"),
        ("1900-02-29", "1900-03-01"),
        ("2024-1-5", "2024-01-06"),
        ("2024-05-05", "2024-05-05"),
    ]
    for _ in range(3):
        first = date(1850, 1, 1) + timedelta(days=rng.randint(0, 110_000))
        second = first + timedelta(days=rng.randint(-4000, 4000))
        cases.append((first.isoformat(), second.isoformat()))
    return Problem(
        function=function,
        signature=f"def {function}(start: str, end: str) -> int | None:",
        summary="Count the days between two dates written as YYYY-MM-DD.",
        rules=(
            "Each date must be exactly four digits, '-', two digits, '-', two digits "
            "(YYYY-MM-DD, ASCII digits) and name a real day of the proleptic Gregorian "
            "calendar, years 0001 to 9999; otherwise return None.",
            "Leap years are those divisible by 4, except years divisible by 100 that are not "
            "divisible by 400 (2000 is a leap year, 1900 and 2100 are not).",
            f"Return an int: {meaning}.",
        ),
        reference=reference,
        bad={
            "off-by-one": off_by_one,
            "missed-century-leap-rule": century,
            "no-day-of-month-check": unchecked,
        },
        cases=tuple(cases),
        examples=(("2024-01-01", "2024-03-01"), ("2023-02-29", "2023-03-01")),
        tags=("dates", mode),
    )


# --- allocate-money -----------------------------------------------------------------------------


def _allocate(rng: random.Random) -> Problem:
    function = rng.choice(["allocate", "split_by_weights", "allocate_amount"])
    latest = rng.random() < 0.5
    tie_key = "-i" if latest else "i"
    reference = f"""
def {function}(total: str, weights: list[int]) -> list[str] | None:
    if not weights or any(w < 0 for w in weights) or sum(weights) == 0:
        return None
    negative = total.startswith("-")
    whole, frac = total.lstrip("-").split(".")
    cents = int(whole) * 100 + int(frac)
    wsum = sum(weights)
    parts = [cents * w // wsum for w in weights]
    remainders = [cents * w % wsum for w in weights]
    left = cents - sum(parts)
    order = sorted(range(len(weights)), key=lambda i: (-remainders[i], {tie_key}))
    for i in order[:left]:
        parts[i] += 1
    out = []
    for p in parts:
        sign = "-" if negative and p else ""
        out.append(f"{{sign}}{{p // 100}}.{{p % 100:02d}}")
    return out
"""
    float_money = f"""
def {function}(total: str, weights: list[int]) -> list[str] | None:
    if not weights or any(w < 0 for w in weights) or sum(weights) == 0:
        return None
    amount = float(total)
    return [f"{{round(amount * w / sum(weights), 2):.2f}}" for w in weights]
"""
    first_parts = _swap(reference, f"(-remainders[i], {tie_key})", f"{tie_key}")
    float_cents = "cents = round(float(total) * 100)"
    signed_floor = _swap(
        _swap(reference, "cents = int(whole) * 100 + int(frac)", float_cents),
        'sign = "-" if negative and p else ""',
        'sign, p = ("-" if p < 0 else ""), abs(p)',
    )
    cases: list[tuple[object, ...]] = [
        ("100.00", [1, 1, 1]),
        ("1.00", [1, 2]),
        ("-0.10", [1, 1, 1]),
        ("-0.01", [1, 1]),
        ("10.00", [0, 1]),
        ("5.00", []),
        ("5.00", [0, 0]),
        ("5.00", [1, -1]),
        ("0.05", [1, 1, 1, 1, 1, 1, 1]),
        ("-7.00", [2, 3, 5]),
        ("0.00", [4, 1]),
        ("0.01", [1, 2, 1]),
    ]
    for _ in range(3):
        total = _cents_text(rng.choice([1, 1, -1]) * rng.randint(1, 500_000))
        cases.append((total, [rng.randint(0, 9) for _ in range(rng.randint(2, 5))] + [1]))
    ties = "the lowest index" if not latest else "the highest index"
    return Problem(
        function=function,
        signature=f"def {function}(total: str, weights: list[int]) -> list[str] | None:",
        summary="Split a money amount into parts proportional to integer weights, to the cent.",
        rules=(
            "total is a decimal string with an optional leading '-' and exactly two digits "
            "after '.', e.g. '100.00' or '-0.10'; work in whole cents, never floats.",
            "Allocate the magnitude C of total in cents: part i first gets "
            "floor(C * weights[i] / sum(weights)) cents.",
            "The cents still missing (C minus the sum of those parts) are handed out one each "
            "to the parts with the largest remainder (C * weights[i]) mod sum(weights); among "
            f"equal remainders, {ties} first. The parts then sum to C exactly.",
            "If total is negative, every part is negated (the magnitudes are allocated as above).",
            "Return one string per weight, in order: '-' for negative non-zero parts, the whole "
            "units without leading zeros (at least '0'), '.', then exactly two digits; a zero "
            "part is '0.00'.",
            "Return None if weights is empty, contains a negative number, or sums to 0.",
        ),
        reference=reference,
        bad={
            "float-money": float_money,
            "leftover-ignores-remainders": first_parts,
            "negative-total-floored": signed_floor,
        },
        cases=tuple(cases),
        examples=(("100.00", [1, 1, 1]), ("1.00", [1, 2]), ("-0.10", [1, 1, 1])),
        tags=("money", "rounding"),
    )


# --- compound-interest --------------------------------------------------------------------------

_PERIODS = {1: "once a year", 2: "twice a year", 4: "quarterly (4 times a year)", 12: "monthly"}


def _compound(rng: random.Random) -> Problem:
    function = rng.choice(["compound_balance", "future_value", "grow_deposit"])
    n = rng.choice(sorted(_PERIODS))
    reference = f"""
from decimal import ROUND_HALF_UP, Decimal

def {function}(principal: str, annual_rate: str, years: int) -> str | None:
    if years < 0:
        return None
    balance = Decimal(principal)
    rate = Decimal(annual_rate)
    for _ in range(years * {n}):
        interest = (balance * rate / {100 * n}).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        balance += interest
    return f"{{balance:.2f}}"
"""
    bankers = _swap(reference, "rounding=ROUND_HALF_UP", "rounding=ROUND_HALF_EVEN")
    bankers = _swap(bankers, "import ROUND_HALF_UP", "import ROUND_HALF_EVEN")
    float_money = f"""
def {function}(principal: str, annual_rate: str, years: int) -> str | None:
    if years < 0:
        return None
    balance = float(principal)
    for _ in range(years * {n}):
        balance += round(balance * float(annual_rate) / {100 * n}, 2)
    return f"{{balance:.2f}}"
"""
    at_end = f"""
from decimal import ROUND_HALF_UP, Decimal

def {function}(principal: str, annual_rate: str, years: int) -> str | None:
    if years < 0:
        return None
    factor = 1 + Decimal(annual_rate) / {100 * n}
    balance = Decimal(principal) * factor ** (years * {n})
    return f"{{balance.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP):.2f}}"
"""
    cases: list[tuple[object, ...]] = [
        ("100.50", str(n), 1),
        ("0.50", str(n), 1),
        ("12.50", str(n), 1),
        ("0.10", str(4 * n), 10),
        ("1000.00", "5.00", 3),
        ("2500.00", "3.75", 0),
        ("2500.00", "3.75", -1),
        ("0.00", "7.00", 5),
        ("10.10", f"{n * 5 / 10:.1f}", 2),
        ("999.99", "0", 4),
    ]
    for _ in range(4):
        bp = rng.randint(1, 36) * 25
        cases.append(
            (_cents_text(rng.randint(100, 10_000_000)), _cents_text(bp), rng.randint(1, 30))
        )
    return Problem(
        function=function,
        signature=(f"def {function}(principal: str, annual_rate: str, years: int) -> str | None:"),
        summary="Compute a savings balance after compound interest credited to the cent.",
        rules=(
            "principal is a non-negative decimal string with two decimals ('1000.00'); "
            "annual_rate is a non-negative percentage per year as a decimal string "
            "('3.75' means 3.75%).",
            f"Interest is credited {_PERIODS[n]}, so there are years * {n} periods.",
            f"In each period, interest = balance * annual_rate / 100 / {n}, rounded to the cent "
            "with halves rounded up (0.005 -> 0.01, 1.005 -> 1.01), is added to the balance. "
            "Round every period, not only at the end; use exact decimal arithmetic.",
            "Return the final balance with exactly two decimals and no grouping (e.g. '1234.50'); "
            "years = 0 returns the principal unchanged.",
            "Return None when years is negative.",
        ),
        reference=reference,
        cases=tuple(cases),
        bad={"bankers-rounding": bankers, "float-money": float_money, "rounds-only-at-end": at_end},
        examples=(("1000.00", "5.00", 3), ("100.50", str(n), 1)),
        tags=("money", "rounding", "interest"),
    )


TEMPLATES: tuple[Template, ...] = (
    Template(id="round-divide", category="arithmetic", difficulty="easy", build=_round_divide),
    Template(id="percent-change", category="arithmetic", difficulty="easy", build=_percent_change),
    Template(id="check-digit", category="arithmetic", difficulty="medium", build=_check_digit),
    Template(id="days-between", category="arithmetic", difficulty="medium", build=_days_between),
    Template(id="allocate-money", category="arithmetic", difficulty="hard", build=_allocate),
    Template(id="compound-interest", category="arithmetic", difficulty="hard", build=_compound),
)
