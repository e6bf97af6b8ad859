"""The harness that runs inside the sandbox. Stdlib only; passed to ``python -I -S -c``.

It reads a JSON job from stdin (function, entrypoint, case inputs, a nonce, the directories of
the packages the task lets the candidate import, and the run's output limit), imports the
candidate, calls it once per case, in the job's order, and writes one ``<nonce><json>`` line per
case to the original stdout, each one of:

- ``{"import_error": text}``: the candidate did not load (the only record then);
- ``{"id": id, "value": plain}``: the call returned;
- ``{"id": id, "raised": {"type": name, "builtins": [name, ...]}, "error": text}``: the call
  raised; ``builtins`` names the builtin exception classes in the raised class's MRO;
- ``{"id": id, "refused": text}``: the call returned something that is not plain data, or not
  within the limits below.

With ``"inputs": "unchanged"`` in the job (the task's ``code.inputs``), a value or exception
record also holds ``"changed": [position, ...]`` when the call left arguments other than they
were: each argument's encoding (:func:`encode`, keys sorted) is taken before the call and again
after it, and the two texts are compared, so no object of the candidate's is asked whether it
is equal. An argument that can no longer be encoded (it now holds an object of the candidate's,
or itself) has changed. With ``"inputs": "unshared"``, a value record also holds
``"shared": true`` when the result holds a list, dict, set or bytearray that is part of an
argument (compared by identity). Without the setting neither check costs anything.

Once its lines alone are longer than the output limit, it calls no more cases: the sandbox keeps
only the first bytes of stdout up to that limit and marks the rest cut off, so no line after
that point would be read (the verdict is the same, and a flood of long answers costs one).

Values are converted to plain JSON data here only to give a clear error for unplain results; the
trusted side re-parses the text and decides, so nothing here needs to be trusted. Expected outputs
are never sent here. With ``"encoded": true`` in the job (case files of format 4) arguments are
decoded and results encoded by :mod:`assay.families.code._codec`, whose source runs in front of
this one: tuples, sets and the like keep their type.
"""

import builtins
import json
import math
import os
import sys
import traceback

TYPE_CHECKING = False
if TYPE_CHECKING:  # keeps typing out of the sandbox's start-up; the codec's source runs first
    from typing import Any

    from assay.families.code._codec import decode, encode


# The trusted side's bounds (assay.families.code.records), repeated: the harness imports nothing.
MAX_RECORD_CHARS = 1_000_000
MAX_DEPTH = 100
# Taken before the candidate loads, so that its patches of builtins do not reach them.
_type = type
_BUILTIN_EXCEPTIONS = {
    id(value): name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}


_NUMBERS = {int, bool, type(None)}
_TEXT = {str}


class _TooLongError(Exception):
    """The value's record would be longer than :data:`MAX_RECORD_CHARS` whatever its text."""


def _plain_list(value: "Any", depth: int) -> "list[object]":
    """A list or tuple as plain data; one whose items are all of one simple kind is checked
    at once, the others item by item."""
    kinds = set(map(_type, value))
    if kinds <= _NUMBERS:
        return list(value)
    if kinds == _TEXT:
        # its JSON is at least every string quoted, with a comma and a space between them
        if sum(map(len, value)) + 4 * len(value) > MAX_RECORD_CHARS:
            raise _TooLongError
        "".join(value).encode()  # a lone surrogate in any of them: UnicodeEncodeError
        return list(value)
    return [_plain(item, depth + 1) for item in value]


def _plain(value: "Any", depth: int = 0) -> object:
    kind = _type(value)
    if kind is str:
        value.encode()  # a lone surrogate is not text: UnicodeEncodeError
        return value
    if value is None or kind in (bool, int):
        return value
    if kind is float:
        if not math.isfinite(value):
            raise TypeError("float is not finite")
        return value
    if kind in (list, tuple, dict) and depth >= MAX_DEPTH:
        raise TypeError(f"nested more than {MAX_DEPTH} deep")
    if kind in (list, tuple):
        return _plain_list(value, depth)
    if kind is dict:
        if any(_type(key) is not str for key in value):
            raise TypeError("dict keys must be str")
        for key in value:
            key.encode()
        return {key: _plain(item, depth + 1) for key, item in value.items()}
    raise TypeError(
        f"{kind.__name__} is not plain data (use int, float, str, bool, None, list, dict)"
    )


def _encoded(value: "Any") -> object:
    """``value`` encoded, within twice the depth plain data may have (a tag adds a level)."""
    data = encode(value)
    pending: list[tuple[Any, int]] = [(data, 0)]
    while pending:
        item, depth = pending.pop()
        if _type(item) in (list, dict):
            if depth >= 2 * MAX_DEPTH:
                raise TypeError(f"nested more than {MAX_DEPTH} deep")
            children = item.values() if _type(item) is dict else item
            pending.extend((child, depth + 1) for child in children)
    return data


def _main() -> None:
    job = json.loads(_read_all(0))
    out = os.dup(1)
    nonce = job["nonce"]
    dump = json.JSONEncoder(allow_nan=False).encode  # one encoder for every record
    limit = job.get("output") or 0
    written = [0]  # bytes of records written to stdout, which holds at least as many

    def send(text: str) -> None:
        line = memoryview(("\n" + nonce + text + "\n").encode())
        written[0] += len(line)
        while line:  # a view: a long record is not copied again after each partial write
            line = line[os.write(out, line) :]

    def emit(record: dict[str, object]) -> None:
        send(dump(record))

    sys.stdout = sys.stderr
    cwd = os.getcwd()
    sys.path.extend(job.get("path", ()))  # the task's packages; the interpreter adds none (-S)
    sys.path.append(cwd)
    encoded = job.get("encoded", False)
    result = _encoded if encoded else _plain
    inputs = job.get("inputs", "any")
    try:
        function = _load(cwd + "/" + job["entrypoint"], job["function"])
    except BaseException as exc:  # the candidate may raise anything, SystemExit included
        emit({"import_error": _describe(exc)})
        return
    for case in job["cases"]:
        if limit and written[0] > limit:
            return  # stdout is past the run's output limit: no record after this one is read
        args: Any = ()
        before: list[str | None] | None = None
        try:
            # Each case's arguments are fresh objects from the job's JSON: nothing to copy.
            args = decode(case["args"]) if encoded else case["args"]
            if inputs != "any":
                before = _forms(args)
            returned = function(*args)
        except BaseException as exc:
            raised = {"id": case["id"], "raised": _kind(exc), "error": _describe(exc)}
            emit(_checked(raised, args, before, inputs))
            continue
        try:
            record = {"id": case["id"], "value": result(returned)}
            text = dump(_checked(record, args, before, inputs, returned))
        except _TooLongError:
            text = ""
        except BaseException as exc:  # unplain, or an int too long for a str
            emit({"id": case["id"], "refused": _describe(exc)})
            continue
        if not text or len(text) > MAX_RECORD_CHARS:
            emit({"id": case["id"], "refused": f"longer than {MAX_RECORD_CHARS} characters"})
            continue
        send(text)


_FORM = json.JSONEncoder(sort_keys=True, allow_nan=False).encode
_MUTABLE = {list, dict, set, bytearray}


def _forms(args: "list[Any]") -> "list[str | None]":
    """Each argument's encoding as text, keys sorted (dicts compare as ``==`` has them); None
    where it cannot be encoded."""
    forms: list[str | None] = []
    for arg in args:
        try:
            forms.append(_FORM(encode(arg)))
        except BaseException:  # an object of the candidate's, or a value that holds itself
            forms.append(None)
    return forms


def _checked(
    record: "dict[str, object]",
    args: "list[Any]",
    before: "list[str | None] | None",
    inputs: str,
    returned: object = None,
) -> "dict[str, object]":
    """``record``, with what the call did to its arguments where the job asks (``before``
    holds their forms from before the call): the positions of those it changed, and whether
    the value it returned holds a part of them."""
    if before is None:
        return record
    after = _forms(args)
    changed = [i for i, form in enumerate(before) if form is None or after[i] != form]
    if changed:
        record["changed"] = changed
    if inputs == "unshared" and "value" in record and _shares(returned, args):
        record["shared"] = True
    return record


def _containers(value: object) -> "set[int]":
    """The ids of the lists, dicts, sets and bytearrays in ``value``, itself included."""
    found: set[int] = set()
    seen: set[int] = set()
    pending = [value]
    while pending:
        item = pending.pop()
        kind = _type(item)
        if kind not in _MUTABLE and kind is not tuple:
            continue
        if id(item) in seen:
            continue
        seen.add(id(item))
        if kind is not tuple:
            found.add(id(item))
        if kind is dict:
            pending.extend(item.values())  # type: ignore[attr-defined]
        elif kind is list or kind is tuple:
            pending.extend(item)  # type: ignore[arg-type]
    return found


def _shares(returned: object, args: "list[Any]") -> bool:
    """Whether the result holds a list, dict, set or bytearray that is part of an argument."""
    return not _containers(returned).isdisjoint(_containers(tuple(args)))


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _load(path: str, name: str) -> "Any":
    """Import the candidate as module ``solution``, as ``import solution`` would, minus the
    import system's search: the file is known, and there is no bytecode cache to write."""
    fd = os.open(path, os.O_RDONLY)
    try:
        source = _read_all(fd)
    finally:
        os.close(fd)
    module = type(sys)("solution")
    module.__file__ = path
    sys.modules["solution"] = module
    exec(compile(source, path, "exec"), module.__dict__)  # noqa: S102 - the candidate
    return getattr(module, name)


def _kind(exc: BaseException) -> dict[str, object]:
    """The raised class's name and its builtin bases, as names; no object leaves here."""
    try:
        kind = _type(exc)
        name = str(kind.__name__)[:200]
        mro = list(kind.__mro__)
        bases = [_BUILTIN_EXCEPTIONS[id(c)] for c in mro if id(c) in _BUILTIN_EXCEPTIONS]
    except BaseException:
        return {"type": "?", "builtins": []}
    return {"type": name, "builtins": bases}


def _describe(exc: BaseException) -> str:
    try:
        lines = traceback.format_exception_only(_type(exc), exc)
        return "".join(lines).strip()[-500:]
    except BaseException:
        return "an exception that cannot be described"


if __name__ == "__main__":
    _main()
