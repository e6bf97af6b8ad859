"""Isolation on every backend: what untrusted code must not be able to do, checked for real."""

from __future__ import annotations

import hashlib
import os
import socket
import time
from pathlib import Path

import pytest

from assay.errors import SandboxUnavailableError
from assay.sandbox import BubblewrapSandbox, ExecResult, PoolSandbox, Sandbox
from assay.tasks import Limits
from tests.sandbox.attacks._support import job_cgroups, job_dirs, lingering

SHORT = Limits(timeout_s=5, memory_mb=256)


def py(sandbox: Sandbox, code: str, limits: Limits = SHORT, **files: bytes) -> ExecResult:
    return sandbox.run([sandbox.python, "-I", "-S", "-c", code], files=files, limits=limits)


def test_runs_with_files_in_a_private_workspace(sandbox: Sandbox) -> None:
    result = py(
        sandbox, "import os; print(os.getcwd(), open('in.txt').read())", **{"in.txt": b"hi"}
    )
    assert result.ok
    assert result.stdout.strip() == "/workspace hi"
    assert result.wall_s > 0


def test_large_files_and_stdin_arrive_whole(sandbox: Sandbox) -> None:
    """Several MiB of files and of stdin: more than a pipe holds before the job reads it."""
    files = {"a.bin": os.urandom(3 * 2**20), "sub/dir/b.bin": os.urandom(70_000), "empty": b""}
    stdin = os.urandom(2 * 2**20 + 17)
    code = (
        "import hashlib, os, sys\n"
        "for name in ['a.bin', 'sub/dir/b.bin', 'empty']:\n"
        "    print(name, hashlib.sha256(open(name, 'rb').read()).hexdigest())\n"
        "print('stdin', hashlib.sha256(sys.stdin.buffer.read()).hexdigest())\n"
    )
    result = sandbox.run(
        [sandbox.python, "-I", "-S", "-c", code], files=files, stdin=stdin, limits=SHORT
    )
    assert result.ok, result
    expected = [f"{name} {hashlib.sha256(data).hexdigest()}" for name, data in files.items()]
    expected.append(f"stdin {hashlib.sha256(stdin).hexdigest()}")
    assert result.stdout.splitlines() == expected


def test_no_network(sandbox: Sandbox) -> None:
    code = """
import socket
for target in [("1.1.1.1", 53), ("10.0.0.1", 80)]:
    try:
        socket.create_connection(target, timeout=1)
        print("CONNECTED", target)
    except OSError as exc:
        print("blocked", exc.errno)
try:
    socket.getaddrinfo("pypi.org", 443)
    print("RESOLVED")
except OSError:
    print("no dns")
"""
    result = py(sandbox, code)
    assert result.ok, result.stderr
    assert "CONNECTED" not in result.stdout
    assert "RESOLVED" not in result.stdout
    assert result.stdout.count("blocked") == 2


def test_host_loopback_is_not_reachable(sandbox: Sandbox) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    try:
        code = (
            "import socket\ntry:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=1); print('CONNECTED')\n"
            "except OSError: print('blocked')"
        )
        result = py(sandbox, code)
    finally:
        server.close()
    assert result.stdout.strip() == "blocked"


def test_no_writes_outside_the_workspace(sandbox: Sandbox, tmp_path: Path) -> None:
    target = tmp_path / "escape.txt"
    code = f"""
import os
for path in ["/usr/escape", "/etc/escape", "/escape", {str(target)!r}, "/root/escape"]:
    try:
        with open(path, "w") as handle:
            handle.write("x")
        print("WROTE", path)
    except OSError:
        print("denied")
open("/workspace/ok.txt", "w").write("fine")
open("/tmp/ok.txt", "w").write("fine")
"""
    result = py(sandbox, code)
    assert result.ok, result.stderr
    assert "WROTE" not in result.stdout
    assert not target.exists()
    assert not Path("/usr/escape").exists()


def test_host_files_and_environment_are_hidden(sandbox: Sandbox, tmp_path: Path) -> None:
    secret = tmp_path / "hidden" / "cases.json"
    secret.parent.mkdir()
    secret.write_text('{"expected": 42}')
    os.environ["ASSAY_TEST_SECRET"] = "s3cret"  # noqa: S105 - a planted secret to look for
    try:
        code = f"""
import os
print(sorted(os.environ))
for path in [{str(secret)!r}, "/etc/shadow", {str(Path.cwd())!r}]:
    print(path, os.path.exists(path))
"""
        result = py(sandbox, code)
    finally:
        del os.environ["ASSAY_TEST_SECRET"]
    assert result.ok, result.stderr
    assert "ASSAY_TEST_SECRET" not in result.stdout
    assert "True" not in result.stdout


def test_timeout_kills_grandchildren(sandbox: Sandbox, tmp_path: Path) -> None:
    marker = "assay-grandchild-marker-7431"
    code = f"""
import os, subprocess, time
subprocess.Popen(["sh", "-c", "sleep 30; echo {marker}"], start_new_session=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(30)
    os._exit(0)
time.sleep(30)
"""
    started = time.monotonic()
    result = py(sandbox, code, Limits(timeout_s=1, memory_mb=256))
    assert result.timed_out
    assert time.monotonic() - started < 10
    time.sleep(0.2)
    leftovers = [
        entry.name
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit() and marker.encode() in _cmdline(entry.name)
    ]
    assert leftovers == []


def _cmdline(pid: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_memory_limit_holds(sandbox: Sandbox) -> None:
    code = (
        "blob = bytearray(400 * 2**20); blob[::4096] = b'x' * len(blob[::4096]); print('ALLOCATED')"
    )
    result = py(sandbox, code, Limits(timeout_s=10, memory_mb=128))
    assert "ALLOCATED" not in result.stdout
    assert not result.ok
    assert result.out_of_memory


def test_memory_limit_holds_across_processes(sandbox: Sandbox) -> None:
    code = """
import os, time
children = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        blob = bytearray(60 * 2**20)
        blob[::4096] = b"x" * len(blob[::4096])
        time.sleep(2)  # hold the memory while the siblings take theirs
        os._exit(0)
    children.append(pid)
codes = [os.waitpid(pid, 0)[1] for pid in children]
print("ALL" if all(c == 0 for c in codes) else "SOME KILLED")
"""
    result = py(sandbox, code, Limits(timeout_s=10, memory_mb=128))
    if any("no writable cgroup" in note for note in result.notes):
        pytest.fail(
            f"this host offers no cgroup, so the test cannot show the limit: {result.notes}"
        )
    assert "ALL" not in result.stdout


def test_process_limit_stops_a_fork_bomb(sandbox: Sandbox) -> None:
    code = """
import os, time
started = 0
try:
    for _ in range(500):
        if os.fork() == 0:
            time.sleep(3)
            os._exit(0)
        started += 1
except OSError:
    pass
print(started, flush=True)
os._exit(0)
"""
    result = py(sandbox, code, Limits(timeout_s=8, memory_mb=256, max_processes=32))
    assert result.exit_code == 0, result.stderr
    assert int(result.stdout) < 32


def test_output_is_truncated_and_flagged(sandbox: Sandbox) -> None:
    result = py(sandbox, "print('x' * 10**6)", Limits(timeout_s=5, max_output_kb=8))
    assert result.stdout_truncated
    assert len(result.stdout) == 8 * 1024


def test_file_size_limit(sandbox: Sandbox) -> None:
    code = "open('big', 'wb').write(b'x' * 4 * 2**20); print('WROTE')"
    result = py(sandbox, code, Limits(timeout_s=5, max_file_mb=1))
    assert "WROTE" not in result.stdout
    assert not result.ok


def test_cpu_time_is_measured(sandbox: Sandbox) -> None:
    result = py(sandbox, "sum(range(3 * 10**6))")
    assert result.ok
    assert result.cpu_s > 0.01


def test_nothing_is_left_on_the_host(sandbox: Sandbox) -> None:
    marker = "left-behind-7412"
    before = job_dirs()
    code = (
        "import os, subprocess\n"
        "open('a', 'w').write('x')\n"
        f"subprocess.Popen(['sh', '-c', 'sleep 30 # {marker}'], start_new_session=True)\n"
    )
    py(sandbox, code)
    assert lingering(job_dirs() - before) == []  # another process's go once it is done with them
    # this process's job groups (its pool's workers keep theirs); another process has its own
    # (a killed process may take a while to exit; its group goes once it has)
    assert lingering(group for group in job_cgroups() if group.name.startswith("job-")) == []
    time.sleep(0.1)
    assert [pid for pid in _host_pids() if marker.encode() in _cmdline(pid)] == []
    ours = _job_uids(sandbox)
    assert [pid for pid in _host_pids() if _uid(pid) in ours] == []


def _job_uids(sandbox: Sandbox) -> set[int]:
    """The host uids this process's backend gives its jobs (idle pool workers run as root, or
    as the user); none where jobs run as the user, whom nothing tells apart by uid."""
    identity = sandbox.identity  # type: ignore[attr-defined]
    if isinstance(sandbox, PoolSandbox):
        if sandbox._uids is None:
            return set()
        inside = range(sandbox._uids.first, sandbox._uids.first + sandbox.max_workers)
    else:
        blocks = [lease.first for lease in sandbox._leases]  # type: ignore[attr-defined]
        inside = range(min(blocks), max(blocks) + 256) if blocks else range(0)
    return {identity.host_uid(uid) for uid in inside}


def _host_pids() -> list[str]:
    return [entry.name for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def _uid(pid: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Uid:"):
                return int(line.split()[1])
    except OSError:
        pass
    return -1


def test_missing_bubblewrap_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(SandboxUnavailableError, match="apt-get install bubblewrap"):
        BubblewrapSandbox()
