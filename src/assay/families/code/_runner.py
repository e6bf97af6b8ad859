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

These two checks are made here, in the candidate's process, so they are built to be out of its
reach (:func:`_argument_checks`): the functions that take the arguments' forms, add the fields
and write the lines hold every function and type they use in their closures, made before the
candidate loads, so that nothing it can rebind (a global of this harness, an attribute of
``json`` or ``os``, a builtin) changes what they report; and an audit hook refuses, from the
candidate's import on, what would reach those closures or this process's memory: frames
(``sys._getframe``, a traceback's, a generator's), the collector's object lists, ``ctypes``,
tracing, and ``/proc/*/mem``. (A candidate that once rebound ``_forms`` through its caller's
frame passed "must not modify its input" while appending to it.) CPython gives no boundary
inside one process, so this is a bar, not a wall; values are still judged outside.

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


def _main() -> None:  # noqa: PLR0912, PLR0915 - one loop over the cases
    job = json.loads(_read_all(0))
    out = os.dup(1)
    nonce = job["nonce"]
    dump = json.JSONEncoder(allow_nan=False).encode  # one encoder for every record
    limit = job.get("output") or 0
    written = [0]  # bytes of records written to stdout, which holds at least as many

    inputs = job.get("inputs", "any")
    checks = _argument_checks(out, nonce) if inputs != "any" else None
    write, view, length = os.write, memoryview, len  # out of reach of the candidate's patches

    def send(text: str) -> None:
        line = view(("\n" + nonce + text + "\n").encode())
        written[0] += length(line)
        while line:  # a view: a long record is not copied again after each partial write
            line = line[write(out, line) :]

    def emit(record: dict[str, object]) -> None:
        send(dump(record))

    sys.stdout = sys.stderr
    cwd = os.getcwd()
    sys.path.extend(job.get("path", ()))  # the task's packages; the interpreter adds none (-S)
    sys.path.append(cwd)
    encoded = job.get("encoded", False)
    result = _encoded if encoded else _plain
    if checks is not None:
        checks.guard()
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
            if checks is not None:
                before = checks.forms(args)
            returned = function(*args)
        except BaseException as exc:
            raised = {"id": case["id"], "raised": _kind(exc), "error": _describe(exc)}
            if checks is None:
                emit(raised)
            else:
                checks.send(dump(raised), args, before)
            continue
        try:
            record = {"id": case["id"], "value": result(returned)}
            text = dump(record)
        except _TooLongError:
            text = ""
        except BaseException as exc:  # unplain, or an int too long for a str
            emit({"id": case["id"], "refused": _describe(exc)})
            continue
        if not text or len(text) > MAX_RECORD_CHARS:
            emit({"id": case["id"], "refused": f"longer than {MAX_RECORD_CHARS} characters"})
            continue
        if checks is None:
            send(text)
        else:
            written[0] += checks.send(text, args, before, returned, inputs == "unshared")


class _Checks:
    """What :func:`_argument_checks` makes: plain attributes holding closures."""

    def __init__(self, forms: "Any", send: "Any", guard: "Any") -> None:
        self.forms, self.send, self.guard = forms, send, guard


def _argument_checks(out: int, nonce: str) -> _Checks:  # noqa: PLR0915 - one closure set
    """The argument checks, made before the candidate loads; every name they use is bound here.

    - ``forms(args)``: each argument's form, a text that two states of it share only when
      ``==`` would hold between them with the same types throughout (dict and set order aside),
      or None where it holds anything but None, bools, ints, floats, text, bytes, bytearrays,
      lists, tuples, dicts, sets and frozensets (exactly those types), or holds itself;
    - ``send(text, args, before, returned=None, unshared=False)``: writes the record ``text``
      (a JSON object) with ``"changed"`` and ``"shared"`` added after its last field (the
      trusted side refuses a record that names a field twice), and returns the bytes written;
    - ``guard()``: installs the audit hook, once the harness needs nothing it refuses.
    """
    kind_of, ident, length, sort = type, id, len, sorted
    none_type, boolean, integer, real, text_type = type(None), bool, int, float, str
    raw, mutable_raw, sequence, fixed, mapping = bytes, bytearray, list, tuple, dict
    collection, frozen = set, frozenset
    integer_text, real_text, text_text = integer.__format__, real.hex, text_type.__repr__
    raw_text, mutable_raw_text = raw.hex, mutable_raw.hex
    join, ends_with, encode_text = text_type.join, text_type.endswith, text_type.encode
    items_of, numbered = mapping.items, enumerate
    write, view = os.write, memoryview
    containers = {sequence, mapping, collection, mutable_raw}
    max_depth = 2 * MAX_DEPTH

    scalars: dict[Any, Any] = {
        none_type: lambda value: "N",
        boolean: lambda value: "T" if value else "F",
        integer: lambda value: "i" + integer_text(value, "x"),
        real: lambda value: "f" + real_text(value),
        text_type: lambda value: "s" + text_text(value),
        raw: lambda value: "b" + raw_text(value),
        mutable_raw: lambda value: "B" + mutable_raw_text(value),
    }
    opening: dict[Any, str] = {
        sequence: "[",
        fixed: "(",
        collection: "{",
        frozen: "F{",
        mapping: "d{",
    }
    in_order: set[Any] = {sequence, fixed}

    def form(value: "Any", depth: int, holding: "set[int]") -> str:
        """``value``'s form: each part's form is self-delimiting, so that two values share a
        form only when they are equal, type for type."""
        kind = kind_of(value)
        scalar = scalars.get(kind)
        if scalar is not None:
            written: str = scalar(value)
            return written
        if kind not in opening or depth > max_depth or ident(value) in holding:
            raise ValueError("not plain data, too deep, or holds itself")
        holding.add(ident(value))
        try:
            if kind is mapping:
                found = [
                    form(key, depth + 1, holding) + ":" + form(item, depth + 1, holding)
                    for key, item in items_of(value)
                ]
            else:
                found = [form(item, depth + 1, holding) for item in value]
        finally:
            holding.discard(ident(value))
        return opening[kind] + join(",", found if kind in in_order else sort(found)) + ";"

    def forms(args: "Any") -> "list[str | None]":
        found: list[str | None] = []
        for arg in args:
            try:
                found.append(form(arg, 0, collection()))
            except BaseException:  # an object of the candidate's, or a value that holds itself
                found.append(None)
        return found

    def parts(value: object) -> "set[int]":
        """The ids of the lists, dicts, sets and bytearrays in ``value``, itself included."""
        seen: set[int] = collection()
        found: set[int] = collection()
        pending: list[Any] = [value]
        while pending:
            item = pending.pop()
            kind = kind_of(item)
            if (kind not in containers and kind is not fixed) or ident(item) in seen:
                continue
            seen.add(ident(item))
            if kind is not fixed:
                found.add(ident(item))
            if kind is mapping:
                pending.extend([pair[1] for pair in items_of(item)])
            elif kind is sequence or kind is fixed:
                pending.extend(item)
        return found

    def send(
        text: str,
        args: "Any",
        before: "list[str | None] | None",
        returned: object = None,
        unshared: bool = False,
    ) -> int:
        added = ""
        if before is not None:
            after = forms(args)
            changed = [
                integer_text(i, "d")
                for i, was in numbered(before)
                if was is None or after[i] != was
            ]
            if changed:
                added += ',"changed":[' + join(",", changed) + "]"
        if unshared:
            try:
                shared = not parts(returned).isdisjoint(parts(fixed(args)))
            except BaseException:  # a result that cannot be walked holds the candidate's
                shared = True
            if shared:
                added += ',"shared":true'
        if added:
            text = text[:-1] + added + "}" if ends_with(text, "}") else ""
        line = view(encode_text("\n" + nonce + text + "\n"))
        size = length(line)
        while line:
            line = line[write(out, line) :]
        return size

    def guard() -> None:
        frames = {"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"}
        refused = {
            "sys._getframe",
            "sys._current_frames",
            "sys._current_exceptions",
            "sys.settrace",
            "sys.setprofile",
            "gc.get_objects",
            "gc.get_referrers",
            "gc.get_referents",
            "os.symlink",
        }
        starts_with, base_name = text_type.startswith, os.path.basename

        def hook(event: str, arguments: "tuple[Any, ...]") -> None:
            if event in refused or starts_with(event, "ctypes."):
                raise ValueError(f"{event} is refused while the inputs are checked")
            if event == "object.__getattr__" and arguments[1] in frames:
                raise ValueError(f"{arguments[1]} is refused while the inputs are checked")
            if event == "import" and arguments[0] in ("ctypes", "_ctypes"):
                raise ImportError("ctypes is refused while the inputs are checked")
            if event == "open" and kind_of(arguments[0]) is not integer:
                path = arguments[0]
                if kind_of(path) not in (text_type, raw):  # read once here, again by open
                    raise PermissionError("open a path given as str or bytes")
                if base_name(path) in ("mem", b"mem", "pagemap", b"pagemap"):
                    raise PermissionError("a process's memory is refused to the candidate")

        sys.addaudithook(hook)

    return _Checks(forms, send, guard)


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
    except BaseException:  # noqa: S110 - its chain's tracebacks may be refused (the audit hook)
        pass
    try:
        return f"{_type(exc).__name__}: {BaseException.__str__(exc)}"[-500:]
    except BaseException:
        return "an exception that cannot be described"


if __name__ == "__main__":
    _main()
