"""Shared helpers for the attack suite: running attacks, controls, and looking at the host."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path

from assay.sandbox import ExecResult, Sandbox
from assay.sandbox._cgroups import layout
from assay.tasks import Limits

TOKEN = f"assay-attack-{uuid.uuid4().hex[:12]}"
"""Unique to this test session. Every attack carries it in its argv, so anything it leaves
running can be found on the host afterwards by scanning ``/proc/*/cmdline``."""

QUICK = Limits(timeout_s=5, cpu_s=5, memory_mb=256, max_processes=32, max_file_mb=8)
"""Limits for attacks that are expected to be refused quickly."""

TMP = Path("/tmp")  # noqa: S108 - where a backend would keep job directories on the host
LEFTOVER_GRACE_S = 15.0
"""How long a new job directory or cgroup may take to disappear: a concurrently running test
elsewhere on the host may own it, and its own job ends within its timeout."""


def secret(kind: str) -> str:
    """A fresh planted secret. Never put one into attack code: the code is in the job's argv."""
    return f"s3cr3t-{kind}-{uuid.uuid4().hex}"


def py(
    backend: Sandbox,
    code: str,
    limits: Limits = QUICK,
    files: Mapping[str, bytes] | None = None,
    *,
    sockets: bool = True,
) -> ExecResult:
    """Run Python attack code in the sandbox, isolated mode, no site."""
    source = f"{textwrap.dedent(code)}\n# {TOKEN}\n"
    return backend.run(
        [backend.python, "-I", "-S", "-c", source],
        files=dict(files or {}),
        limits=limits,
        sockets=sockets,
    )


def sh(
    backend: Sandbox,
    script: str,
    limits: Limits = QUICK,
    files: Mapping[str, bytes] | None = None,
) -> ExecResult:
    """Run a shell attack in the sandbox."""
    source = f"{textwrap.dedent(script)}\n: {TOKEN}\n"
    return backend.run(["sh", "-c", source], files=dict(files or {}), limits=limits)


def plain(code: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Control: the same Python attack code as a plain, unsandboxed subprocess of the host."""
    source = f"{textwrap.dedent(code)}\n# {TOKEN}\n"
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", source],
        capture_output=True,
        text=True,
        timeout=30,
        env=dict(os.environ if env is None else env),
        check=False,
    )


def output(result: ExecResult | subprocess.CompletedProcess[str]) -> str:
    """Everything a run printed, stdout and stderr together."""
    return f"{result.stdout}\n{result.stderr}"


def assert_healthy(backend: Sandbox) -> None:
    """A normal job still runs, correctly and promptly, on this backend."""
    started = time.monotonic()
    result = py(backend, "print(6 * 7)", Limits(timeout_s=5, memory_mb=256))
    elapsed = time.monotonic() - started
    assert result.ok, result
    assert result.stdout.strip() == "42"
    assert elapsed < 4, f"a trivial job took {elapsed:.1f}s after the attack"


def host_address() -> str:
    """A non-loopback IPv4 address of this host (the one its default route uses)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("198.51.100.1", 9))  # TEST-NET-2; connecting a UDP socket sends nothing
        address = str(probe.getsockname()[0])
    except OSError:
        address = socket.gethostbyname(socket.gethostname())
    finally:
        probe.close()
    return address


def processes_with(marker: str, grace_s: float = 2.0) -> list[str]:
    """Host processes whose command line contains ``marker``, once ``grace_s`` has passed."""
    needle = marker.encode()
    deadline = time.monotonic() + grace_s
    while True:
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            with contextlib.suppress(OSError):
                cmdline = (entry / "cmdline").read_bytes()
                if needle in cmdline:
                    found.append(f"{entry.name}: {_readable(cmdline)}")
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def descendants(pid: int) -> list[str]:
    """Living (non-zombie) descendants of host process ``pid``."""
    children: dict[int, list[int]] = {}
    states: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            states[int(entry.name)] = fields[0]
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: list[str] = []
    stack = list(children.get(pid, []))
    while stack:
        child = stack.pop()
        stack.extend(children.get(child, []))
        if states.get(child) != "Z":
            with contextlib.suppress(OSError):
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
                found.append(f"{child}: {_readable(cmdline)}")
    return found


def _readable(cmdline: bytes) -> str:
    return repr(cmdline.replace(b"\0", b" ")[:200])


def job_dirs() -> set[Path]:
    """Directories assay made in the host's /tmp for a while (the sandboxes keep a job's files
    on a tmpfs inside them, so none of theirs should be here; the local backend's and the style
    check's are, while they run), but the user's lasting state and the workflow emulators'."""
    return {
        path
        for path in TMP.glob("assay-*")
        if not path.name.startswith("assay-emulator-") and not path.name[6:].isdigit()
    }


def job_cgroups() -> set[Path]:
    """Per-job and per-worker cgroups that this process made, under every hierarchy (v1
    controllers, v2 unified): another assay process on the host has its own."""
    found: set[Path] = set()
    where = layout()
    for parent in where.parents() if where else []:
        for kind in (f"job-{os.getpid()}-*", f"worker-{os.getpid()}-*"):
            found |= set(parent.glob(kind))
    return found


def lingering(new: Iterable[Path], grace_s: float = LEFTOVER_GRACE_S) -> list[Path]:
    """Those of ``new`` still present after ``grace_s``; ones owned by concurrent runs go."""
    waiting = set(new)
    deadline = time.monotonic() + grace_s
    while waiting and time.monotonic() < deadline:
        waiting = {path for path in waiting if path.exists()}
        if waiting:
            time.sleep(0.1)
    return sorted(path for path in waiting if path.exists())


HOST_SCRATCH = ("/tmp", "/workspace", "/dev/shm", "/var/tmp")  # noqa: S108 - checked, not used
"""Where an attack that writes to absolute paths would land if a sandbox shared them."""


def files_marked(marker: str) -> list[Path]:
    """Files or directories named after ``marker`` inside any job directory on the host, or
    directly in the host's own scratch directories."""
    found: list[Path] = []
    for directory in job_dirs():
        with contextlib.suppress(OSError):
            found.extend(path for path in directory.rglob(f"*{marker}*"))
    for scratch in HOST_SCRATCH:
        with contextlib.suppress(OSError):
            found.extend(Path(scratch).glob(f"*{marker}*"))
    return found


def assert_no_job_leftovers(dirs_before: set[Path], groups_before: set[Path]) -> None:
    """No job directory, cgroup or marked process or file is left on the host."""
    assert files_marked(TOKEN) == []
    assert lingering(job_dirs() - dirs_before) == []
    assert lingering(job_cgroups() - groups_before) == []
    assert processes_with(TOKEN) == []
