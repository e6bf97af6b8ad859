"""The harness that runs inside the sandbox. Stdlib only; passed to ``python -I -S -c``.

It reads a JSON job from stdin (function, entrypoint, case inputs, a nonce), imports the
candidate, calls it once per case and writes one ``<nonce><json>`` line per case to the original
stdout. Values are converted to plain JSON data here only to give a clear error for unplain
results; the trusted side re-parses the text and decides, so nothing here needs to be trusted.
Expected outputs are never sent here.
"""

import json
import math
import os
import sys
import traceback

TYPE_CHECKING = False
if TYPE_CHECKING:  # keeps typing out of the sandbox's start-up
    from typing import Any


def _plain(value: "Any", depth: int = 0) -> object:
    kind = type(value)
    if depth > 100:
        raise TypeError("nested too deeply")
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        if not math.isfinite(value):
            raise TypeError("float is not finite")
        return value
    if kind in (list, tuple):
        return [_plain(item, depth + 1) for item in value]
    if kind is dict:
        if any(type(key) is not str for key in value):
            raise TypeError("dict keys must be str")
        return {key: _plain(item, depth + 1) for key, item in value.items()}
    raise TypeError(
        f"{kind.__name__} is not plain data (use int, float, str, bool, None, list, dict)"
    )


def _main() -> None:
    job = json.loads(_read_all(0))
    out = os.dup(1)
    nonce = job["nonce"]
    encode = json.JSONEncoder(allow_nan=False).encode  # one encoder for every record

    def send(text: str) -> None:
        line = ("\n" + nonce + text + "\n").encode()
        while line:
            line = line[os.write(out, line) :]

    def emit(record: dict[str, object]) -> None:
        send(encode(record))

    sys.stdout = sys.stderr
    cwd = os.getcwd()
    sys.path.append(cwd)
    try:
        function = _load(cwd + "/" + job["entrypoint"], job["function"])
    except BaseException as exc:  # the candidate may raise anything, SystemExit included
        emit({"import_error": _describe(exc)})
        return
    for case in job["cases"]:
        try:
            # Each case's arguments are fresh objects from the job's JSON: nothing to copy.
            value = _plain(function(*case["args"]))
            text = encode({"id": case["id"], "value": value})
        except BaseException as exc:
            emit({"id": case["id"], "error": _describe(exc)})
            continue
        send(text)


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


def _describe(exc: BaseException) -> str:
    lines = traceback.format_exception_only(type(exc), exc)
    return "".join(lines).strip()[-500:]


if __name__ == "__main__":
    _main()
