"""The harness of a legacy verifier. Stdlib only; ``python -I -S -c``, the codec's source first.

A legacy verifier is an imported benchmark's own check, ``check(candidate)`` (HumanEval's
``test``), kept where it could not be turned into hidden cases. It runs here *together with the
candidate*, as the benchmark's harness ran it, so the candidate can tamper with it: such a task
is exploitable by construction, and the audit quarantines it. Two things are still done: every
value the candidate returns is rebuilt from its encoding (:mod:`assay.families.code._codec`)
before the check sees it, so objects that compare equal to anything or subclasses of the builtin
types never reach the check's ``==`` (whether the check calls ``candidate`` or the function by
its name); and ``SystemExit`` from the candidate fails the check.

It reads a JSON job from stdin (function, entrypoint, the check's file name, a nonce, package
directories), loads the candidate as module ``solution``, runs the check's file (for HumanEval:
the prompt, whose helpers the check may call, then the test) in a namespace of its own, puts the
candidate's names over the file's (as the benchmark's program had them: prompt, completion,
check), seeds ``random`` with 0, calls ``check(candidate)`` and writes one ``<nonce><json>`` line:
``{"passed": true}`` or ``{"failed": text}``.
"""

import json
import os
import random
import sys
import traceback

TYPE_CHECKING = False
if TYPE_CHECKING:  # keeps typing out of the sandbox's start-up; the codec's source runs first
    from typing import Any

    from assay.families.code._codec import decode, encode


def _main() -> None:
    job = json.loads(_read_all(0))
    out = os.dup(1)
    nonce = job["nonce"]
    dump = json.JSONEncoder().encode

    def emit(record: "dict[str, object]") -> None:
        line = ("\n" + nonce + dump(record) + "\n").encode()
        while line:
            line = line[os.write(out, line) :]

    sys.stdout = sys.stderr
    cwd = os.getcwd()  # noqa: PTH109 - no pathlib in here
    sys.path.extend(job.get("path", ()))
    sys.path.append(cwd)
    try:
        module = _load(cwd + "/" + job["entrypoint"])
        function = getattr(module, job["function"])
    except BaseException as exc:  # noqa: BLE001 - the candidate may raise anything
        emit({"failed": "the solution did not load: " + _describe(exc)})
        return

    def candidate(*args: "Any", **kwargs: "Any") -> "Any":
        try:
            returned = function(*args, **kwargs)
        except SystemExit as exc:
            raise RuntimeError("the candidate called sys.exit") from exc
        return decode(encode(returned))

    try:
        namespace: dict[str, Any] = {"__name__": "assay_legacy_check"}
        exec(compile(_read_file(cwd + "/" + job["check"]), job["check"], "exec"), namespace)  # noqa: S102 - the benchmark's check, sandboxed
        check = namespace["check"]
        # The candidate's names over the file's (its prompt's helpers), as the benchmark's
        # program had them: prompt, then completion, then the check.
        namespace.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
        # and the function by its own name is the candidate too: a check (or a helper of it)
        # that calls it so gets rebuilt values as well (HumanEval/33 calls sort_third)
        namespace[job["function"]] = candidate
        random.seed(0)
        check(candidate)
    except BaseException as exc:  # noqa: BLE001 - any failure of the check is a fail
        emit({"failed": _describe(exc)})
        return
    emit({"passed": True})


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _read_file(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        return _read_all(fd)
    finally:
        os.close(fd)


def _load(path: str) -> "Any":
    module = type(sys)("solution")
    module.__file__ = path
    sys.modules["solution"] = module
    exec(compile(_read_file(path), path, "exec"), module.__dict__)  # noqa: S102 - the candidate
    return module


def _describe(exc: BaseException) -> str:
    try:
        lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
        return "".join(lines[-3:]).strip()[-500:]
    except BaseException:  # noqa: BLE001 - an exception whose text itself fails
        return "an exception that cannot be described"


if __name__ == "__main__":
    _main()
