"""Templates for locale conventions: numbers, dates, money and ordinals written the local way.

Every convention is spelled out in the rules and implemented explicitly in the reference: nothing
here depends on the ``locale`` module or on the settings of the machine that runs it.
"""

from __future__ import annotations

import random
import re
from datetime import date, timedelta

from assay.families.code.templates._model import Problem, Template

NBSP, NNBSP, RSQUO = "\u00a0", "\u202f", "\u2019"


def _swap(source: str, old: str, new: str) -> str:
    """``source`` with ``old`` replaced by ``new``; fails loudly if ``old`` is not there."""
    if old not in source:
        raise ValueError(f"template bug: {old!r} not found in source")
    return source.replace(old, new)


def _group(digits: str, separator: str, indian: bool) -> str:
    size, parts = 3, list[str]()
    while len(digits) > size:
        parts.insert(0, digits[-size:])
        digits = digits[:-size]
        size = 2 if indian else 3
    return separator.join([digits, *parts])


_GROUP_SOURCE = """
def _group(digits):
    size, parts = 3, []
    while len(digits) > size:
        parts.insert(0, digits[-size:])
        digits = digits[:-size]
        size = 2 if INDIAN else 3
    return GROUP.join([digits, *parts])
"""

# locale: (group separator when formatting, decimal separator)
_NUMBERS = {
    "de-DE": (".", ","),
    "it-IT": (".", ","),
    "pt-BR": (".", ","),
    "en-US": (",", "."),
    "en-IN": (",", "."),
    "fr-FR": (NNBSP, ","),
    "de-CH": (RSQUO, "."),
}
_PARSE_GROUPS = {"fr-FR": " " + NBSP + NNBSP, "de-CH": "'" + RSQUO}  # accepted when parsing
_SPECIAL = {
    " ": "U+0020 SPACE",
    "'": "U+0027 APOSTROPHE",
    NBSP: "U+00A0 NO-BREAK SPACE",
    NNBSP: "U+202F NARROW NO-BREAK SPACE",
    RSQUO: "U+2019 RIGHT SINGLE QUOTATION MARK",
    "\u00a3": "U+00A3 POUND SIGN",
    "\u20b9": "U+20B9 INDIAN RUPEE SIGN",
    "\uffe5": "U+FFE5 FULLWIDTH YEN SIGN",
    "\u20ac": "U+20AC EURO SIGN",
}


def _separators(group: str, decimal: str) -> str:
    """How the rules name a locale's separators; ``group`` may offer several characters."""
    names = [_SPECIAL.get(char, f"'{char}'") for char in group]
    either = names[0] if len(names) == 1 else "any one of " + ", ".join(names)
    return f"the group separator is {either} and the decimal separator is '{decimal}'"


_WESTERN = "in threes from the right: 1 to 3 digits, then one or more groups of exactly 3 digits"
_INDIAN = (
    "the Indian way: the last 3 digits form a group and the digits before them are grouped in "
    "twos: 1 or 2 digits, then any number of 2-digit groups, then the final 3-digit group "
    "('12,34,567' and '1,234' are valid, '123,456' is not)"
)


def _number_text(rng: random.Random, group: str, decimal: str, indian: bool) -> str:
    whole = str(rng.randint(0, 10 ** rng.randint(1, 10)))
    fraction = "".join(rng.choice("0123456789") for _ in range(rng.choice([0, 1, 2, 2, 3])))
    sign = "-" if rng.random() < 0.3 else ""
    return sign + _group(whole, group, indian) + (decimal + fraction if fraction else "")


# --- parse-number -------------------------------------------------------------------------------


def _parse_number(rng: random.Random) -> Problem:
    locale = rng.choice(sorted(_NUMBERS))
    function = rng.choice(["parse_number", "parse_localized_number", "read_amount"])
    group, decimal = _NUMBERS[locale]
    accepted = _PARSE_GROUPS.get(locale, group)
    indian = locale == "en-IN"

    def pattern(chars: str, indian_groups: bool) -> str:
        g = "[" + re.escape(chars) + "]"
        grouped = (
            f"[0-9]{{1,2}}(?:{g}[0-9]{{2}})*{g}[0-9]{{3}}"
            if indian_groups
            else (f"[0-9]{{1,3}}(?:{g}[0-9]{{3}})+")
        )
        return f"(-?)([0-9]+|{grouped})(?:{re.escape(decimal)}([0-9]+))?"

    reference = f"""
import re

PATTERN = re.compile({pattern(accepted, indian)!r})

def {function}(text: str) -> float | None:
    match = PATTERN.fullmatch(text.strip())
    if match is None:
        return None
    sign, whole, fraction = match.groups()
    digits = "".join(c for c in whole if c in "0123456789")
    value = float(digits + "." + (fraction or "0"))
    return -value if sign else value
"""
    other_group, other_decimal = (",", ".") if decimal == "," else (".", ",")

    def naive(strip: str, point: str) -> str:  # float() after deleting ``strip`` characters
        deletions = "".join(f".replace({char!r}, '')" for char in strip)
        return f"""
def {function}(text: str) -> float | None:
    try:
        return float(text.strip(){deletions}.replace({point!r}, "."))
    except ValueError:
        return None
"""

    label = "assumes-dot-decimal" if decimal == "," else "assumes-comma-decimal"
    bad = {label: naive(other_group, other_decimal)}
    bad["no-grouping-validation"] = naive(accepted, decimal)
    if locale in _PARSE_GROUPS:
        bad[f"only-{'ascii-space' if locale == 'fr-FR' else 'ascii-apostrophe'}"] = _swap(
            reference, repr(pattern(accepted, indian)), repr(pattern(accepted[0], indian))
        )
    elif indian:
        bad["western-grouping"] = _swap(
            reference, repr(pattern(accepted, True)), repr(pattern(accepted, False))
        )
    else:
        bad["group-separator-rejected"] = naive("", decimal)
    separators = list(accepted)
    cases: list[tuple[object, ...]] = [
        (_number_text(rng, rng.choice(separators), decimal, indian),) for _ in range(4)
    ]
    cases += [(_group("1234567", sep, indian) + decimal + "5",) for sep in separators]
    big = "12" + group + "34" + group + "567" if indian else "1" + group + "234" + group + "567"
    cases += [
        ("1234" + decimal + "5",),
        ("0" + decimal + "25",),
        ("-" + big + decimal + "75",),
        ("  42 ",),
        ("123" + group + "456" if indian else "12" + group + "34" + decimal + "5",),
        ("12" + decimal,),
        (decimal + "5",),
        ("1e5",),
        ("1" + other_group + "234" + other_decimal + "56",),
    ]
    return Problem(
        function=function,
        signature=f"def {function}(text: str) -> float | None:",
        summary=f"Parse a number written the {locale} way into a float.",
        rules=(
            f"In {locale} numbers, {_separators(accepted, decimal)}.",
            "The text is: an optional '-', the integer part, then optionally the decimal "
            "separator followed by one or more digits. Only ASCII digits 0-9 count as digits.",
            "The integer part is either plain digits with no separators ('1234567') or digits "
            f"grouped {_INDIAN if indian else _WESTERN}, each group after the first preceded by "
            "one group separator. Any other use of group separators makes the text invalid.",
            "Leading and trailing whitespace is ignored. Anything else (an exponent such as "
            "'1e5', a decimal separator without digits on both sides, the other locale's "
            "separators) makes the text invalid.",
            "Return the value as a float, or None if the text is invalid.",
        ),
        reference=reference,
        bad=bad,
        cases=tuple(cases),
        examples=(cases[-9], cases[-7], cases[-4]),
        locale=locale,
        tags=("numbers", "parsing"),
    )


# --- format-number ------------------------------------------------------------------------------


def _format_number(rng: random.Random) -> Problem:
    locale = rng.choice(sorted(_NUMBERS))
    function = rng.choice(["format_number", "localize_number", "format_decimal"])
    group, decimal = _NUMBERS[locale]
    indian = locale == "en-IN"
    header = f"GROUP = {group!r}\nDECIMAL = {decimal!r}\nINDIAN = {indian!r}\n"
    reference = f"""
from decimal import ROUND_HALF_UP, Decimal

{header}{_GROUP_SOURCE}
def {function}(value: str, decimals: int) -> str:
    rounded = Decimal(value).quantize(Decimal(10) ** -decimals, rounding=ROUND_HALF_UP)
    whole, _, fraction = f"{{abs(rounded):f}}".partition(".")
    text = _group(whole) + (DECIMAL + fraction if decimals else "")
    return "-" + text if rounded < 0 else text
"""
    float_rounding = f"""
{header}
def {function}(value: str, decimals: int) -> str:
    text = f"{{float(value):,.{{decimals}}f}}"
    return text.replace(",", "_").replace(".", DECIMAL).replace("_", GROUP)
"""
    bad = {
        "bankers-rounding": reference.replace("ROUND_HALF_UP", "ROUND_HALF_EVEN"),
        "negative-zero-kept": _swap(reference, "if rounded < 0", 'if value.startswith("-")'),
        "float-rounding": float_rounding,
    }
    if indian:
        bad["western-grouping"] = _swap(reference, "INDIAN = True", "INDIAN = False")
    elif locale in _PARSE_GROUPS:
        label = "ascii-space-separator" if locale == "fr-FR" else "ascii-apostrophe-separator"
        bad[label] = _swap(reference, f"GROUP = {group!r}", f"GROUP = {_PARSE_GROUPS[locale][0]!r}")
    cases: list[tuple[object, ...]] = [
        ("2.125", 2),
        ("2.5", 0),
        ("-2.5", 0),
        ("1.005", 2),
        ("-0.001", 2),
        ("-0.4", 0),
        ("1234567.891", 2),
        ("999.995", 2),
        ("9007199254740993", 0),
        ("0", 3),
        ("-98765.4321", 1),
        ("123456789012", 0),
    ]
    for _ in range(3):
        cases.append((_number_text(rng, "", ".", False), rng.randint(0, 3)))
    return Problem(
        function=function,
        signature=f"def {function}(value: str, decimals: int) -> str:",
        summary=f"Format a decimal number the {locale} way with a fixed number of decimals.",
        rules=(
            "value is a plain decimal string: an optional '-', ASCII digits, and optionally "
            "'.' followed by more digits ('-1234567.125'); decimals is 0, 1, 2 or 3.",
            "Round value to `decimals` places with halves rounded away from zero ('2.125' -> "
            "2.13, '-2.5' with 0 decimals -> -3), exactly: do not go through float.",
            f"In {locale} numbers, {_separators(group, decimal)}.",
            f"Group the digits of the integer part {_INDIAN if indian else _WESTERN}, whenever "
            "it has more than 3 digits ('1234' is grouped too).",
            "With decimals = 0 write no decimal separator; otherwise write the decimal "
            "separator and exactly `decimals` digits.",
            "A negative result starts with '-' (U+002D); a result that rounds to zero has no sign.",
        ),
        reference=reference,
        bad=bad,
        cases=tuple(cases),
        examples=(("1234567.891", 2), ("-2.5", 0)),
        locale=locale,
        tags=("numbers", "formatting", "rounding"),
    )


# --- parse-date ---------------------------------------------------------------------------------

_DATES = {  # locale: (field order, separator)
    "de-DE": ("DMY", "."),
    "pl-PL": ("DMY", "."),
    "en-GB": ("DMY", "/"),
    "fr-FR": ("DMY", "/"),
    "es-ES": ("DMY", "/"),
    "nl-NL": ("DMY", "-"),
    "en-US": ("MDY", "/"),
}

_DATE_CHECK_BAD = """
    lengths = [31, 29 if LEAP else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    if year == 0 or not 1 <= month <= 12 or not 1 <= day <= LIMIT:
        return None
    return f"{year:04d}-{month:02d}-{day:02d}"
"""


def _parse_date(rng: random.Random) -> Problem:
    locale = rng.choice(sorted(_DATES))
    function = rng.choice(["parse_date", "to_iso_date", "normalize_date"])
    order, sep = _DATES[locale]
    field = "([0-9]{1,2})"
    regex = f"{field}{re.escape(sep)}{field}{re.escape(sep)}([0-9]{{4}})"
    reference = f"""
import re
from datetime import date

ORDER = {order!r}
PATTERN = re.compile({regex!r})

def {function}(text: str) -> str | None:
    match = PATTERN.fullmatch(text)
    if match is None:
        return None
    first, second, year = int(match[1]), int(match[2]), int(match[3])
    day, month = (first, second) if ORDER == "DMY" else (second, first)
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None
"""
    head, _, _ = reference.partition("    try:")
    leap = "year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)"
    other = "MDY" if order == "DMY" else "DMY"
    bad = {
        "us-month-day-order" if order == "DMY" else "day-month-order": _swap(
            reference, f"ORDER = {order!r}", f"ORDER = {other!r}"
        ),
        "missed-century-leap-rule": head
        + _DATE_CHECK_BAD.replace("LEAP", "year % 4 == 0").replace("LIMIT", "lengths[month - 1]"),
        "no-day-of-month-check": head
        + _DATE_CHECK_BAD.replace("LEAP", leap).replace("LIMIT", "31"),
        "requires-leading-zeros": _swap(reference, "{1,2}", "{2}"),
    }

    def write(d: int, m: int, y: int, pad: bool = True) -> str:
        a, b = (d, m) if order == "DMY" else (m, d)
        return f"{a:02d}{sep}{b:02d}{sep}{y:04d}" if pad else f"{a}{sep}{b}{sep}{y}"

    day = rng.randint(1, 9)
    month = rng.choice([m for m in range(1, 10) if m != day])
    cases: list[tuple[object, ...]] = [
        (write(rng.randint(13, 28), rng.randint(1, 12), rng.randint(1950, 2049)),),
        (write(day, month, rng.randint(1990, 2030)),),
        (write(day, month, 2024, pad=False),),
        (write(29, 2, 2024),),
        (write(29, 2, 1900),),
        (write(29, 2, 2000),),
        (write(31, 4, 2023),),
        (f"{2024:04d}-{month:02d}-{day:02d}",),
        (write(day, month, 2024)[:-4] + "24",),
        (write(1, 1, 2024).replace("01", "00", 1),),
    ]
    for _ in range(3):
        when = date(1900, 1, 1) + timedelta(days=rng.randint(0, 60_000))
        cases.append((write(when.day, when.month, when.year, pad=rng.random() < 0.7),))
    layout = sep.join(["DD", "MM", "YYYY"] if order == "DMY" else ["MM", "DD", "YYYY"])
    return Problem(
        function=function,
        signature=f"def {function}(text: str) -> str | None:",
        summary=f"Convert a date written the {locale} way ({layout}) to ISO 8601.",
        rules=(
            f"In {locale} a date is written {layout}: "
            + ("day, month, year" if order == "DMY" else "month, day, year")
            + f", separated by '{sep}'.",
            "Day and month have one or two ASCII digits (a leading zero is optional); the year "
            "has exactly four. Nothing else is allowed, not even surrounding spaces.",
            "The date must exist in the Gregorian calendar: leap years are divisible by 4, "
            "except years divisible by 100 but not by 400; there is no year 0000.",
            "Return the date as 'YYYY-MM-DD' with zero-padded fields, or None if the text is "
            "not a valid date in this form.",
        ),
        reference=reference,
        bad=bad,
        cases=tuple(cases),
        examples=(cases[0], cases[3], cases[6]),
        locale=locale,
        tags=("dates", "parsing"),
    )


# --- format-currency ----------------------------------------------------------------------------

# locale: (currency, group, decimal, minor digits, positive layout, negative layout);
# '#' in a layout stands for the formatted magnitude
_MONEY = {
    "en-US": ("USD", ",", ".", 2, "$#", "-$#"),
    "en-GB": ("GBP", ",", ".", 2, "\u00a3#", "-\u00a3#"),
    "en-IN": ("INR", ",", ".", 2, "\u20b9#", "-\u20b9#"),
    "ja-JP": ("JPY", ",", ".", 0, "\uffe5#", "-\uffe5#"),
    "de-DE": ("EUR", ".", ",", 2, "#" + NBSP + "\u20ac", "-#" + NBSP + "\u20ac"),
    "fr-FR": ("EUR", NNBSP, ",", 2, "#" + NBSP + "\u20ac", "-#" + NBSP + "\u20ac"),
    "nl-NL": ("EUR", ".", ",", 2, "\u20ac" + NBSP + "#", "\u20ac" + NBSP + "-#"),
    "de-CH": ("CHF", RSQUO, ".", 2, "CHF" + NBSP + "#", "CHF-#"),
}


def _spell(text: str) -> str:
    """A layout with '#' as <number> and every non-ASCII character named by its code point."""
    out = text.replace("#", "<number>")
    for char, name in _SPECIAL.items():
        if ord(char) > 127:
            out = out.replace(char, f"<{name}>")
    return f"'{out}'"


def _format_currency(rng: random.Random) -> Problem:
    locale = rng.choice(sorted(_MONEY))
    function = rng.choice(["format_money", "format_currency", "format_amount"])
    currency, group, decimal, minor, positive, negative = _MONEY[locale]
    indian = locale == "en-IN"

    def source(group: str, decimal: str, minor: int, layouts: tuple[str, str], indian: bool) -> str:
        return f"""
GROUP = {group!r}
DECIMAL = {decimal!r}
MINOR = {minor!r}
INDIAN = {indian!r}
POSITIVE = {layouts[0]!r}
NEGATIVE = {layouts[1]!r}
{_GROUP_SOURCE}
def {function}(amount_minor: int) -> str:
    whole, fraction = divmod(abs(amount_minor), 10 ** MINOR)
    number = _group(str(whole))
    if MINOR:
        number += DECIMAL + str(fraction).zfill(MINOR)
    return (NEGATIVE if amount_minor < 0 else POSITIVE).replace("#", number)
"""

    layouts = (positive, negative)
    reference = source(group, decimal, minor, layouts, indian)
    exact = reference[reference.index("    whole, fraction") : reference.index("    return (")]
    float_money = _swap(
        reference,
        exact,
        (
            '    text = f"{abs(amount_minor) / 10 ** MINOR:,.{MINOR}f}"\n'
            '    number = text.replace(",", "_").replace(".", DECIMAL).replace("_", GROUP)\n'
        ),
    )
    bad = {"float-money": float_money}
    if NBSP in positive or NNBSP in group:
        ascii_layouts = (positive.replace(NBSP, " "), negative.replace(NBSP, " "))
        ascii_group = group.replace(NNBSP, " ")
        bad["ascii-space"] = source(ascii_group, decimal, minor, ascii_layouts, indian)
    if indian:
        bad["western-grouping"] = source(group, decimal, minor, layouts, False)
    if locale == "ja-JP":
        bad["yen-with-two-decimals"] = source(group, decimal, 2, layouts, indian)
    if positive.startswith("#"):
        bad["separators-swapped"] = source(decimal, group, minor, layouts, indian)
    elif negative.startswith("-"):
        moved = (positive, positive.replace("#", "-#"))
        bad["minus-after-symbol"] = source(group, decimal, minor, moved, indian)
    else:
        moved = (positive, "-" + positive)
        bad["minus-before-symbol"] = source(group, decimal, minor, moved, indian)
    cases: list[tuple[object, ...]] = [
        (0,),
        (5,),
        (-5,),
        (100,),
        (123456,),
        (-123456,),
        (99999999,),
        (-98765432101,),
        (2**53 + 1,),
        (100000,),
    ]
    for _ in range(3):
        cases.append((rng.choice([1, -1]) * rng.randint(1, 10 ** rng.randint(3, 12)),))
    unit = "yen (JPY has no minor unit)" if minor == 0 else f"hundredths of one {currency}"
    digits = "no decimal part" if minor == 0 else "the decimal separator and exactly 2 digits"
    return Problem(
        function=function,
        signature=f"def {function}(amount_minor: int) -> str:",
        summary=f"Format an amount of {currency} the {locale} way, with its currency symbol.",
        rules=(
            f"amount_minor is an integer number of {unit}; it may be negative or very large, "
            "so use integer arithmetic, not floats.",
            f"<number> is the magnitude: the integer part grouped "
            f"{_INDIAN if indian else _WESTERN} (always, once there are more than 3 digits), "
            f"then {digits}.",
            f"Group separator: {_spell(group)}; decimal separator: {_spell(decimal)}.",
            f"Layout of a zero or positive amount: {_spell(positive)}; of a negative amount: "
            f"{_spell(negative)}. Every <...> other than <number> stands for one single "
            "character; everything else is literal, and nothing else is added.",
        ),
        reference=reference,
        bad=bad,
        cases=tuple(cases),
        examples=((123456,), (-123456,), (5,)),
        locale=locale,
        tags=("money", "formatting"),
    )


# --- ordinal ------------------------------------------------------------------------------------

_ORDINAL_EN = """
def FUNC(n: int) -> str | None:
    if n < 1:
        return None
    if n % 100 in (11, 12, 13):
        return f"{n}th"
    return f"{n}" + {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
"""

_ORDINAL_FR = """
def FUNC(n: int) -> str | None:
    if n < 1:
        return None
    if n == 1:
        return FIRST
    return f"{n}e"
"""


def _ordinal(rng: random.Random) -> Problem:
    locale = rng.choice(["en-US", "en-GB", "fr-FR", "fr-CA"])
    function = rng.choice(["ordinal", "ordinal_suffix", "to_ordinal"])
    if locale.startswith("en"):
        reference = _ORDINAL_EN.replace("FUNC", function)
        bad = {
            "teens-not-special": _swap(reference, "if n % 100 in (11, 12, 13):", "if False:"),
            "only-11-to-13-special": _swap(reference, "n % 100 in", "n in"),
        }
        rules: tuple[str, ...] = (
            "Write n in ASCII digits (no separators) followed by an English suffix.",
            "The suffix is 'th' when n % 100 is 11, 12 or 13 ('11th', '112th'); otherwise it is "
            "'st' when n ends in 1, 'nd' when it ends in 2, 'rd' when it ends in 3, and 'th' "
            "for every other last digit ('21st', '102nd', '40th').",
        )
    else:
        feminine = rng.random() < 0.5
        first = "1re" if feminine else "1er"
        reference = _ORDINAL_FR.replace("FUNC", function).replace("FIRST", repr(first))
        bad = {
            "eme-suffix": _swap(reference, 'f"{n}e"', 'f"{n}\u00e8me"'),
            "er-for-every-final-one": _swap(
                reference,
                f"if n == 1:\n        return {first!r}",
                f'if n % 10 == 1:\n        return f"{{n}}{first[1:]}"',
            ),
        }
        if feminine:
            bad["masculine-first"] = _swap(reference, "'1re'", "'1er'")
        gender = "feminine" if feminine else "masculine"
        rules = (
            f"Use the French abbreviated ordinal for a {gender} noun, written in ASCII digits "
            "(no separators) and lowercase letters, on one line (no superscript).",
            f"1 is written '{first}'; every other n is n followed by 'e' ('2e', '21e', '101e'; "
            "never 'ème' or 'eme').",
        )
    bad["zero-accepted"] = _swap(reference, "n < 1", "n < 0")
    cases: list[tuple[object, ...]] = [
        (n,) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112, 113, 1011, 0, -3)
    ]
    cases += [(rng.randint(24, 10**6),) for _ in range(2)]
    # drawn too, so that two tasks of one locale's rules share few enough cases to be told apart
    # from copies: a teen ending at scale, a 1, 2 or 3 ending, a large number
    cases += [
        (rng.randint(2, 9999) * 100 + rng.choice((11, 12, 13)),),
        (rng.randint(3, 99999) * 10 + rng.choice((1, 2, 3)),),
        (rng.randint(10**6, 10**9),),
    ]
    return Problem(
        function=function,
        signature=f"def {function}(n: int) -> str | None:",
        summary=f"Write a positive integer as an abbreviated ordinal number in {locale}.",
        rules=(*rules, "Return None when n is less than 1."),
        reference=reference,
        bad=bad,
        cases=tuple(cases),
        examples=((2,), (21,), (104,)),
        locale=locale,
        tags=("ordinals", "formatting"),
    )


# --- long-date ----------------------------------------------------------------------------------

_EN_NAMES = (
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday",
    "January February March April May June July August September October November December",
)
# locale: (weekdays Monday first, months January first, layout, how day 1 is written)
_LONG_DATES = {
    "en-US": (*_EN_NAMES, "{weekday}, {month} {day}, {year}", "1"),
    "en-GB": (*_EN_NAMES, "{weekday} {day} {month} {year}", "1"),
    "de-DE": (
        "Montag Dienstag Mittwoch Donnerstag Freitag Samstag Sonntag",
        "Januar Februar M\u00e4rz April Mai Juni Juli August September Oktober November Dezember",
        "{weekday}, {day}. {month} {year}",
        "1",
    ),
    "fr-FR": (
        "lundi mardi mercredi jeudi vendredi samedi dimanche",
        "janvier f\u00e9vrier mars avril mai juin juillet ao\u00fbt septembre octobre novembre "
        "d\u00e9cembre",
        "{weekday} {day} {month} {year}",
        "1er",
    ),
    "es-ES": (
        "lunes martes mi\u00e9rcoles jueves viernes s\u00e1bado domingo",
        "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
        "{weekday}, {day} de {month} de {year}",
        "1",
    ),
    "pt-BR": (
        "segunda-feira ter\u00e7a-feira quarta-feira quinta-feira sexta-feira s\u00e1bado domingo",
        "janeiro fevereiro mar\u00e7o abril maio junho julho agosto setembro outubro novembro "
        "dezembro",
        "{weekday}, {day} de {month} de {year}",
        "1\u00ba",
    ),
}


def _long_date(rng: random.Random) -> Problem:
    locale = rng.choice(sorted(_LONG_DATES))
    function = rng.choice(["format_long_date", "long_date", "spell_date"])
    weekdays, months, layout, first = _LONG_DATES[locale]
    reference = f"""
import re
from datetime import date

WEEKDAYS = {weekdays.split()!r}
MONTHS = {months.split()!r}
FIRST = {first!r}

def {function}(iso: str) -> str | None:
    match = re.fullmatch(r"([0-9]{{4}})-([0-9]{{2}})-([0-9]{{2}})", iso)
    if match is None:
        return None
    try:
        d = date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None
    day = FIRST if d.day == 1 else str(d.day)
    return {layout!r}.format(
        weekday=WEEKDAYS[d.weekday()], day=day, month=MONTHS[d.month - 1], year=d.year
    )
"""
    bad = {
        "sunday-first-weekday-index": _swap(reference, "d.weekday()]", "d.isoweekday() % 7]"),
        "zero-padded-day": _swap(reference, "else str(d.day)", 'else f"{d.day:02d}"'),
    }
    if first != "1":
        bad["first-of-month-not-ordinal"] = _swap(reference, f"FIRST = {first!r}", "FIRST = '1'")
    else:
        bad["no-date-validation"] = _swap(
            reference,
            "except ValueError:\n        return None",
            "except ValueError:\n        d = date(int(match[1]), int(match[2]), 28)",
        )
    start = date(1800, 1, 1)
    picks = [start + timedelta(days=rng.randint(0, 160_000)) for _ in range(5)]
    picks[0] = picks[0].replace(day=1)
    picks[1] = picks[1].replace(day=rng.randint(2, 9))
    cases: list[tuple[object, ...]] = [(d.isoformat(),) for d in picks]
    cases += [
        ("2000-02-29",),
        ("2023-02-29",),
        ("1900-02-29",),
        ("2024-13-01",),
        ("2024-3-05",),
        ("2025-03-01",),
        ("2024-12-25",),
    ]
    day_one = "" if first == "1" else f" Day 1 of a month is written '{first}'."
    return Problem(
        function=function,
        signature=f"def {function}(iso: str) -> str | None:",
        summary=f"Write an ISO date (YYYY-MM-DD) as a long {locale} date with the weekday.",
        rules=(
            "iso must be exactly four digits, '-', two digits, '-', two digits (ASCII) naming a "
            "real date of the proleptic Gregorian calendar (leap years: divisible by 4, except "
            "centuries not divisible by 400); otherwise return None.",
            f"Layout: '{layout}', with nothing added.",
            f"Weekday names, Monday to Sunday: {', '.join(weekdays.split())}.",
            f"Month names, January to December: {', '.join(months.split())}.",
            "Write names exactly as listed (same capitalisation and accents). The day of the "
            f"month and the year are plain numbers without leading zeros.{day_one}",
        ),
        reference=reference,
        bad=bad,
        cases=tuple(cases),
        examples=(("2024-12-25",), ("2025-03-01",)),
        locale=locale,
        tags=("dates", "formatting"),
    )


TEMPLATES: tuple[Template, ...] = (
    Template(id="parse-locale-number", category="locale", difficulty="medium", build=_parse_number),
    Template(
        id="format-locale-number", category="locale", difficulty="medium", build=_format_number
    ),
    Template(id="parse-locale-date", category="locale", difficulty="easy", build=_parse_date),
    Template(id="format-currency", category="locale", difficulty="hard", build=_format_currency),
    Template(id="ordinal-number", category="locale", difficulty="easy", build=_ordinal),
    Template(id="long-date", category="locale", difficulty="hard", build=_long_date),
)
