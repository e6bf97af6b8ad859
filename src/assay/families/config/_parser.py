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
- only YAML's safe tags are constructed (no ``!!python/...``, no application tags); keys must be
  strings and may not repeat; timestamps stay the text they were written as (as Kubernetes
  reads them); binary values, sets, and numbers that are not finite are refused;
- empty documents are skipped, as ``kubectl`` skips them.

It writes one ``<nonce><json>`` line first, ``{"ready": true}`` or ``{"setup_error": text}``,
then one per file: ``{"file": i, "documents": [...]}`` or ``{"file": i, "error": text}``. The
trusted side reads these as hostile text, within its own bounds, and decides; nothing here is
trusted, and no expected result is ever sent here.
"""

import json
import math
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # keeps typing out of the sandbox's start-up
    from typing import Any

_MERGE = "tag:yaml.org,2002:merge"


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
        loader = _make_loader()
    except Exception as exc:  # noqa: BLE001 - reported, and the trusted side gives an error
        send({"setup_error": f"{type(exc).__name__}: {exc}"[:500]})
        return
    send({"ready": True})
    for index, path in enumerate(job["files"]):
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
    _check_events(yaml.parse(text, Loader=loader), job)
    documents = []
    for document in yaml.load_all(text, Loader=loader):
        if document is not None:
            documents.append(_plain(document))
    return documents


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


def _make_loader() -> "Any":
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

    def as_text(loader: "Any", node: "Any") -> str:
        return str(loader.construct_scalar(node))

    Loader.add_constructor("tag:yaml.org,2002:timestamp", as_text)
    Loader.add_constructor("tag:yaml.org,2002:value", as_text)  # a bare "=" is text
    return Loader


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
