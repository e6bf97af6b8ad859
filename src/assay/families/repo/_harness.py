"""The harness that runs a repo task's hidden cases inside the sandbox. Stdlib only.

It runs as ``python -I -S -c`` (no ``site``, no ``sitecustomize`` or ``usercustomize``, no
``PYTHON*`` variables, the working directory not on the import path) with the source of
:mod:`assay.families.code._codec` in front of its own. The project is the job's working directory.
Everything the harness uses is imported before the project's directories are put on
``sys.path``, and they go *after* the standard library: a ``json.py`` or ``os.py`` in the project
shadows nothing. No test runner runs, so a ``conftest.py`` or an edited test changes nothing.

It reads a JSON job from stdin (``nonce``, ``paths``, ``cases``: see
:meth:`assay.families.repo.cases.RepoCase.job`) and writes one ``<nonce><json>`` line per case, in
the job's order, to the original stdout, in the records of :mod:`assay.families.code._runner`
(``value``, ``raised`` or ``refused``); values are encoded. A ``cli`` case runs in a fresh
directory under ``/tmp`` holding its input files; its value is ``{"exit", "stdout", "files"}``,
``files`` holding each file it wrote or changed, and None for each input file it removed. A file
past :data:`MAX_WRITTEN_BYTES`, or standard output past :data:`MAX_STDOUT_CHARS`, is told by its
size and SHA-256 (a file that is not a regular one, by what it is): a wrong output of the same
size must not read like the right one.

The project runs in this process and could forge records; the trusted side reads them as the
code family does (:mod:`assay.families.code.outputs`): a record can only claim an outcome the
project could have produced honestly, and the expected outcomes never come here.
"""

import builtins
import hashlib
import importlib
import io
import json
import os
import stat
import sys
import traceback

TYPE_CHECKING = False
if TYPE_CHECKING:  # the codec's source runs in front of this one in the sandbox
    from typing import Any

    from assay.families.code._codec import decode, encode

MAX_RECORD_CHARS = 1_000_000
MAX_STDOUT_CHARS = 100_000
MAX_WRITTEN_FILES = 50
MAX_WRITTEN_BYTES = 200_000
CASES_DIR = "/tmp/assay-cases"
_type = type
_BUILTIN_EXCEPTIONS = {
    id(value): name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}


def _main() -> None:
    job = json.loads(_read_all(0))
    out = os.dup(1)
    nonce = job["nonce"]
    dump = json.JSONEncoder(allow_nan=False).encode

    def send(text: str) -> None:
        line = ("\n" + nonce + text + "\n").encode()
        while line:
            line = line[os.write(out, line) :]

    sys.stdout = sys.stderr
    sys.dont_write_bytecode = True
    project = os.getcwd()
    for path in job["paths"]:
        sys.path.append(os.path.normpath(os.path.join(project, path)))
    for index, case in enumerate(job["cases"]):
        directory = f"{CASES_DIR}/{index}"
        try:
            value = _run(case, directory)
        except BaseException as exc:  # the project may raise anything, SystemExit included
            send(dump({"id": case["id"], "raised": _kind(exc), "error": _describe(exc)}))
            continue
        finally:
            sys.stdout = sys.stderr
            _chdir(project)
        try:
            text = dump({"id": case["id"], "value": encode(value)})
        except BaseException as exc:  # not encodable: always-equal objects and the like
            send(dump({"id": case["id"], "refused": _describe(exc)}))
            continue
        if len(text) > MAX_RECORD_CHARS:
            text = dump({"id": case["id"], "refused": f"longer than {MAX_RECORD_CHARS} chars"})
        send(text)


def _run(case: "dict[str, Any]", directory: str) -> object:
    os.makedirs(directory)
    _chdir(directory)
    if "call" in case:
        function = _target(case["call"])
        args: Any = decode(case["args"])
        return function(*args)
    return _run_cli(case, directory)


def _run_cli(case: "dict[str, Any]", directory: str) -> object:
    inputs = {}
    for name, text in case["files"].items():
        path = os.path.join(directory, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = text.encode()
        with open(path, "wb") as handle:
            handle.write(data)
        inputs[name] = data
    main = _target(case["cli"])
    captured = io.StringIO()
    sys.argv = [case["cli"].split(":")[0], *case["argv"]]
    sys.stdin = io.TextIOWrapper(io.BytesIO(case["stdin"].encode()), encoding="utf-8")
    sys.stdout = captured
    try:
        code = main(list(case["argv"]))
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.stdout = sys.stderr
    exit_code = code if _type(code) is int else (0 if code is None else 1)
    stdout = captured.getvalue()
    if _type(stdout) is not str:
        raise TypeError("standard output was replaced")
    if len(stdout) > MAX_STDOUT_CHARS:
        whole = stdout.encode("utf-8", "surrogatepass")
        stdout = stdout[:MAX_STDOUT_CHARS] + f"<{len(stdout)} chars, {_sha256(whole)}>"
    return {"exit": exit_code, "stdout": stdout, "files": _written(directory, inputs)}


def _special(path: str) -> str:
    """What a case left at ``path`` that is no regular file: a symbolic link and what it names
    (as written), a FIFO, a socket, or another kind, each told apart."""
    if os.path.islink(path):
        return f"<symbolic link to {os.readlink(path)[:1000]!r}>"
    mode = os.lstat(path).st_mode
    if stat.S_ISFIFO(mode):
        return "<FIFO>"
    if stat.S_ISSOCK(mode):
        return "<socket>"
    return "<not a regular file>"


def _sha256(data: bytes) -> str:
    return "sha256 " + hashlib.sha256(data).hexdigest()


def _written(directory: str, inputs: "dict[str, bytes]") -> "dict[str, object]":
    """The files the case wrote or changed in its directory, text where it is UTF-8, and None
    for each input file that is no longer there (a ``--dry-run`` that deletes is no dry run)."""
    found: dict[str, object] = {}
    seen = set()
    for root, dirs, names in os.walk(directory):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(root, name)
            relative = os.path.relpath(path, directory)
            seen.add(relative)
            if os.path.islink(path) or not os.path.isfile(path):
                found[relative] = _special(path)
                continue
            data, size, digest = _read_file(path)
            if relative in inputs and _sha256(inputs[relative]) == digest:
                continue
            if len(found) >= MAX_WRITTEN_FILES:
                raise OSError(f"the case wrote more than {MAX_WRITTEN_FILES} files")
            if size > MAX_WRITTEN_BYTES:
                found[relative] = f"<{size} bytes, {digest}>"
                continue
            try:
                found[relative] = data.decode("utf-8")
            except UnicodeDecodeError:
                found[relative] = data
    for name in sorted(set(inputs) - seen):
        if len(found) >= MAX_WRITTEN_FILES:
            raise OSError(f"the case wrote or removed more than {MAX_WRITTEN_FILES} files")
        found[name] = None
    return found


def _read_file(path: str) -> "tuple[bytes, int, str]":
    """The file's first :data:`MAX_WRITTEN_BYTES` and one bytes, its size and its digest."""
    digest = hashlib.sha256()
    head = b""
    size = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
            if len(head) <= MAX_WRITTEN_BYTES:
                head += chunk[: MAX_WRITTEN_BYTES + 1 - len(head)]
    return head, size, "sha256 " + digest.hexdigest()


def _target(spec: str) -> "Any":
    module, name = spec.split(":")
    return getattr(importlib.import_module(module), name)


def _chdir(path: str) -> None:
    try:
        os.chdir(path)
    except OSError:
        os.chdir("/tmp")


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _kind(exc: BaseException) -> "dict[str, object]":
    """The raised class's name and its builtin bases, as names; no object leaves here."""
    try:
        kind = _type(exc)
        name = str(kind.__name__)[:200]
        bases = [_BUILTIN_EXCEPTIONS[id(c)] for c in kind.__mro__ if id(c) in _BUILTIN_EXCEPTIONS]
    except BaseException:
        return {"type": "?", "builtins": []}
    return {"type": name, "builtins": bases}


def _describe(exc: BaseException) -> str:
    try:
        return "".join(traceback.format_exception_only(_type(exc), exc)).strip()[-500:]
    except BaseException:
        return "an exception that cannot be described"


if __name__ == "__main__":
    _main()
