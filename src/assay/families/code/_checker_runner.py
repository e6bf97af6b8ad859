"""The harness that runs a task's checker inside the sandbox. Stdlib only; ``python -I -S -c``.

A checker is task code, so it runs sandboxed too, and never together with the candidate: this job
holds only the checker's file and plain data (each case's arguments, the candidate's output, the
expected output). It reads a JSON job from stdin (the checker's file name, the cases, a nonce),
loads the checker, calls ``check(args, output, expected)`` once per case, in order, and writes
one ``<nonce><json>`` line per case to the original stdout, each one of:

- ``{"load_error": text}``: the checker did not load or defines no ``check`` (the only record);
- ``{"id": id, "verdict": bool}``: ``check`` returned a bool;
- ``{"id": id, "returned": name}``: ``check`` returned something else, of the type named;
- ``{"id": id, "raised": text}``: ``check`` raised.

The trusted side parses these records as strictly as the candidate's. With ``"encoded": true``
(case files of format 4) the values are decoded first, by :mod:`assay.families.code._codec`,
whose source runs in front of this one.
"""

import json
import os
import sys
import traceback

TYPE_CHECKING = False
if TYPE_CHECKING:  # keeps typing out of the sandbox's start-up; the codec's source runs first
    from typing import Any

    from assay.families.code._codec import decode


def _main() -> None:
    job = json.loads(_read_all(0))
    out = os.dup(1)
    nonce = job["nonce"]
    encode = json.JSONEncoder().encode

    def emit(record: dict[str, object]) -> None:
        line = ("\n" + nonce + encode(record) + "\n").encode()
        while line:
            line = line[os.write(out, line) :]

    sys.stdout = sys.stderr
    try:
        check = _load(os.getcwd() + "/" + job["checker"])  # noqa: PTH109 - no pathlib in here
    except BaseException as exc:  # noqa: BLE001 - any failure to load is the task's to fix
        emit({"load_error": _describe(exc)})
        return
    values = decode if job.get("encoded") else (lambda value: value)
    for case in job["cases"]:
        try:
            verdict = check(values(case["args"]), values(case["output"]), values(case["expected"]))
        except BaseException as exc:  # noqa: BLE001 - reported as the checker's failure
            emit({"id": case["id"], "raised": _describe(exc)})
            continue
        if type(verdict) is bool:
            emit({"id": case["id"], "verdict": verdict})
        else:
            emit({"id": case["id"], "returned": type(verdict).__name__[:200]})


def _load(path: str) -> "Any":
    fd = os.open(path, os.O_RDONLY)
    try:
        source = _read_all(fd)
    finally:
        os.close(fd)
    namespace: dict[str, object] = {"__name__": "assay_checker", "__file__": path}
    exec(compile(source, path, "exec"), namespace)  # noqa: S102 - the task's checker, sandboxed
    check = namespace.get("check")
    if not callable(check):
        raise TypeError("defines no check(args, output, expected)")
    return check


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _describe(exc: BaseException) -> str:
    try:
        return "".join(traceback.format_exception_only(type(exc), exc)).strip()[-500:]
    except BaseException:  # noqa: BLE001 - an exception whose text itself fails
        return "an exception that cannot be described"


if __name__ == "__main__":
    _main()
