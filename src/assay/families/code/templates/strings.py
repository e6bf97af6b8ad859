"""Templates for text transformations: slugs, wrapping, run-lengths, titles, brackets, truncation."""

from __future__ import annotations

import random

from assay.families.code.templates._model import Problem, Template

_WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "a",
    "lazy",
    "dog",
    "and",
    "runs",
    "to",
    "of",
    "river",
    "in",
    "night",
    "market",
    "for",
    "data",
    "pipeline",
    "on",
]


def _sentence(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(low, high)))


def _slugify(rng: random.Random) -> Problem:
    function = rng.choice(["slugify", "make_slug", "to_slug"])
    sep = rng.choice(["-", "_"])
    reference = f"""
import unicodedata


def {function}(text: str, max_length: int) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    out: list[str] = []
    pending = False
    for char in decomposed:
        if unicodedata.category(char) == "Mn":
            continue
        if char.isascii() and char.isalnum():
            if pending and out:
                out.append({sep!r})
            out.append(char.lower())
            pending = False
        else:
            pending = True
    return "".join(out)[:max_length].rstrip({sep!r})
"""
    no_normalise = reference.replace(
        'decomposed = unicodedata.normalize("NFKD", text)', "decomposed = text"
    )
    no_collapse = reference.replace(
        "            pending = True\n",
        f"            if out and pending:\n                out.append({sep!r})\n"
        "            pending = True\n",
    )
    no_rstrip = reference.replace(f"[:max_length].rstrip({sep!r})", "[:max_length]")
    unicode_alnum = reference.replace("char.isascii() and char.isalnum()", "char.isalnum()")
    cases: list[tuple[object, ...]] = [
        ("Hello, World!", 50),
        ("Crème Brûlée Recipe", 50),
        ("  --Already--slugged--  ", 50),
        ("Straße in Köln", 50),
        ("日本語 text 2024", 50),
        ("one two three", 8),
        ("Ärger über Öl", 5),
        ("", 10),
        ("ﬁnal ½ price!!!", 40),
        ("a  &  b", 20),
        ("Big Data Pipeline", 9),
    ]
    pool = ["Café", "naïve", "Résumé", "HTTP", "über", "2024", "piñata", "Ελλάδα", "x&y", "rock"]
    for _ in range(4):
        parts = [rng.choice(pool) for _ in range(rng.randint(2, 5))]
        glue = rng.choice([" ", " - ", ", ", "  ", "/"])
        cases.append((glue.join(parts), rng.randint(4, 30)))
    return Problem(
        function=function,
        signature=f"def {function}(text: str, max_length: int) -> str:",
        summary="Turn a title into a lowercase ASCII URL slug, at most max_length characters long.",
        rules=(
            "Normalise the text with Unicode NFKD and delete every character of category Mn "
            "(combining marks), so 'é' becomes 'e' and 'ﬁ' becomes 'fi'.",
            "ASCII letters and digits are kept and lowercased; every other character (including "
            "non-ASCII letters such as 'ß' or 'λ') is a separator.",
            f"Each maximal run of separators between kept characters becomes a single {sep!r}; "
            "separators before the first or after the last kept character produce nothing.",
            "If the slug is longer than max_length, keep its first max_length characters, then "
            f"remove any {sep!r} left at the end. max_length is at least 1.",
            "The result may be empty.",
        ),
        reference=reference,
        bad={
            "drops-accented-letters": no_normalise,
            "separator-per-character": no_collapse,
            "trailing-separator-after-cut": no_rstrip,
            "keeps-non-ascii-letters": unicode_alnum,
        },
        cases=tuple(cases),
        examples=(cases[0], cases[1], cases[5]),
        tags=("unicode", "urls"),
    )


def _word_wrap(rng: random.Random) -> Problem:
    function = rng.choice(["wrap_text", "word_wrap", "wrap_lines"])
    reference = f"""
def {function}(text: str, width: int) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= width:
            current += " " + word
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines
"""
    off_by_one = reference.replace("len(word) <= width", "len(word) < width")
    breaks_long = f"""
import textwrap


def {function}(text: str, width: int) -> list[str]:
    return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)
"""
    empty_line = f"""
def {function}(text: str, width: int) -> list[str]:
    lines = [""]
    for word in text.split():
        if not lines[-1]:
            lines[-1] = word
        elif len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines
"""
    keeps_spacing = reference.replace(
        "text.split()", 'text.replace("\\n", " ").split(" ")'
    ).replace(
        "        if not current:\n",
        "        if not word:\n            continue\n        if not current:\n",
    )
    cases: list[tuple[object, ...]] = [
        ("the quick brown fox jumps over the lazy dog", 10),
        ("aaaa bbbb cccc", 9),
        ("see https://example.org/a/very/long/path now", 12),
        ("", 8),
        ("   \n  ", 5),
        ("one\ttwo\n\nthree   four", 9),
        ("exactly ten", 11),
        ("tiny", 1),
    ]
    for _ in range(4):
        text = _sentence(rng, 4, 14)
        if rng.random() < 0.4:
            text += " " + "x" * rng.randint(12, 20)
        cases.append((text, rng.randint(6, 20)))
    return Problem(
        function=function,
        signature=f"def {function}(text: str, width: int) -> list[str]:",
        summary="Greedily wrap text into lines of at most width characters.",
        rules=(
            "Words are the maximal runs of non-whitespace characters (as str.split() with no "
            "argument finds them); all original spacing and newlines are discarded.",
            "Fill lines greedily: a word joins the current line (separated by one space) when "
            "the line's length stays <= width; otherwise it starts a new line.",
            "A word longer than width is never broken: it sits alone on its own line.",
            "Return the list of lines; empty or whitespace-only text gives an empty list.",
        ),
        reference=reference,
        bad={
            "off-by-one-width": off_by_one,
            "breaks-long-words": breaks_long,
            "empty-line-for-empty-text": empty_line,
            "only-splits-on-spaces": keeps_spacing,
        },
        cases=tuple(cases),
        examples=(cases[0], cases[2]),
        tags=("wrapping",),
    )


def _run_length(rng: random.Random) -> Problem:
    function = rng.choice(["run_length_encode", "rle_encode", "compress_runs"])
    count_first = rng.random() < 0.5
    omit_single = rng.random() < 0.5
    piece = "f'{count}{char}'" if count_first else "f'{char}{count}'"
    single_piece = f"char if count == 1 else {piece}"
    write, wrong_write = (single_piece, piece) if omit_single else (piece, single_piece)
    reference = f"""
def {function}(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        j = i
        while j < len(text) and text[j] == char:
            j += 1
        count = j - i
        out.append({write})
        i = j
    return "".join(out)
"""
    drops_last = f"""
def {function}(text: str) -> str:
    out: list[str] = []
    count = 1
    for i in range(1, len(text)):
        if text[i] == text[i - 1]:
            count += 1
        else:
            char = text[i - 1]
            out.append({write})
            count = 1
    return "".join(out)
"""
    folds_case = reference.replace("text[j] == char", "text[j].lower() == char.lower()")
    single_rule = reference.replace(f"out.append({write})", f"out.append({wrong_write})")
    cases: list[tuple[object, ...]] = [
        ("aaabccdddd",),
        ("",),
        ("x",),
        ("aAAa",),
        ("  --  ",),
        ("z" * 12 + "y",),
        ("ééé日日",),
        ("abcabc",),
        ("xXXxx!",),
    ]
    for _ in range(4):
        alphabet = rng.choice(["ab", "xyz", "aAb", "#. "])
        cases.append(("".join(rng.choice(alphabet) * rng.randint(1, 11) for _ in range(5)),))
    layout = (
        "the count followed by the character"
        if count_first
        else ("the character followed by the count")
    )
    single = (
        "A run of length 1 is written as the character alone, without a count."
        if omit_single
        else "Every run gets a count, including runs of length 1 (written with count 1)."
    )
    return Problem(
        function=function,
        signature=f"def {function}(text: str) -> str:",
        summary="Compress a string with run-length encoding.",
        rules=(
            "A run is a maximal sequence of the same character; comparison is exact "
            "(case-sensitive, any Unicode character, spaces included).",
            f"Each run is written as {layout}; counts are in decimal and may have several "
            "digits (no splitting of long runs).",
            single,
            "The input never contains digits. The empty string encodes to the empty string.",
        ),
        reference=reference,
        bad={
            "drops-last-run": drops_last,
            "case-insensitive-runs": folds_case,
            "wrong-single-run-format": single_rule,
        },
        cases=tuple(cases),
        examples=(cases[0], cases[3]),
        tags=("compression",),
    )


_SMALL = ["a", "an", "the", "and", "but", "or", "for", "nor", "of", "on", "in", "to", "at", "by"]


def _title_case(rng: random.Random) -> Problem:
    function = rng.choice(["title_case", "headline_case", "smart_title"])
    drawn = {*rng.sample(_SMALL, 9), "the", "of"}
    small = [word for word in _SMALL if word in drawn]
    reference = f"""
SMALL = {tuple(small)!r}


def _fix(word: str) -> str:
    return word[:1].upper() + word[1:].lower()


def {function}(text: str) -> str:
    pieces = text.split(" ")
    filled = [i for i, piece in enumerate(pieces) if piece]
    for i in filled:
        word = pieces[i]
        if len(word) >= 2 and word.isupper():
            continue
        if word.lower() in SMALL and i not in (filled[0], filled[-1]):
            pieces[i] = word.lower()
        else:
            pieces[i] = _fix(word)
    return " ".join(pieces)
"""
    uses_title = reference.replace(
        "return word[:1].upper() + word[1:].lower()", "return word.title()"
    )
    small_edges = reference.replace(" and i not in (filled[0], filled[-1])", "")
    no_acronyms = reference.replace("if len(word) >= 2 and word.isupper():", "if False:")
    collapses = reference.replace('text.split(" ")', "text.split()")
    s1, s2 = rng.sample([w for w in small if w not in ("the", "of")], 2)
    cases: list[tuple[object, ...]] = [
        ("the lord of the rings",),
        ("don't stop me now",),
        (f"what it's {s1} about",),
        ("NASA and the ESA plan a state-of-the-art probe",),
        (f"  {s2} tale of two  cities ",),
        ("",),
        ("A",),
        (f"looking back {s1}",),
        ("rock'n'roll IS dead",),
    ]
    for _ in range(4):
        words = [
            rng.choice(_WORDS + small + ["UK", "api", "O'Neil", "e-mail"])
            for _ in range(rng.randint(3, 8))
        ]
        if rng.random() < 0.5:
            words = [w.upper() if rng.random() < 0.3 else w for w in words]
        cases.append((" ".join(words),))
    return Problem(
        function=function,
        signature=f"def {function}(text: str) -> str:",
        summary="Convert a headline to title case, keeping small words and acronyms as they should be.",
        rules=(
            "Split the text on single space characters ' ' and rejoin with ' ' afterwards, so "
            "all spacing (leading, trailing, repeated) is preserved; empty pieces stay empty.",
            "A word (non-empty piece) of at least two characters whose cased characters are all "
            "uppercase (str.isupper()) is an acronym and stays exactly as it is; this takes "
            "precedence over the small-word rule.",
            f"Small words: {', '.join(small)}. A word whose lowercase form is exactly one of "
            "these is written all lowercase, unless it is the first or the last word.",
            "Every other word gets its first character uppercased and all the rest lowercased, "
            "so 'don't' becomes \"Don't\" and 'e-mail' becomes 'E-mail'.",
        ),
        reference=reference,
        bad={
            "uses-str-title": uses_title,
            "small-word-at-edges": small_edges,
            "lowercases-acronyms": no_acronyms,
            "collapses-spaces": collapses,
        },
        cases=tuple(cases),
        examples=(cases[0], cases[3]),
        tags=("case",),
    )


def _brackets(rng: random.Random) -> Problem:
    function = rng.choice(["first_unbalanced", "check_brackets", "bracket_error_index"])
    pairs = rng.sample(["()", "[]", "{}", "<>"], rng.randint(2, 4))
    if "()" not in pairs:
        pairs[0] = "()"
    closers = {pair[1]: pair[0] for pair in pairs}
    openers = "".join(pair[0] for pair in pairs)
    reference = f"""
def {function}(text: str) -> int:
    closers = {closers!r}
    stack: list[int] = []
    for i, char in enumerate(text):
        if char in {openers!r}:
            stack.append(i)
        elif char in closers:
            if not stack or text[stack[-1]] != closers[char]:
                return i
            stack.pop()
    return stack[0] if stack else -1
"""
    counters = f"""
def {function}(text: str) -> int:
    closers = {closers!r}
    depth = {{opener: 0 for opener in closers.values()}}
    first_open: dict[str, list[int]] = {{opener: [] for opener in closers.values()}}
    for i, char in enumerate(text):
        if char in depth:
            depth[char] += 1
            first_open[char].append(i)
        elif char in closers:
            if depth[closers[char]] == 0:
                return i
            depth[closers[char]] -= 1
            first_open[closers[char]].pop()
    left = [index for indexes in first_open.values() for index in indexes]
    return min(left) if left else -1
"""
    ignores_unclosed = reference.replace("return stack[0] if stack else -1", "return -1")
    last_unclosed = reference.replace("stack[0] if stack", "stack[-1] if stack")
    other = next(pair for pair in pairs if pair != "()")
    o, c = other[0], other[1]
    cases: list[tuple[object, ...]] = [
        ("f(a[0], {b})",),
        (f"(x{o})",),
        (f"(a{o}b){c}",),
        ("((x)",),
        (f"{o}(){o}",),
        ("no brackets",),
        ("",),
        (")(",),
        ("([{<>}])",),
    ]
    for _ in range(4):
        chars = []
        for _ in range(rng.randint(4, 14)):
            pair = rng.choice(pairs)
            chars.append(rng.choice([pair[0], pair[1], pair, "x"]))
        cases.append(("".join(chars),))
    listed = ", ".join(f"{p[0]} {p[1]}" for p in pairs)
    return Problem(
        function=function,
        signature=f"def {function}(text: str) -> int:",
        summary="Find where the brackets in a string stop being balanced.",
        rules=(
            f"Only these bracket pairs count: {listed}. Every other character (including any "
            "other bracket symbol) is ignored.",
            "Brackets nest: a closing bracket must match the most recent opening bracket that "
            "is still open.",
            "Return the index of the first closing bracket that has no open bracket to close "
            "or that does not match the most recent one.",
            "If every closing bracket is fine but some opening brackets are never closed, "
            "return the index of the leftmost of those unclosed openers.",
            "Return -1 when the text is balanced (including the empty string).",
        ),
        reference=reference,
        bad={
            "counters-not-stack": counters,
            "ignores-unclosed": ignores_unclosed,
            "reports-last-unclosed": last_unclosed,
        },
        cases=tuple(cases),
        examples=(cases[0], cases[2], cases[3]),
        tags=("stack",),
    )


def _truncate(rng: random.Random) -> Problem:
    function = rng.choice(["truncate_text", "truncate_words", "shorten"])
    ellipsis = rng.choice(["…", "..."])
    reference = f"""
def {function}(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    budget = limit - len({ellipsis!r})
    kept = ""
    for word in text.split(" "):
        candidate = word if not kept else kept + " " + word
        if len(candidate) > budget:
            break
        kept = candidate
    if not kept:
        kept = text[:budget]
    return kept + {ellipsis!r}
"""
    not_counted = reference.replace(f"budget = limit - len({ellipsis!r})", "budget = limit")
    mid_word = f"""
def {function}(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit - len({ellipsis!r})].rstrip() + {ellipsis!r}
"""
    strict = reference.replace("if len(text) <= limit:", "if len(text) < limit:")
    bare = reference.replace("        kept = text[:budget]\n", "        kept = ''\n")
    width = len(ellipsis)
    cases: list[tuple[object, ...]] = [
        ("The quick brown fox jumps", 14),
        ("short", 10),
        ("exactly twenty chars", 20),
        ("Supercalifragilistic word", 8 + width),
        ("", 5),
        ("one two three four", 8 + width),
        ("a bb ccc", 7),
        ("alpha beta", 5 + width),
        ("data pipeline runs", 10 + width),
    ]
    for _ in range(4):
        text = _sentence(rng, 3, 10)
        cases.append((text, rng.randint(width + 1, len(text) + 2)))
    return Problem(
        function=function,
        signature=f"def {function}(text: str, limit: int) -> str:",
        summary=f"Shorten text to at most limit characters, ending in {ellipsis!r} at a word boundary.",
        rules=(
            "The text is empty or words separated by single spaces, with no leading or "
            f"trailing space. limit is always greater than len({ellipsis!r}) = {width}.",
            "If len(text) <= limit, return the text unchanged.",
            f"Otherwise return the longest run of leading whole words (joined by single spaces "
            f"as in the text) that still fits with {ellipsis!r} appended within limit "
            f"characters, followed directly by {ellipsis!r} (no space before it).",
            "If not even the first word fits, return the first limit - "
            f"{width} characters of the text followed by {ellipsis!r}.",
        ),
        reference=reference,
        bad={
            "ellipsis-not-counted": not_counted,
            "cuts-mid-word": mid_word,
            "truncates-at-exact-limit": strict,
            "drops-overlong-first-word": bare,
        },
        cases=tuple(cases),
        examples=(cases[0], cases[1]),
        tags=("truncation", "unicode"),
    )


TEMPLATES: tuple[Template, ...] = (
    Template(id="run-length-encode", category="strings", difficulty="easy", build=_run_length),
    Template(id="first-unbalanced-bracket", category="strings", difficulty="easy", build=_brackets),
    Template(id="slugify", category="strings", difficulty="medium", build=_slugify),
    Template(id="word-wrap", category="strings", difficulty="medium", build=_word_wrap),
    Template(id="truncate-at-word", category="strings", difficulty="medium", build=_truncate),
    Template(id="headline-title-case", category="strings", difficulty="hard", build=_title_case),
)
