"""The YAML reader that works inside the sandbox. Stdlib only, plus PyYAML (from the packages
directory the job names); passed to ``python -I -S -c``.

It reads a JSON job from stdin (a nonce, the files to read, the bounds, the package path) and,
file by file in the job's order, turns each file's YAML documents into plain JSON data:

- the text must be UTF-8;
- a first pass over the parser's events, before anything is built, refuses a file with more
  than ``max_documents`` documents, nesting deeper than ``max_depth``, or more than ``max_nodes``
  nodes or ``max_chars`` characters of scalars *once aliases are expanded* (so a "billion
  laughs" file is refused while it is still a few hundred bytes of events), and aliases of an
  anchor that is not finished (recursive structures);
- a plain (unquoted) scalar means what it means to Kubernetes, whose YAML reader (go-yaml v2,
  through ``sigs.k8s.io/yaml``) differs from PyYAML's: ``0o17`` is an octal and ``6379e0`` a
  float, while ``1:30`` is text, not a base-60 number; a float with no fraction is the integer
  it is (JSON knows no difference). ``y``, ``Y``, ``n`` and ``N`` are booleans too in the files
  from the job's ``kubectl_from`` on (a submission); before it (a task's own files, which
  PyYAML writes with them unquoted) they stay text;
- a key both written in a mapping and merged into it (``<<``) is refused: go-yaml v2 lets the
  later one win and PyYAML the written one, so the object would mean two things;
- only YAML's safe tags are constructed (no ``!!python/...``, no application tags); keys must be
  strings and may not repeat; timestamps stay the text they were written as (as Kubernetes
  reads them); binary values, sets, and numbers that are not finite are refused;
- empty documents are skipped, as ``kubectl`` skips them; a line that starts with ``---`` and
  goes on with more than a comment is refused, as ``kubectl`` refuses it.

It writes one ``<nonce><json>`` line first, ``{"ready": true}`` or ``{"setup_error": text}``,
then one per file: ``{"file": i, "documents": [...]}`` or ``{"file": i, "error": text}``. The
trusted side reads these as hostile text, within its own bounds, and decides; nothing here is
trusted, and no expected result is ever sent here.
"""

import json
import math
import os
import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # keeps typing out of the sandbox's start-up
    from typing import Any

_MERGE = "tag:yaml.org,2002:merge"
_TAG = "tag:yaml.org,2002:"
_GO_WORDS: "dict[str, tuple[str, object]]" = {
    **dict.fromkeys(["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE"], ("bool", True)),
    **dict.fromkeys(["on", "On", "ON"], ("bool", True)),
    **dict.fromkeys(["n", "N", "no", "No", "NO", "false", "False", "FALSE"], ("bool", False)),
    **dict.fromkeys(["off", "Off", "OFF"], ("bool", False)),
    **dict.fromkeys(["", "~", "null", "Null", "NULL"], ("null", None)),
    **dict.fromkeys([".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"], ("float", math.inf)),
    **dict.fromkeys(["-.inf", "-.Inf", "-.INF"], ("float", -math.inf)),
    **dict.fromkeys([".nan", ".NaN", ".NAN"], ("float", math.nan)),
}
"""go-yaml v2's ``resolveMap``: the words a plain scalar may be (each starts with a character
its ``resolveTable`` sends there)."""
_PYYAML_TEXT = frozenset({"y", "Y", "n", "N"})
"""The words of :data:`_GO_WORDS` that PyYAML reads as text."""
_GO_INT = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
"""What Go's ``strconv.ParseInt(s, 0, 64)`` reads (underscores already removed)."""
_GO_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
"""go-yaml v2's ``yamlStyleFloat``."""
_GO_DOT_FLOAT = re.compile(r"\.[0-9](_?[0-9])*([eE][-+]?[0-9](_?[0-9])*)?")
"""What Go's ``strconv.ParseFloat`` reads of a scalar that starts with a dot."""


class _RefusedError(Exception):
    """A file this reader will not build, for the reason given."""


def _main() -> None:
    job = json.loads(_read_all(0))
    out = os.dup(1)
    os.dup2(2, 1)  # anything printed by a library goes to stderr, never among the records
    nonce = job["nonce"]
    encode = json.JSONEncoder(allow_nan=False, ensure_ascii=False).encode

    def send(record: "dict[str, object]") -> None:
        line = ("\n" + nonce + encode(record) + "\n").encode("utf-8")
        while line:
            line = line[os.write(out, line) :]

    sys.path.extend(job["path"])
    try:
        loaders = (_make_loader(go_booleans=False), _make_loader(go_booleans=True))
    except Exception as exc:  # noqa: BLE001 - reported, and the trusted side gives an error
        send({"setup_error": f"{type(exc).__name__}: {exc}"[:500]})
        return
    send({"ready": True})
    for index, path in enumerate(job["files"]):
        loader = loaders[index >= job["kubectl_from"]]
        try:
            text = encode({"file": index, "documents": _read_file(path, loader, job)})
        except _RefusedError as exc:
            send({"file": index, "error": str(exc)[:500]})
            continue
        except RecursionError:
            send({"file": index, "error": "nested too deeply to read"})
            continue
        except Exception as exc:  # noqa: BLE001 - a parse error is the file's, and reported
            send({"file": index, "error": _describe(exc)})
            continue
        if len(text) > job["max_chars"] * 2:
            send({"file": index, "error": "the documents are too large once written out"})
            continue
        line = ("\n" + nonce + text + "\n").encode("utf-8")
        while line:
            line = line[os.write(out, line) :]


def _read_file(path: str, loader: "Any", job: "dict[str, Any]") -> "list[object]":
    import yaml  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415 - on the job's path

    fd = os.open(path, os.O_RDONLY)
    try:
        raw = _read_all(fd)
    finally:
        os.close(fd)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _RefusedError(f"not UTF-8 text (byte {exc.start})") from None
    text = text.removeprefix("\ufeff")
    _check_separators(text)
    _check_events(yaml.parse(text, Loader=loader), job)
    documents = []
    for document in yaml.load_all(text, Loader=loader):
        if document is not None:
            documents.append(_plain(document))
    return documents


def _check_separators(text: str) -> None:
    """Refuse a line that starts with ``---`` and goes on with more than a comment: kubectl
    cuts documents at such lines before any YAML is read, and refuses the whole file for it,
    where YAML reads ``--- {kind: ...}`` as a document."""
    for number, line in enumerate(text.split("\n"), 1):
        rest = line[3:].strip()
        if line.startswith("---") and rest and not rest.startswith("#"):
            raise _RefusedError(
                f"line {number}: {rest[:40]!r} follows ---, which kubectl refuses (a line that "
                "starts with --- separates documents): put it on a line of its own"
            )


def _check_events(events: "Any", job: "dict[str, Any]") -> None:
    """Refuse, from the event stream alone, what would be too large or too deep once built."""
    import yaml  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    max_depth, max_nodes, max_chars = job["max_depth"], job["max_nodes"], job["max_chars"]
    anchors: dict[str, tuple[int, int, int]] = {}  # anchor: (nodes, chars, height)
    stack: list[list[Any]] = []  # [start nodes, start chars, anchor, deepest level reached]
    nodes = chars = documents = 0

    def reached(level: int) -> None:
        if level > max_depth:
            raise _RefusedError(f"nested more than {max_depth} deep")
        if stack and level > stack[-1][3]:
            stack[-1][3] = level

    for event in events:
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > job["max_documents"]:
                raise _RefusedError(f"more than {job['max_documents']} documents")
        elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            nodes += 1
            level = len(stack) + 1
            reached(level)
            stack.append([nodes - 1, chars, event.anchor, level])
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            start_nodes, start_chars, anchor, deepest = stack.pop()
            level = len(stack) + 1
            if anchor is not None:
                anchors[anchor] = (nodes - start_nodes, chars - start_chars, deepest - level + 1)
            reached(deepest)
        elif isinstance(event, yaml.ScalarEvent):
            nodes += 1
            chars += len(event.value)
            reached(len(stack) + 1)
            if event.anchor is not None:
                anchors[event.anchor] = (1, len(event.value), 1)
        elif isinstance(event, yaml.AliasEvent):
            if event.anchor not in anchors:
                raise _RefusedError(f"alias *{event.anchor} refers to an unfinished anchor")
            more_nodes, more_chars, height = anchors[event.anchor]
            nodes += more_nodes
            chars += more_chars
            reached(len(stack) + height)
        if nodes > max_nodes:
            raise _RefusedError(f"more than {max_nodes} nodes once aliases are expanded")
        if chars > max_chars:
            raise _RefusedError(f"more than {max_chars} characters once aliases are expanded")


def _make_loader(*, go_booleans: bool) -> "Any":
    import yaml  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    base = yaml.CSafeLoader if getattr(yaml, "__with_libyaml__", False) else yaml.SafeLoader

    class Loader(base):  # type: ignore[misc,valid-type]
        def construct_mapping(self, node: "Any", deep: bool = False) -> "Any":
            seen = set()
            for key_node, _value in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.tag != _MERGE:
                    key = (key_node.tag, key_node.value)
                    if key in seen:
                        raise _RefusedError(
                            f"key {key_node.value[:80]!r} appears twice in one mapping "
                            f"(line {key_node.start_mark.line + 1})"
                        )
                    seen.add(key)
            return super().construct_mapping(node, deep=deep)

        def flatten_mapping(self, node: "Any") -> None:
            written = {
                (key.tag, key.value)
                for key, _value in node.value
                if isinstance(key, yaml.ScalarNode) and key.tag != _MERGE
            }
            count = sum(1 for key, _value in node.value if key.tag != _MERGE)
            super().flatten_mapping(node)
            for key, _value in node.value[: len(node.value) - count]:
                if isinstance(key, yaml.ScalarNode) and (key.tag, key.value) in written:
                    raise _RefusedError(
                        f"key {key.value[:80]!r} is both written and merged (<<) into one "
                        f"mapping (line {node.start_mark.line + 1}); Kubernetes reads the later "
                        "one: write it once"
                    )

        def resolve(self, kind: "Any", value: str, implicit: "Any") -> str:
            if kind is yaml.ScalarNode and implicit[0]:
                return _TAG + ("merge" if value == "<<" else _go_scalar(value, go_booleans)[0])
            return str(super().resolve(kind, value, implicit))

    def as_text(loader: "Any", node: "Any") -> str:
        return str(loader.construct_scalar(node))

    def as_go(wanted: str) -> "Any":
        def construct(loader: "Any", node: "Any") -> object:
            kind, value = _go_scalar(str(loader.construct_scalar(node)), go_booleans)
            if kind != wanted and not (wanted == "float" and kind == "int"):
                text = f"{node.value[:80]!r} is not read as a {wanted} (line {_line(node)})"
                raise _RefusedError(text)
            return _json_number(value)

        return construct

    Loader.add_constructor("tag:yaml.org,2002:timestamp", as_text)
    Loader.add_constructor("tag:yaml.org,2002:value", as_text)  # a bare "=" is text
    for kind in ("bool", "int", "float"):
        Loader.add_constructor(_TAG + kind, as_go(kind))
    return Loader


def _go_scalar(text: str, go_booleans: bool = True) -> "tuple[str, object]":
    """What go-yaml v2 (``resolve``) makes of the plain scalar ``text``: ``(kind, value)`` with
    kind ``str``, ``bool``, ``null``, ``int`` or ``float``. A timestamp is text, as Kubernetes
    reads it; a number out of Go's range is text too, as go-yaml leaves it. Without
    ``go_booleans``, ``y`` and ``n`` (either case) are text, as PyYAML reads them."""
    if text in _GO_WORDS and (go_booleans or text not in _PYYAML_TEXT):
        return _GO_WORDS[text]
    number: int | float | None = None
    if text[:1] == "." and _GO_DOT_FLOAT.fullmatch(text):
        number = float(text.replace("_", ""))
    elif text[:1] and text[0] in "+-0123456789":
        number = _go_number(text.replace("_", ""))
    if type(number) is int:
        return "int", number
    if number is None or not math.isfinite(number):
        return "str", text
    return "float", number


def _go_number(plain: str) -> "int | float | None":
    """The number Go reads in ``plain`` (a scalar that starts with a sign or a digit, its
    underscores removed): ``ParseInt``, then ``ParseUint`` (which takes no sign), then a float
    written as YAML writes one; None when it is none of these."""
    value = _go_int(plain) if _GO_INT.fullmatch(plain) else None
    if value is not None and (
        -(1 << 63) <= value < 1 << 63 or (0 <= value < 1 << 64 and plain[0] != "+")
    ):
        return value
    return float(plain) if _GO_FLOAT.fullmatch(plain) else None


def _go_int(plain: str) -> "int | None":
    """The value of a scalar that :data:`_GO_INT` matches, read as Go reads it; None when it
    has too many digits to be read (and so is out of Go's range)."""
    sign = -1 if plain[0] == "-" else 1
    digits = plain.lstrip("+-")
    try:
        if len(digits) > 1 and digits[0] == "0":
            base = {"x": 16, "o": 8, "b": 2}.get(digits[1].lower())
            return sign * (int(digits[1:], 8) if base is None else int(digits[2:], base))
        return sign * int(digits)
    except ValueError:  # more digits than Python converts
        return None


def _json_number(value: object) -> object:
    """A float with no fraction as the integer it is: Go writes ``6379.0`` as ``6379`` in the
    JSON it sends, which the API server reads as an integer."""
    if type(value) is float and value.is_integer() and abs(value) < 1e21:
        return int(value)
    return value


def _line(node: "Any") -> int:
    return int(node.start_mark.line) + 1


def _plain(value: "Any") -> object:
    """``value`` as plain JSON data, checked without recursion."""
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is str:
            _text(item)
        elif kind is dict:
            for key in item:
                if type(key) is not str:
                    raise _RefusedError(f"a mapping key is not a string: {str(key)[:80]!r}")
                _text(key)
            pending.extend(item.values())
        elif kind is list:
            pending.extend(item)
        elif kind is float:
            if not math.isfinite(item):
                raise _RefusedError("a number is not finite (.nan or .inf)")
        elif item is not None and kind not in (bool, int):
            raise _RefusedError(f"a {kind.__name__} value is not JSON data")
    return value


def _text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _RefusedError("a string holds a lone surrogate, which is not text") from None


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _describe(exc: BaseException) -> str:
    try:
        return f"{type(exc).__name__}: {exc}"[:500]
    except Exception:  # noqa: BLE001
        return "an error that cannot be described"


if __name__ == "__main__":
    _main()
