"""Templates for parsing text into values: durations, key-value lines, versions, CSV rows."""

from __future__ import annotations

import random
from urllib.parse import quote

from assay.families.code.templates._model import Problem, Template

_UNITS = {"h": 3600, "m": 60, "s": 1}


def _duration(rng: random.Random) -> Problem:
    function = rng.choice(["parse_duration", "duration_to_seconds", "to_seconds"])
    reference = f"""
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
"""
    ignores_case = reference.replace("text = text.strip().lower()", "text = text.strip()")
    minutes_as_hours = reference.replace('"m": 60', '"m": 3600')
    never_raises = reference.replace('raise ValueError("empty duration")', "return 0").replace(
        'raise ValueError(f"bad duration: {text!r}")', "return total"
    )
    wrong_error = reference.replace("ValueError", "KeyError")
    malformed = ["h", "10", "5x", "1h30", "m5", "1.5h", "-3s", "1h 30"]
    cases: list[tuple[object, ...]] = [
        ("",),
        *((text,) for text in rng.sample(malformed, 3)),
        ("1h30m",),
        ("45s",),
        ("2H",),
        ("  10m 5s ",),
        ("0s",),
        ("1h1m1s",),
        ("90m",),
        ("3M",),
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
        bad={
            "case-sensitive-units": ignores_case,
            "minutes-as-hours": minutes_as_hours,
            "never-raises": never_raises,
            "raises-key-error": wrong_error,
        },
        cases=tuple(cases),
        examples=(("1h30m",), ("45s",)),
        tags=("durations",),
    )


def _key_values(rng: random.Random) -> Problem:
    function = rng.choice(["parse_config", "parse_settings", "read_key_values"])
    sep = rng.choice(["=", ":"])
    comment = rng.choice(["#", ";"])
    reference = f"""
def {function}(text: str) -> dict[str, str]:
    result: dict[str, str] = {{}}
    for raw in text.split("\\n"):
        line = raw.strip()
        if not line or line.startswith({comment!r}):
            continue
        key, found, value = line.partition({sep!r})
        key = key.strip()
        if not found or not key:
            continue
        value = value.strip()
        if value.startswith('"') and '"' in value[1:]:
            value = value[1:value.index('"', 1)]
        else:
            value = value.split({comment!r}, 1)[0].strip()
        result[key] = value
    return result
"""
    last_separator = reference.replace(".partition(", ".rpartition(")
    comment_first = reference.replace(
        "        value = value.strip()\n",
        f"        value = value.split({comment!r}, 1)[0].strip()\n",
    )
    keeps_quotes = reference.replace("value.startswith('\"') and", "False and")
    first_wins = reference.replace("result[key] = value", "result.setdefault(key, value)")
    no_comments = reference.replace(f"if not line or line.startswith({comment!r}):", "if not line:")
    s, c = sep, comment
    cases: list[tuple[object, ...]] = [
        (f"host {s} example.org\nport{s}8080\n",),
        (f"{c} settings\n\nname {s} demo   {c} inline note\n  {c} indented comment\n",),
        (f'motd {s} "hello {c} world"  {c} real comment\nempty {s}\n',),
        (f"url {s} http://h/?a=1\ntime {s} 12:30\n",),
        (f'title {s} "  padded  "\nquote {s} "unclosed {c} tail\n',),
        (f"mode {s} fast\nmode {s} safe\nnot a pair\n {s} orphan\n",),
        ("",),
        (f"Key{s}Value\r\nother {s} x{s}y\r\n",),
        (f'greeting {s} "hi {c} there"\nplain {s} kept {c} dropped\n',),
        # comments that hold the separator: only the comment rule skips them
        (f"{c} owner {s} ops\nreal {s} 1\n  {c}disabled{s}yes\n",),
        (f"{c}{s}\n{c} port {s} 22\nport {s} 2222\n",),
    ]
    keys = ["user", "level", "path", "retries", "colour", "timeout", "region", "token"]
    words = ["alpha", "beta", "on", "off", "42", "/var/log", "eu-west", "x y"]
    for _ in range(4):
        lines = []
        for key in rng.sample(keys, rng.randint(2, 5)):
            value = rng.choice(words)
            style = rng.randrange(4)
            if style == 0:
                value = f'"{value} {c} kept"'
            elif style == 1:
                value = f"{value}  {c} dropped"
            lines.append(f"{' ' * rng.randint(0, 2)}{key}{' ' * rng.randint(0, 1)}{s} {value}")
            if rng.random() < 0.3:
                lines.append(rng.choice(["", f"{c} note", "garbage line"]))
        if rng.random() < 0.5:
            lines.append(f"{lines[0].strip().partition(s)[0].strip()} {s} override{s}1")
        cases.append(("\n".join(lines),))
    return Problem(
        function=function,
        signature=f"def {function}(text: str) -> dict[str, str]:",
        summary="Parse configuration text made of key/value lines into a dict of strings.",
        rules=(
            "Lines are separated by '\\n'; each line is first stripped of surrounding whitespace "
            "(so a trailing '\\r' disappears).",
            f"Skip empty lines and lines whose first character is {c!r} (a comment).",
            f"Otherwise split the line at the FIRST {s!r}: the key is the stripped text before it, "
            "the value is the stripped text after it. Skip lines with no "
            f"{s!r} or with an empty key.",
            "If the value starts with '\"' and contains another '\"', the value is exactly the "
            "text between those first two double quotes (spaces and comment characters inside "
            "are kept); anything after the closing quote is ignored.",
            f"Otherwise the value is cut at the first {c!r} (an inline comment) and stripped "
            "again; it may be empty.",
            "When a key appears more than once, the last occurrence wins. Keys are case-sensitive.",
        ),
        reference=reference,
        bad={
            "split-at-last-separator": last_separator,
            "strips-comment-inside-quotes": comment_first,
            "keeps-quotes": keeps_quotes,
            "first-occurrence-wins": first_wins,
            "comments-not-skipped": no_comments,
        },
        cases=tuple(cases),
        examples=(cases[1], cases[2]),
        tags=("config",),
    )


_SEMVER_REFERENCE = """
def _key(version: str) -> tuple[object, ...]:
    version = version.strip()
    if version[:1] in ("v", "V"):
        version = version[1:]
    version = version.split("+", 1)[0]
    core, _, pre = version.partition("-")
    numbers = tuple(int(part) for part in core.split("."))
    if not pre:
        return (numbers, (1,))
    ids = []
    for part in pre.split("."):
        if part.isdigit():
            ids.append((0, int(part), ""))
        else:
            ids.append((1, 0, part))
    return (numbers, (0, tuple(ids)))


def FUNCTION(a: str, b: str) -> RESULT:
    left, right = _key(a), _key(b)
    if left < right:
        return LESS
    if left > right:
        return MORE
    return SAME
"""


def _semver(rng: random.Random) -> Problem:
    function = rng.choice(["compare_versions", "semver_compare", "version_cmp"])
    symbols = rng.random() < 0.5
    less, same, more = ('"<"', '"="', '">"') if symbols else ("-1", "0", "1")
    reference = (
        _SEMVER_REFERENCE.replace("FUNCTION", function)
        .replace("RESULT", "str" if symbols else "int")
        .replace("LESS", less)
        .replace("MORE", more)
        .replace("SAME", same)
    )
    lexical = reference.replace(
        'tuple(int(part) for part in core.split("."))', 'tuple(core.split("."))'
    )
    ignores_pre = reference.replace("    if not pre:\n", "    if True:\n")
    pre_as_text = reference.replace(
        "    ids = []\n", "    return (numbers, (0, pre))\n    ids = []\n"
    )
    counts_build = reference.replace('    version = version.split("+", 1)[0]\n', "").replace(
        '    core, _, pre = version.partition("-")\n',
        '    core, _, pre = version.partition("-")\n    core = core.split("+", 1)[0]\n',
    )
    lower_v_only = reference.replace('if version[:1] in ("v", "V"):', 'if version[:1] == "v":')
    cases: list[tuple[object, ...]] = [
        ("1.10.0", "1.9.0"),
        ("1.0.0-alpha", "1.0.0"),
        ("1.0.0-alpha.10", "1.0.0-alpha.9"),
        ("1.0.0-rc.1", "1.0.0-beta.11"),
        ("v2.0.0", "2.0.0"),
        ("V1.4.0", "1.3.9"),
        ("2.0.0", "V2.0.0-rc.1"),
        ("1.0.0+build.7", "1.0.0+build.3"),
        ("1.0.0-alpha", "1.0.0-alpha.1"),
        ("1.0.0-1", "1.0.0-alpha"),
        ("0.9.12", "0.10.0"),
        ("3.2.1", "3.2.1-rc.2+sha.9f"),
        ("2.0.0-rc.1+build.10", "2.0.0-rc.1+build.9"),
        ("2.1.0-beta.11", "2.1.0-beta.2"),
        ("1.0.0-0.3.7", "1.0.0-0.3.10"),
    ]
    pre = ["", "", "-alpha", "-alpha.2", "-alpha.10", "-beta", "-rc.1", "-rc.11", "-0.3.7"]
    for _ in range(4):
        base = [rng.randint(0, 12) for _ in range(3)]
        other = list(base)
        if rng.random() < 0.6:
            other[rng.randrange(3)] = rng.randint(0, 12)
        a = "v" * (rng.random() < 0.2) + ".".join(map(str, base)) + rng.choice(pre)
        b = ".".join(map(str, other)) + rng.choice(pre) + "+b" * (rng.random() < 0.3)
        cases.append((a, b))
    word = "the string '<', '=' or '>'" if symbols else "-1, 0 or 1"
    return Problem(
        function=function,
        signature=f"def {function}(a: str, b: str) -> {'str' if symbols else 'int'}:",
        summary=f"Compare two semantic versions and return {word} as a is lower, equal or higher.",
        rules=(
            "A version is MAJOR.MINOR.PATCH (non-negative integers), optionally followed by "
            "'-' and a pre-release, optionally followed by '+' and build metadata. Inputs are "
            "always well formed; an optional leading 'v' or 'V' is ignored.",
            "Compare MAJOR, MINOR and PATCH numerically, in that order.",
            "If those are equal, a version with a pre-release is LOWER than one without.",
            "Two pre-releases are compared by their dot-separated identifiers from left to "
            "right: identifiers of only digits compare numerically, others compare as ASCII "
            "text, and a numeric identifier is lower than a non-numeric one. If all shared "
            "identifiers are equal, the one with fewer identifiers is lower.",
            "Build metadata (after '+') is ignored entirely.",
            f"Return {less} if a < b, {same} if they are equal, {more} if a > b.",
        ),
        reference=reference,
        bad={
            "lexicographic-numbers": lexical,
            "ignores-prerelease": ignores_pre,
            "prerelease-compared-as-text": pre_as_text,
            "build-metadata-in-prerelease": counts_build,
            "ignores-lowercase-v-only": lower_v_only,
        },
        cases=tuple(cases),
        examples=(cases[0], cases[1], cases[2]),
        tags=("versions",),
    )


def _query_string(rng: random.Random) -> Problem:
    function = rng.choice(["parse_query", "parse_query_string", "decode_query"])
    sep = rng.choice(["&", ";"])
    reference = f"""
from urllib.parse import unquote


def {function}(query: str) -> dict[str, list[str]]:
    if query.startswith("?"):
        query = query[1:]
    result: dict[str, list[str]] = {{}}
    for piece in query.split({sep!r}):
        if not piece:
            continue
        key, _, value = piece.partition("=")
        key = unquote(key.replace("+", " "))
        value = unquote(value.replace("+", " "))
        result.setdefault(key, []).append(value)
    return result
"""
    plus_after = reference.replace(
        'unquote(value.replace("+", " "))', 'unquote(value).replace("+", " ")'
    ).replace('unquote(key.replace("+", " "))', 'unquote(key).replace("+", " ")')
    plus_kept = reference.replace('.replace("+", " ")', "")
    decode_first = reference.replace(
        "        query = query[1:]\n", "        query = query[1:]\n    query = unquote(query)\n"
    )
    blank_dropped = reference.replace(
        "        if not piece:\n", '        if not piece or not piece.partition("=")[2]:\n'
    )
    keeps_mark = reference.replace('if query.startswith("?"):', "if False:")
    s = sep
    cases: list[tuple[object, ...]] = [
        (f"?q=hello+world{s}page=2",),
        (f"tag=a{s}tag=b{s}tag=c",),
        (f"sum=1%2B1{s}eq=%3D",),
        (f"name=Jos%C3%A9{s}city=S%C3%A3o%20Paulo",),
        (f"flag{s}empty={s}{s}x=1",),
        (f"q=rock+%26+roll{s}k=v%3Dw",),
        ("",),
        (f"pct=100%{s}bad=%zz{s}a+b=c+d",),
        (f"?lang=en{s}page=3",),
        (f"debug{s}note={s}x=1",),
    ]
    keys = ["q", "page", "lang", "sort", "filter", "tag", "city", "name"]
    values = ["hello world", "a&b", "x=y", "1+1", "über", "日本", "50%", "", "plain"]
    for _ in range(4):
        pieces = []
        for _ in range(rng.randint(1, 4)):
            value = rng.choice(values)
            encoded = quote(value, safe="")
            if rng.random() < 0.5:
                encoded = encoded.replace("%20", "+")
            pieces.append(
                f"{rng.choice(keys)}={encoded}" if value or rng.random() < 0.5 else rng.choice(keys)
            )
        cases.append(("?" * (rng.random() < 0.3) + s.join(pieces),))
    return Problem(
        function=function,
        signature=f"def {function}(query: str) -> dict[str, list[str]]:",
        summary="Parse a URL query string into a dict mapping each key to its list of values.",
        rules=(
            "A single leading '?' is ignored.",
            f"Pairs are separated by {s!r}; empty pieces are skipped.",
            "Each piece is split at its FIRST '=' into key and value; a piece without '=' has "
            "the value '' (empty values are kept).",
            "Splitting happens BEFORE decoding, so encoded separators such as '%26' or '%3D' "
            "stay inside the value.",
            "Decode key and value separately: first every '+' becomes a space, then each %XX "
            "escape is decoded, with the resulting bytes read as UTF-8 (so '%2B' is a literal "
            "'+'). A '%' not followed by two hex digits is kept as is. Inputs never decode to "
            "invalid UTF-8.",
            "Values of a repeated key are collected in order of appearance.",
        ),
        reference=reference,
        bad={
            "decodes-before-plus": plus_after,
            "plus-not-space": plus_kept,
            "decodes-before-splitting": decode_first,
            "drops-blank-values": blank_dropped,
            "keeps-question-mark": keeps_mark,
        },
        cases=tuple(cases),
        examples=(cases[0], cases[1], cases[4]),
        tags=("urls", "unicode"),
    )


def _file_size(rng: random.Random) -> Problem:
    function = rng.choice(["parse_size", "size_to_bytes", "parse_file_size"])
    half_up = rng.random() < 0.5
    mode = "ROUND_HALF_UP" if half_up else "ROUND_FLOOR"
    reference = f"""
import re
from decimal import {mode}, Decimal

_UNITS = {{
    "": 1, "b": 1,
    "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4,
    "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4,
}}


def {function}(text: str) -> int | None:
    match = re.fullmatch(r"([0-9]+(?:\\.[0-9]+)?) *([A-Za-z]*)", text.strip())
    if match is None or match.group(2).lower() not in _UNITS:
        return None
    value = Decimal(match.group(1)) * _UNITS[match.group(2).lower()]
    return int(value.quantize(Decimal(1), rounding={mode}))
"""
    kb_binary = reference.replace(
        '"kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4',
        '"kb": 1024, "mb": 1024**2, "gb": 1024**3, "tb": 1024**4',
    )
    case_sensitive = reference.replace(".group(2).lower()", ".group(2)").replace(
        '"": 1, "b": 1,', '"": 1, "B": 1,'
    )
    for lower, proper in (
        ("kb", "KB"),
        ("mb", "MB"),
        ("gb", "GB"),
        ("tb", "TB"),
        ("kib", "KiB"),
        ("mib", "MiB"),
        ("gib", "GiB"),
        ("tib", "TiB"),
    ):
        case_sensitive = case_sensitive.replace(f'"{lower}":', f'"{proper}":')
    if half_up:
        rounding_label = "round-half-even"
        float_math = reference.replace(
            "return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))",
            "return round(float(match.group(1)) * _UNITS[match.group(2).lower()])",
        )
    else:
        rounding_label = "float-truncation"
        float_math = reference.replace(
            "return int(value.quantize(Decimal(1), rounding=ROUND_FLOOR))",
            "return int(float(match.group(1)) * _UNITS[match.group(2).lower()])",
        )
    cases: list[tuple[object, ...]] = [
        ("1.5 KiB",),
        ("2 KB",),
        ("1.001 KB",),
        ("2.5 B",),
        ("0.0025kb",),
        ("10 mib",),
        ("512",),
        ("  3 GB ",),
        ("1.5 XB",),
        ("-1 KB",),
        (".5 KB",),
        ("",),
        ("7 tib",),
    ]
    units = ["B", "KB", "MB", "GB", "KiB", "MiB", "GiB", "kb", "mib", "TB"]
    for _ in range(4):
        number = str(rng.randint(0, 999))
        if rng.random() < 0.6:
            number += "." + str(rng.randint(0, 999)).zfill(rng.randint(1, 3))
        cases.append((f"{number}{' ' * rng.randint(0, 1)}{rng.choice(units)}",))
    how = (
        "rounded to the nearest integer, exact halves rounded up"
        if half_up
        else "rounded down to a whole number of bytes"
    )
    return Problem(
        function=function,
        signature=f"def {function}(text: str) -> int | None:",
        summary="Convert a human-readable file size such as '1.5 KiB' into a number of bytes.",
        rules=(
            "Surrounding whitespace is ignored. The text is a number, then any number of "
            "spaces, then an optional unit.",
            "The number is one or more ASCII digits, optionally followed by '.' and one or "
            "more digits (no sign, no leading '.').",
            "Units, case-insensitive: none or B = 1; KB, MB, GB, TB = powers of 1000; "
            "KiB, MiB, GiB, TiB = powers of 1024.",
            f"The result is number * unit computed exactly (as decimal, not binary float), {how}.",
            "Return None for anything else (unknown unit, sign, empty text, malformed number).",
        ),
        reference=reference,
        bad={
            "kb-as-kib": kb_binary,
            "case-sensitive-units": case_sensitive,
            rounding_label: float_math,
        },
        cases=tuple(cases),
        examples=(cases[0], cases[1], cases[8]),
        tags=("units",),
    )


def _access_log(rng: random.Random) -> Problem:
    function = rng.choice(["parse_access_log", "parse_log_line", "parse_request_line"])
    reference = f"""
import re

_LINE = re.compile(
    r'(\\S+) (\\S+) (\\S+) \\[([^\\]]*)\\] "([^"]*)" ([0-9]{{3}}) ([0-9]+|-)'
    r'(?: "([^"]*)" "([^"]*)")?'
)


def _dash(value: str | None) -> str | None:
    return None if value in (None, "-") else value


def {function}(line: str) -> dict[str, object] | None:
    match = _LINE.fullmatch(line.strip())
    if match is None:
        return None
    host, _ident, user, time, request, status, size, referer, agent = match.groups()
    parts = request.split(" ")
    if len(parts) != 3 or not all(parts):
        return None
    method, path, protocol = parts
    return {{
        "host": host,
        "user": _dash(user),
        "time": time,
        "method": method,
        "path": path,
        "protocol": protocol,
        "status": int(status),
        "size": 0 if size == "-" else int(size),
        "referer": _dash(referer),
        "agent": _dash(agent),
    }}
"""
    size_crash = reference.replace('0 if size == "-" else int(size)', "int(size)")
    user_dash = reference.replace('"user": _dash(user)', '"user": user')
    referer_dash = reference.replace('"referer": _dash(referer)', '"referer": referer')
    status_text = reference.replace('"status": int(status)', '"status": status')
    lenient_request = reference.replace(
        "    if len(parts) != 3 or not all(parts):\n        return None\n    method, path, protocol"
        " = parts\n",
        '    method, path, protocol = (parts + ["", "", ""])[:3]\n',
    )
    time = "10/Oct/2000:13:55:36 -0700"
    agent = "Mozilla/5.0 (X11; Linux x86_64)"
    cases: list[tuple[object, ...]] = [
        (f'127.0.0.1 - frank [{time}] "GET /apache_pb.gif HTTP/1.0" 200 2326',),
        (f'10.0.0.5 - - [{time}] "POST /login HTTP/1.1" 302 - "-" "{agent}"',),
        (f'::1 - alice [{time}] "GET /a?b=c HTTP/2.0" 404 0 "https://ex.org/" "curl/8.4"',),
        (f'192.168.1.9 - - [{time}] "-" 408 -',),
        (f'1.2.3.4 - - [{time}] "GET / HTTP/1.1" 200',),
        ("not a log line",),
        (f'  8.8.8.8 - bob [{time}] "HEAD /health HTTP/1.1" 204 -  ',),
        (f'5.6.7.8 - - [{time}] "GET /x HTTP/1.1" 20 15',),
        (f'172.16.0.2 - - [{time}] "GET /docs HTTP/1.1" 200 512 "-" "curl/8.4"',),
        (f'172.16.0.3 - dave [{time}] "PUT /items/7 HTTP/1.1" 201 64 "-" "-"',),
    ]
    hosts = ["203.0.113.7", "198.51.100.23", "2001:db8::1", "proxy.internal"]
    users = ["-", "-", "carol", "svc-backup"]
    paths = ["/", "/index.html", "/api/v1/items?page=2", "/static/app.js", "/search?q=a+b"]
    for _ in range(4):
        day = rng.randint(1, 28)
        stamp = (
            f"{day:02d}/{rng.choice(['Jan', 'Mar', 'Jul'])}/2024:0{rng.randint(0, 9)}:15:00 +0000"
        )
        request = f"{rng.choice(['GET', 'POST', 'PUT'])} {rng.choice(paths)} HTTP/1.1"
        size = rng.choice(["-", str(rng.randint(0, 99999))])
        line = (
            f'{rng.choice(hosts)} - {rng.choice(users)} [{stamp}] "{request}" '
            f"{rng.choice([200, 201, 301, 404, 500])} {size}"
        )
        if rng.random() < 0.5:
            line += f' "{rng.choice(["-", "https://ex.org/p"])}" "{rng.choice([agent, "-"])}"'
        cases.append((line,))
    return Problem(
        function=function,
        signature=f"def {function}(line: str) -> dict[str, object] | None:",
        summary="Parse one web-server access-log line (Common or Combined Log Format) into a dict.",
        rules=(
            'Format, fields separated by single spaces: HOST IDENT USER [TIME] "REQUEST" STATUS '
            'SIZE, optionally followed by a space, "REFERER", a space and "AGENT" (the two '
            "quoted fields come together or not at all). Surrounding whitespace of the line is "
            "ignored.",
            "HOST, IDENT and USER are non-empty runs of non-whitespace; TIME is any text without "
            "']'; REQUEST, REFERER and AGENT are any text without '\"'; STATUS is exactly three "
            "digits; SIZE is digits or '-'.",
            "REQUEST must be exactly three non-empty parts separated by single spaces: METHOD "
            "PATH PROTOCOL.",
            "Return a dict with keys host, user, time, method, path, protocol, status (int), "
            "size (int), referer, agent. IDENT is dropped; time is the text inside the brackets.",
            "USER, REFERER and AGENT are None when they are '-' or absent; SIZE '-' means 0.",
            "Return None for a line that does not match this format in full.",
        ),
        reference=reference,
        bad={
            "dash-size-crashes": size_crash,
            "dash-user-kept": user_dash,
            "dash-referer-kept": referer_dash,
            "status-left-as-text": status_text,
            "accepts-malformed-request": lenient_request,
        },
        cases=tuple(cases),
        examples=(cases[0], cases[1]),
        tags=("logs", "regex"),
    )


TEMPLATES: tuple[Template, ...] = (
    Template(id="parse-duration", category="parsing", difficulty="easy", build=_duration),
    Template(id="parse-file-size", category="parsing", difficulty="easy", build=_file_size),
    Template(
        id="parse-key-value-config", category="parsing", difficulty="medium", build=_key_values
    ),
    Template(id="parse-query-string", category="parsing", difficulty="medium", build=_query_string),
    Template(id="compare-semver", category="parsing", difficulty="hard", build=_semver),
    Template(id="parse-access-log", category="parsing", difficulty="hard", build=_access_log),
)
