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
argument (compared by identity). Without the setting neither check costs anything. With it,
a job that may hold an agent's code also holds ``"source"``: this harness's own text (see
:func:`_afresh`; the audit's batches of a task's own solutions and assay's hacks leave it out).

These two checks are made here, in the candidate's process, so they are built to be out of its
reach (:func:`_argument_checks`): the functions that take the arguments' forms, add the fields
and write the lines hold every function and type they use in their closures, made before the
candidate loads, so that nothing it can rebind (a global of this harness, an attribute of
``json`` or ``os``, a builtin) changes what they report; and an audit hook refuses, from the
candidate's import on, what would reach those closures or this process's memory: frames
(``sys._getframe``, a traceback's, a generator's, and the one a signal handler is given, see
:func:`_frameless`), the collector's object lists and garbage, ``ctypes``, tracing,
``/proc/*/mem``, and starting a program, which would run without the hook (:func:`_childless`).
(A candidate that once rebound ``_forms`` through its caller's frame passed "must not modify
its input" while appending to it.) CPython gives no boundary inside one process, so this is a
bar, not a wall; values are still judged outside. Where ``ctypes`` is already loaded (a pool
worker's job is a fork of a process that uses it), its types read any address without an audit
event, so the harness starts afresh there, from the source the job holds (:func:`_afresh`);
a fresh interpreter is a bar too (code objects can still be made by hand), one more.

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
    received = _read_all(0)
    job = json.loads(received)
    if job.get("source"):  # the inputs are checked, in a job that may hold an agent's code
        _forget_stdin()
        if "_ctypes" in sys.modules:
            _afresh(received, job["source"])  # does not return
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


def _afresh(job: bytes, source: str) -> None:
    """Run this harness again on ``job`` in a fresh interpreter, in place of this process.

    Where ``_ctypes`` is loaded (a pool worker's job is a fork of a process that uses it),
    its types are within the candidate's reach (``object.__subclasses__()``) and read any
    address without an audit event: a candidate read the nonce out of this process's memory
    and wrote the records itself, without ``"changed"``. An interpreter started anew has
    loaded no ``ctypes``, and the hook keeps it so."""
    held = os.memfd_create("assay-job")
    os.write(held, job)  # a memfd takes it all at once
    os.lseek(held, 0, os.SEEK_SET)
    os.dup2(held, 0)
    os.close(held)
    os.execv(sys.executable, [sys.executable, "-I", "-S", "-c", source])  # noqa: S606 - no shell


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
            # a program started anew has no hook: it reads this process's memory, the nonce
            # in it, or links it under a name that is not "mem" (see _childless)
            "os.exec",
            "os.posix_spawn",
            "os.system",
            "subprocess.Popen",
        }
        starts_with, base_name, refused_import = (
            text_type.startswith,
            os.path.basename,
            _refused_module,
        )
        _childless()
        route = _frameless()  # from here until the hook is added, nothing may be imported

        def hook(event: str, arguments: "tuple[Any, ...]") -> None:
            if starts_with(event, "assay.harness."):
                route(event, arguments)
            elif event in refused or starts_with(event, "ctypes."):
                raise ValueError(f"{event} is refused while the inputs are checked")
            elif event == "object.__getattr__" and arguments[1] in frames:
                raise ValueError(f"{arguments[1]} is refused while the inputs are checked")
            elif event == "import" and refused_import(arguments[0]):
                raise ImportError(f"{arguments[0]} is refused while the inputs are checked")
            elif event == "open" and kind_of(arguments[0]) is not integer:
                path = arguments[0]
                if kind_of(path) not in (text_type, raw):  # read once here, again by open
                    raise PermissionError("open a path given as str or bytes")
                if base_name(path) in ("mem", b"mem", "pagemap", b"pagemap"):
                    raise PermissionError("a process's memory is refused to the candidate")

        sys.addaudithook(hook)

    return _Checks(forms, send, guard)


def _frameless() -> "Any":
    """No frame for the candidate where no audit event is raised; returns the hook's part.

    Any frame leads to the harness's: its ``f_back`` (which no audit event covers) is the
    caller's, up to ``_main`` and its locals. Two functions hand frames out unaudited:

    - ``_signal.signal``: a handler is called with the frame the signal interrupts, the
      candidate's own (a candidate that signalled itself in its call reached the checks that
      way, and passed "must not modify its input" while sorting it in place);
    - ``gc.set_debug(gc.DEBUG_SAVEALL)``: what the collector finds unreachable goes to
      ``gc.garbage`` instead of away, frames of finished calls among it (the same, through a
      traceback left in a cycle).

    Each is replaced by a function that only raises an audit event: the hook runs the real one,
    which only the hook holds, with a handler wrapped to be given ``None`` for the frame, and
    refuses ``DEBUG_SAVEALL``. ``_imp.create_builtin`` and ``create_dynamic`` go through the
    hook too, which refuses to make ``_signal``, ``gc`` or ``_imp`` anew (a fresh module, built
    in or loaded from ``libpython``, has the real functions again).
    """
    import _imp  # noqa: PLC0415 - all three are loaded at start-up; only this function needs them
    import _signal  # type: ignore[import-not-found]  # noqa: PLC0415 - typeshed has no stub
    import gc  # noqa: PLC0415

    real_signal, real_set_debug, save_all = _signal.signal, gc.set_debug, gc.DEBUG_SAVEALL
    audit, is_callable, kind_of, text_type, integer = sys.audit, callable, type, str, int
    attribute, is_refused = getattr, _refused_module  # held here: the candidate may rebind both
    makers: dict[str, Any] = {
        "assay.harness.create_builtin": _imp.create_builtin,
        "assay.harness.create_dynamic": _imp.create_dynamic,
    }

    class Spec:
        """What a module maker reads of a spec, read once: a spec of the candidate's could
        answer ``name`` with one module when it is checked and another when it is made."""

        __slots__ = ("name", "origin")
        name: "Any"
        origin: "Any"

    def frameless(handler: "Any") -> "Any":
        return lambda number, frame: handler(number, None)

    def route(event: str, arguments: "tuple[Any, ...]") -> None:
        if event == "assay.harness.signal":
            number, handler, box = arguments
            box.append(real_signal(number, frameless(handler) if is_callable(handler) else handler))
            return
        if event == "assay.harness.set_debug":
            [flags] = arguments
            if kind_of(flags) is not integer or flags & save_all:
                raise ValueError("gc.DEBUG_SAVEALL is refused while the inputs are checked")
            real_set_debug(flags)
            return
        maker = makers.get(event)
        if maker is None:
            raise ValueError(f"{event} is not an event of the harness")
        spec, rest, box = arguments
        copy = Spec()
        copy.name, copy.origin = spec.name, attribute(spec, "origin", None)
        if kind_of(copy.name) is not text_type or is_refused(copy.name.rpartition(".")[2]):
            raise ImportError(f"making {copy.name!r} is refused while the inputs are checked")
        box.append(maker(copy, *rest))

    def signal(number: "Any", handler: "Any") -> "Any":
        box: list[Any] = []
        audit("assay.harness.signal", number, handler, box)
        return box[0]

    def set_debug(flags: "Any") -> None:
        audit("assay.harness.set_debug", flags)

    def create_builtin(spec: "Any") -> "Any":
        box: list[Any] = []
        audit("assay.harness.create_builtin", spec, (), box)
        return box[0]

    def create_dynamic(spec: "Any", *rest: "Any") -> "Any":
        box: list[Any] = []
        audit("assay.harness.create_dynamic", spec, rest, box)
        return box[0]

    _signal.signal, gc.set_debug = signal, set_debug
    _imp.create_builtin, _imp.create_dynamic = create_builtin, create_dynamic
    loaded = sys.modules.get("signal")  # its wrapper of the real function names it
    if loaded is not None and getattr(loaded.signal, "__wrapped__", None) is real_signal:
        del loaded.signal.__wrapped__
    return route


def _childless() -> None:
    """No program started anew from here: it would run without the hook, and where the sandbox
    leaves jobs dumpable it reads this process's memory (``/proc/<pid>/mem``: the nonce is
    there, and with it a candidate writes the records itself, without ``"changed"``), or links
    ``/proc/self/mem`` under another name for this process to open. The hook refuses the
    audited ways (``os.exec*``, ``os.posix_spawn``, ``os.system``, ``subprocess.Popen``); the
    one that raises no event, ``_posixsubprocess.fork_exec``, is taken away (the module is
    loaded here, so that ``subprocess`` imports it without), and the hook refuses to load that
    module anew. A fork keeps the hook, and stays as bound as this one. (Making this process
    not dumpable instead would take ``ctypes``, whose types, once loaded, read any address
    without an audit event.)"""
    import _posixsubprocess  # noqa: PLC0415 - a small extension module, loaded to be disarmed

    real = _posixsubprocess.fork_exec
    for module in list(sys.modules.values()):  # subprocess keeps it as _fork_exec
        names = vars(module) if type(module) is type(sys) else {}
        for name in [name for name, value in names.items() if value is real]:
            names[name] = _no_program


def _no_program(*arguments: object) -> None:
    raise PermissionError("starting a program is refused while the inputs are checked")


def _refused_module(name: str) -> bool:
    """Whether the candidate may not import (or make anew) the module ``name`` while the inputs
    are checked: ``ctypes``, and the modules whose functions :func:`_frameless` and
    :func:`_childless` replaced."""
    return name in ("ctypes", "_ctypes", "_signal", "gc", "_imp", "_posixsubprocess")


def _forget_stdin() -> None:
    """Stdin read to its end, in place of the job: after :func:`_afresh` it is a memfd, which
    the candidate would seek back on and read again, nonce and all."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)


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
