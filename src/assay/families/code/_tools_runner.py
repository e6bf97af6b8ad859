"""Runs one agent command inside the sandbox and reports its output and the workspace's files.

Stdlib only: it runs as ``python -I -S -c`` in a sandbox job. It reads a JSON job on stdin
(``nonce``, ``command``, ``timeout_s``, ``head``, ``tail``, ``max_files``, ``max_file_bytes``,
``max_total_bytes``, and ``path``: directories for ``PYTHONPATH``, the task's packages), runs
``/bin/sh -c COMMAND`` in the working directory with ``python`` on the PATH, its output (stdout
and stderr together) in a private file under ``/tmp``, and then writes exactly one framed record
on stdout: the nonce, a newline, one JSON object, a newline, the nonce, a newline. File contents
and output travel base64-encoded. Nothing here is trusted by the host: it re-checks every path,
size and count it reads back.
"""

import base64
import contextlib
import json
import os
import signal
import subprocess
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # keeps typing out of the sandbox's start-up
    from typing import IO, Any

BIN_DIR = "/tmp/.assay-bin"
OUTPUT = "/tmp/.assay-output"
SKIPPED_DIRS = ("__pycache__",)
MAX_SKIPPED = 100


def _main() -> None:
    job: dict[str, Any] = json.loads(sys.stdin.buffer.read())
    env = prepare_env(job["path"])
    with open(OUTPUT, "w+b") as out:
        exit_code, timed_out = run(job["command"], job["timeout_s"], out, env)
        size = out.seek(0, 2)
        out.seek(0)
        head = out.read(job["head"])
        tail = b""
        if size > job["head"]:
            out.seek(max(job["head"], size - job["tail"]))
            tail = out.read(job["tail"])
    files, skipped = collect(job["max_files"], job["max_file_bytes"], job["max_total_bytes"])
    record = {
        "exit_code": exit_code,
        "timed_out": timed_out,
        "output_size": size,
        "head": encode(head),
        "tail": encode(tail),
        "files": files,
        "skipped": skipped,
    }
    nonce = job["nonce"]
    sys.stdout.write(nonce + "\n" + json.dumps(record) + "\n" + nonce + "\n")
    sys.stdout.flush()


def prepare_env(path: "list[str]") -> "dict[str, str]":
    os.makedirs(BIN_DIR, exist_ok=True)
    link = os.path.join(BIN_DIR, "python")
    if not os.path.lexists(link):
        os.symlink(sys.executable, link)
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    env["PATH"] = BIN_DIR + ":" + os.environ.get("PATH", "/usr/bin:/bin")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if path:
        env["PYTHONPATH"] = ":".join(path)
    return env


def run(
    command: str, timeout_s: float, out: "IO[bytes]", env: "dict[str, str]"
) -> "tuple[int | None, bool]":
    """Run the command in its own process group; kill the group when it ends or times out."""
    proc = subprocess.Popen(
        ["/bin/sh", "-c", command],
        stdin=subprocess.DEVNULL,
        stdout=out,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )
    timed_out = False
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return (None if timed_out else proc.returncode), timed_out


def collect(
    max_files: int, max_file_bytes: int, max_total_bytes: int
) -> "tuple[dict[str, str], list[list[str]]]":
    """Every regular file under the working directory, within the bounds; the rest by name."""
    files: dict[str, str] = {}
    skipped: list[list[str]] = []
    total = 0
    for root, dirs, names in os.walk(".", followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in sorted(names):
            path = os.path.normpath(os.path.join(root, name))
            if os.path.islink(path) or not os.path.isfile(path):
                skipped.append([path, "not a regular file"])
                continue
            with open(path, "rb") as handle:
                data = handle.read(max_file_bytes + 1)
            if len(data) > max_file_bytes:
                skipped.append([path, "file too large"])
                continue
            if len(files) >= max_files:
                skipped.append([path, "too many files"])
                continue
            if total + len(data) > max_total_bytes:
                skipped.append([path, "workspace too large"])
                continue
            total += len(data)
            files[path] = encode(data)
    return files, skipped[:MAX_SKIPPED]


def encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


if __name__ == "__main__":
    _main()
