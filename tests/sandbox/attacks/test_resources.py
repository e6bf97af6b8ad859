"""Resource exhaustion: processes, memory, disk, time and output stay within the job's limits,
the job ends, the host survives, and the next job runs normally."""

from __future__ import annotations

import resource
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from assay.sandbox import ExecResult, PoolSandbox, Sandbox
from assay.sandbox._process import MAX_OPEN_FILES
from assay.tasks import Limits
from tests.sandbox.attacks._support import (
    TOKEN,
    assert_healthy,
    files_marked,
    job_dirs,
    lingering,
    processes_with,
    py,
    sh,
)

pytestmark = pytest.mark.sandbox

SLACK_S = 3.0
"""How long past its timeout a job may take to be reported, on a loaded host."""


class HostSampler(threading.Thread):
    """Counts, on the host, live processes whose argv holds ``marker``, while a job runs."""

    def __init__(self, marker: str) -> None:
        super().__init__(daemon=True)
        self._needle = marker.encode()
        self._stop_event = threading.Event()
        self.peak = 0

    def run(self) -> None:
        while not self._stop_event.is_set():
            count = 0
            for entry in Path("/proc").iterdir():
                if not entry.name.isdigit():
                    continue
                try:
                    if self._needle in (entry / "cmdline").read_bytes():
                        count += 1
                except OSError:
                    continue
            self.peak = max(self.peak, count)
            time.sleep(0.01)

    def stop(self) -> int:
        self._stop_event.set()
        self.join()
        return self.peak


def timed(run: Callable[[], ExecResult]) -> tuple[ExecResult, float]:
    started = time.monotonic()
    result = run()
    return result, time.monotonic() - started


@pytest.fixture
def host_after(backend: Sandbox) -> Iterator[None]:
    """After the attack: the next job runs promptly and no job directory is left behind."""
    before = job_dirs()
    yield
    assert_healthy(backend)
    assert files_marked(TOKEN) == []
    assert lingering(job_dirs() - before) == []


# --- processes --------------------------------------------------------------------------------


def test_python_fork_bomb(backend: Sandbox, host_after: None) -> None:
    """Every process forks two more, retrying while fork fails, and stays alive. Capped at
    eleven generations (2047 processes) so that a broken backend does not take the host down
    with it; far past the job's limit of 16 either way."""
    marker = f"{TOKEN}-pyfork"
    code = f"""
import os, time
# {marker}
def bomb(depth):
    made, deadline = 0, time.monotonic() + 1.5
    while made < 2 and depth < 10 and time.monotonic() < deadline:
        try:
            pid = os.fork()
        except OSError:
            time.sleep(0.005)
            continue
        if pid == 0:
            bomb(depth + 1)
            time.sleep(2)
            os._exit(0)
        made += 1
if os.fork() == 0:
    bomb(0)
    time.sleep(2)
    os._exit(0)
time.sleep(1)
mine = 0
for entry in os.listdir("/proc"):
    try:
        if entry.isdigit() and b"{marker}" in open(f"/proc/{{entry}}/cmdline", "rb").read():
            mine += 1
    except OSError:
        pass
print("LIVE", mine, flush=True)
os._exit(0)
"""
    limits = Limits(timeout_s=3, memory_mb=256, max_processes=16)
    sampler = HostSampler(marker)
    sampler.start()
    try:
        result, elapsed = timed(lambda: py(backend, code, limits))
    finally:
        peak = sampler.stop()
    assert elapsed < limits.timeout_s + SLACK_S
    assert peak <= limits.max_processes, f"{peak} bomb processes alive at once on the host"
    counts = [int(line.split()[1]) for line in result.stdout.splitlines() if line[:4] == "LIVE"]
    assert counts, result
    assert all(count <= limits.max_processes for count in counts), result.stdout
    assert processes_with(marker) == []


def test_shell_fork_bomb(backend: Sandbox, host_after: None) -> None:
    """The shell classic, b() { b | b & }, with each level waiting for its children so they all
    stay alive, and the same cap of eleven generations."""
    marker = f"{TOKEN}-shfork"
    script = (
        f": {marker}\n"
        'b() { [ "$1" -ge 10 ] && { sleep 2; return; }; b $(($1 + 1)) | b $(($1 + 1)) & wait; }\n'
        "b 0 &\n"
        "while :; do :; done"
    )
    limits = Limits(timeout_s=1, memory_mb=256, max_processes=16)
    sampler = HostSampler(marker)
    sampler.start()
    try:
        result, elapsed = timed(lambda: sh(backend, script, limits))
    finally:
        peak = sampler.stop()
    assert elapsed < limits.timeout_s + SLACK_S
    assert peak <= limits.max_processes, f"{peak} bomb processes alive at once on the host"
    got_going = peak > 2 or "fork" in result.stderr.lower()
    assert got_going, f"the bomb never got going, so the test shows nothing: {result}"
    assert processes_with(marker) == []


def test_limits_cannot_be_raised(backend: Sandbox) -> None:
    """Raising the hard rlimits the sandbox set, for the job or for its parent."""
    code = """
import os, resource
for name in ["RLIMIT_AS", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_CPU", "RLIMIT_NOFILE"]:
    which = getattr(resource, name)
    soft, hard = resource.getrlimit(which)
    if hard == resource.RLIM_INFINITY:
        continue
    try:
        resource.setrlimit(which, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        print("RAISED", name, flush=True)
    except (OSError, ValueError) as exc:
        print("refused", name, exc)
    for pid in (0, os.getppid(), 1):
        try:
            resource.prlimit(pid, which, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            print("RAISED", name, pid, flush=True)
        except (OSError, ValueError) as exc:
            print("refused", name, pid, exc)
try:
    os.nice(-5)
    print("RAISED priority", flush=True)
except OSError as exc:
    print("refused nice", exc)
"""
    result = py(backend, code)
    assert result.exit_code == 0, result
    assert "RAISED" not in result.stdout


def test_every_job_starts_confined(backend: Sandbox) -> None:
    """What a job inherits rather than sets (in the pool, from its worker) is there in every
    job: finite hard limits, no core dumps, no new privileges, a seccomp filter."""
    code = """
import resource
status = dict(line.split(":\t", 1) for line in open("/proc/self/status").read().splitlines()
              if ":\t" in line)
print("nnp", status["NoNewPrivs"].strip(), "seccomp", status["Seccomp"].strip())
for name in ["AS", "NPROC", "FSIZE", "CPU", "NOFILE", "CORE"]:
    print("RLIMIT_" + name, *resource.getrlimit(getattr(resource, "RLIMIT_" + name)))
"""
    limits = Limits(timeout_s=5, memory_mb=256, max_processes=48, max_file_mb=8)
    for _ in range(2):  # and again, on a worker that has run a job
        result = py(backend, code, limits)
        assert result.exit_code == 0, result
        lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
        assert lines["nnp"] == "1 seccomp 2", result.stdout
        soft, hard = (int(n) for n in lines["RLIMIT_CORE"].split())
        assert (soft, hard) == (1, 1)  # 0 would not stop a core piped to a handler
        assert [int(n) for n in lines["RLIMIT_NPROC"].split()] == [48, 48]
        assert [int(n) for n in lines["RLIMIT_FSIZE"].split()] == [8 * 2**20] * 2
        assert [int(n) for n in lines["RLIMIT_NOFILE"].split()] == [MAX_OPEN_FILES] * 2
        for name in ["RLIMIT_AS", "RLIMIT_CPU"]:
            hard = int(lines[name].split()[1])
            assert 0 <= hard != resource.RLIM_INFINITY, (name, hard)


# --- memory -----------------------------------------------------------------------------------

MEMORY_BOMBS = {
    "one-block": """
blob = bytearray(512 * 2**20)
blob[::4096] = b"x" * len(blob[::4096])
""",
    "many-small": """
chunks = []
for _ in range(512):
    chunks.append(bytes(2**20) + b"x")
""",
    "mmap": """
import mmap
area = mmap.mmap(-1, 512 * 2**20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for offset in range(0, len(area), 4096):
    area[offset] = 1
""",
    "threads": """
import threading
held = []
def grab():
    held.append(bytearray(64 * 2**20))
    held[-1][::4096] = b"x" * len(held[-1][::4096])
threads = [threading.Thread(target=grab) for _ in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
assert len(held) == 8
""",
}


@pytest.mark.parametrize("kind", sorted(MEMORY_BOMBS))
def test_memory_bomb_in_one_process(backend: Sandbox, kind: str, host_after: None) -> None:
    limits = Limits(timeout_s=5, memory_mb=128)
    result, elapsed = timed(
        lambda: py(backend, MEMORY_BOMBS[kind] + "\nprint('ALLOCATED')", limits)
    )
    assert "ALLOCATED" not in result.stdout
    assert result.out_of_memory or result.exit_code != 0
    assert not result.ok
    assert elapsed < limits.timeout_s + SLACK_S


def test_memory_bomb_across_processes(backend: Sandbox, host_after: None) -> None:
    """Eight processes each take 32 MiB under a 128 MiB job limit: at no time may more than
    the limit be held by the job as a whole."""
    code = """
import os, time
read_end, write_end = os.pipe()
children = []
for _ in range(8):
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        blob = bytearray(32 * 2**20)
        blob[::4096] = b"x" * len(blob[::4096])
        os.write(write_end, f"{os.getpid()}\\n".encode())
        time.sleep(60)
        os._exit(0)
    children.append(pid)
os.close(write_end)
time.sleep(1.5)
os.set_blocking(read_end, False)
try:
    done = {int(line) for line in os.read(read_end, 65536).split()}
except BlockingIOError:
    done = set()
holding = [pid for pid in children if pid in done and os.waitpid(pid, os.WNOHANG) == (0, 0)]
print("HOLDING", len(holding), flush=True)
os._exit(0)
"""
    limits = Limits(timeout_s=5, memory_mb=128, max_processes=32)
    result = py(backend, code, limits)
    holding = [int(line.split()[1]) for line in result.stdout.splitlines() if "HOLDING" in line]
    assert holding, result
    assert holding[0] * 32 <= limits.memory_mb, f"{holding[0] * 32} MiB held at once"
    assert result.out_of_memory, result


# --- disk -------------------------------------------------------------------------------------

BIG_FILES = {
    "write": "with open(PATH, 'wb') as f:\n    for _ in range(64):\n        f.write(b'x' * 2**20)",
    "sparse-seek": "with open(PATH, 'wb') as f:\n    f.seek(2**30)\n    f.write(b'x')",
    "truncate": "open(PATH, 'wb').close()\nos.truncate(PATH, 2**30)",
    "fallocate": "fd = os.open(PATH, os.O_CREAT | os.O_WRONLY)\nos.posix_fallocate(fd, 0, 2**26)",
    "append": "for _ in range(64):\n    with open(PATH, 'ab') as f:\n        f.write(b'x' * 2**20)",
}


@pytest.mark.parametrize("directory", ["/workspace", "/tmp"])  # noqa: S108 - attack targets
@pytest.mark.parametrize("how", sorted(BIG_FILES))
def test_one_big_file(backend: Sandbox, how: str, directory: str, host_after: None) -> None:
    path = f"{directory}/{TOKEN}-big"
    attack = textwrap.indent(BIG_FILES[how], "    ")
    code = f"""
import os
PATH = {path!r}
try:
{attack}
except OSError as exc:
    print("stopped", exc)
stat = os.stat(PATH)
print("SIZE", stat.st_size, stat.st_blocks * 512, flush=True)
"""
    limits = Limits(timeout_s=5, memory_mb=256, max_file_mb=4)
    result = py(backend, code, limits)
    sizes = [
        int(n) for line in result.stdout.splitlines() if "SIZE" in line for n in line.split()[1:]
    ]
    assert all(size <= limits.max_file_mb * 2**20 for size in sizes), result.stdout


def test_one_big_file_from_the_shell(backend: Sandbox, host_after: None) -> None:
    script = f"""
head -c 64000000 /dev/zero > {TOKEN}-big
dd if=/dev/zero of={TOKEN}-dd bs=1M count=64 2>/dev/null
echo SIZE $(stat -c %s {TOKEN}-big) $(stat -c %s {TOKEN}-dd)
"""
    limits = Limits(timeout_s=5, memory_mb=256, max_file_mb=4)
    result = sh(backend, script, limits)
    sizes = [
        int(n) for line in result.stdout.splitlines() if "SIZE" in line for n in line.split()[1:]
    ]
    assert sizes, result
    assert all(size <= limits.max_file_mb * 2**20 for size in sizes), result.stdout


FILL = """
import os, time
written = 0
deadline = time.monotonic() + 3
chunk = b"x" * 2**20
try:
    for index in range(256):
        with open(f"{directory}/{token}-fill-{{index}}", "wb") as handle:
            for _ in range(4):
                handle.write(chunk)
        written += 4
        if time.monotonic() > deadline:
            break
except OSError as exc:
    print("stopped", exc)
print("WRITTEN_MB", written, flush=True)
"""


@pytest.mark.parametrize("directory", ["/workspace", "/tmp"])  # noqa: S108 - attack targets
def test_many_files_fill_the_disk(backend: Sandbox, directory: str, host_after: None) -> None:
    """1 GiB in 4 MiB files, each within max_file_mb. Nothing in Limits allows a job that much
    disk: what a job can store must be bounded (here, by four times its memory limit), or a few
    jobs fill the host's disk while they run."""
    limits = Limits(timeout_s=5, memory_mb=128, max_file_mb=4)
    result = py(backend, FILL.format(directory=directory, token=TOKEN), limits)
    written = [int(line.split()[1]) for line in result.stdout.splitlines() if "WRITTEN" in line]
    total = written[0] if written else 0
    assert total < 4 * limits.memory_mb, f"the job stored {total} MiB in {directory}"


# --- time -------------------------------------------------------------------------------------

SLEEPERS = {
    "python-busy-loop": ["python", "while True:\n    pass"],
    "python-sleep": ["python", "import time\ntime.sleep(60)"],
    "python-blocking-read": ["python", "import os\nr, w = os.pipe()\nos.read(r, 1)"],
    "python-ignores-signals": [
        "python",
        "import signal, time\n"
        "for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM, signal.SIGXCPU):\n"
        "    signal.signal(s, signal.SIG_IGN)\n"
        "while True:\n    time.sleep(0.01)",
    ],
    "python-stops-itself": ["python", "import os, signal\nos.killpg(0, signal.SIGSTOP)"],
    "shell-sleep": ["sh", "trap '' TERM INT HUP; sleep 60"],
    "shell-busy-loop": ["sh", "while :; do :; done"],
}


@pytest.mark.parametrize("kind", sorted(SLEEPERS))
def test_running_past_the_deadline(backend: Sandbox, kind: str, host_after: None) -> None:
    language, code = SLEEPERS[kind]
    limits = Limits(timeout_s=1, cpu_s=30, memory_mb=256)
    run = py if language == "python" else sh
    result, elapsed = timed(lambda: run(backend, code, limits))
    assert result.timed_out, result
    assert not result.ok
    assert result.wall_s < limits.timeout_s + SLACK_S
    assert elapsed < limits.timeout_s + SLACK_S


# --- output -----------------------------------------------------------------------------------


def test_finite_output_flood(backend: Sandbox) -> None:
    """32 MiB on each stream with a 16 KiB cap: both truncated and flagged, and the run ends by
    itself."""
    code = """
import os
block = b"A" * 2**20
for _ in range(32):
    os.write(1, block)
    os.write(2, block.replace(b"A", b"B"))
"""
    limits = Limits(timeout_s=5, memory_mb=256, max_output_kb=16)
    result, elapsed = timed(lambda: py(backend, code, limits))
    assert result.stdout_truncated
    assert result.stderr_truncated
    assert len(result.stdout.encode()) <= 16 * 1024
    assert len(result.stderr.encode()) <= 16 * 1024
    assert not result.timed_out
    assert elapsed < limits.timeout_s + SLACK_S


def test_endless_output_from_many_processes(backend: Sandbox, host_after: None) -> None:
    script = f"""
for i in 1 2 3 4; do
    yes {TOKEN}-out &
    yes {TOKEN}-err >&2 &
done
wait
"""
    limits = Limits(timeout_s=1, memory_mb=256, max_output_kb=8)
    result, elapsed = timed(lambda: sh(backend, script, limits))
    assert result.stdout_truncated
    assert result.stderr_truncated
    assert len(result.stdout.encode()) <= 8 * 1024
    assert len(result.stderr.encode()) <= 8 * 1024
    assert elapsed < limits.timeout_s + SLACK_S


def test_output_keeps_coming_after_the_job_exits(backend: Sandbox, host_after: None) -> None:
    """The main process exits at once; a detached child keeps writing to the inherited pipes.
    The run must still end, with bounded output."""
    code = """
import os, sys
if os.fork() == 0:
    os.setsid()
    while True:
        os.write(1, b"C" * 65536)
        os.write(2, b"D" * 65536)
print("main done")
"""
    limits = Limits(timeout_s=1, memory_mb=256, max_output_kb=8)
    result, elapsed = timed(lambda: py(backend, code, limits))
    assert len(result.stdout.encode()) <= 8 * 1024
    assert len(result.stderr.encode()) <= 8 * 1024
    assert elapsed < limits.timeout_s + SLACK_S


# --- limits that a job could move elsewhere -----------------------------------------------------

CPU_BURNERS = """
import os, time
def burn():
    # each burner passes the work on to a new process before its own CPU limit is reached
    while True:
        end = time.process_time() + 0.3
        while time.process_time() < end:
            pass
        if os.fork() != 0:
            os._exit(0)
for _ in range(3):
    if os.fork() == 0:
        burn()
time.sleep(30)  # never waits for them
"""


def test_cpu_limit_holds_across_processes(backend: Sandbox, host_after: None) -> None:
    """Burners that re-fork before their own RLIMIT_CPU: once used 17.6 CPU-seconds of a
    2-second limit, reported as 0.01. The limit and the figure are the job's, all processes."""
    limits = Limits(timeout_s=20, cpu_s=1, memory_mb=256, max_processes=32)
    result, elapsed = timed(lambda: py(backend, CPU_BURNERS, limits))
    assert result.cpu_exceeded, result
    assert not result.ok
    assert not result.timed_out
    assert 1.0 <= result.cpu_s < 2.0, result.cpu_s  # stopped soon after the limit
    assert elapsed < 8


def test_cpu_of_leftover_daemons_is_counted(backend: Sandbox, host_after: None) -> None:
    """The job's first process exits at once; what it left burning is still the job's."""
    code = """
import os, time
for _ in range(2):
    if os.fork() == 0:
        os.setsid()
        while True:
            pass
time.sleep(1.0)
"""
    limits = Limits(timeout_s=5, cpu_s=5, memory_mb=256)
    result = py(backend, code, limits)
    assert result.exit_code == 0, result
    # two burners for a second: even on a busy host they get a good part of a CPU-second,
    # where the first process alone (it only sleeps) uses a few milliseconds
    assert result.cpu_s >= 0.2, result.cpu_s


SOCKET_HOARD = """
import socket, time
held, queued = [], {{"tcp": 0, "unix": 0}}
chunk = b"x" * 65536
def fill(sender, kind):
    sender.setblocking(False)
    while True:
        try:
            queued[kind] += sender.send(chunk)
        except (BlockingIOError, OSError):
            return
try:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(128)
    for _ in range({pairs}):
        client = socket.create_connection(server.getsockname())
        accepted, _ = server.accept()
        held += [client, accepted]
        for option in (socket.SO_SNDBUF, socket.SO_RCVBUF):
            try:
                client.setsockopt(socket.SOL_SOCKET, option, 1 << 30)
                accepted.setsockopt(socket.SOL_SOCKET, option, 1 << 30)
            except OSError:
                pass
        fill(client, "tcp")
        fill(accepted, "tcp")
    for _ in range({pairs}):
        left, right = socket.socketpair()
        held += [left, right]
        fill(left, "unix")
        fill(right, "unix")
except OSError as exc:
    print("stopped", exc)
print("QUEUED", queued["tcp"] + queued["unix"], queued, flush=True)
time.sleep(0.2)
"""


def test_socket_buffers_count_against_the_memory_limit(backend: Sandbox, host_after: None) -> None:
    """With a 64 MiB limit, a job once queued 1 GiB in loopback TCP and Unix socket buffers
    and was reported at a 4.5 MB peak. Whatever it manages to queue stays within its limit
    (on cgroup v1, TCP buffers are charged apart, a quarter of the limit on top of it) and is
    reported in its peak memory; or the job is stopped for memory."""
    limits = Limits(timeout_s=20, cpu_s=20, memory_mb=64)
    result = py(backend, SOCKET_HOARD.format(pairs=60), limits)
    queued = [line for line in result.stdout.splitlines() if line.startswith("QUEUED")]
    if not queued:
        assert result.out_of_memory, result
        return
    total_mb = int(queued[0].split()[1]) / 2**20
    assert total_mb <= 1.25 * limits.memory_mb, queued
    assert result.peak_memory_mb is not None
    assert result.peak_memory_mb >= 0.8 * total_mb, (result.peak_memory_mb, queued)


PTY_HOARD = """
import os, time
held = 0
for _ in range(12):
    if os.fork() == 0:
        n = 0
        try:
            while True:
                os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)
                n += 1
        except OSError as exc:
            os.write(1, b"HELD %d %d\\n" % (n, exc.errno))
        time.sleep(3)
        os._exit(0)
time.sleep(3.5)
"""


def test_one_job_cannot_take_the_hosts_pseudo_terminals(backend: Sandbox, host_after: None) -> None:
    """Each devpts but the host's first counts its terminals against one host-wide limit
    (``kernel.pty.max`` less the reserve, 3,072 by default): a job of twelve processes once held
    all of them, and every other sandbox and container on the host got ENOSPC. A job holds at
    most the 16 of its worker's devpts (pool) or none (bubblewrap)."""
    limits = Limits(timeout_s=15, cpu_s=15, memory_mb=256, max_processes=32)
    result = py(backend, PTY_HOARD, limits)
    held = [line.split() for line in result.stdout.splitlines() if line.startswith("HELD")]
    assert len(held) == 12, result
    assert sum(int(line[1]) for line in held) <= 16, held
    assert_healthy(backend)


@pytest.mark.parametrize("directory", ["/workspace", "/tmp"])  # noqa: S108 - the job's own
def test_files_without_end_cannot_outlast_the_job(
    backend: Sandbox, directory: str, host_after: None
) -> None:
    """Millions of empty files once made the pool's cleanup outlast its grace, and the run was
    reported as the sandbox failing instead of the job failing. Scratch is bounded in inodes
    (pool) or by the memory they take (bubblewrap), and the run ends as the job's own."""
    code = f"""
import os, time
made = 0
deadline = time.monotonic() + 15
try:
    while time.monotonic() < deadline:
        os.close(os.open(f"{directory}/{TOKEN}-{{made}}", os.O_CREAT | os.O_WRONLY))
        made += 1
except OSError as exc:
    print("stopped", exc.errno)
print("MADE", made, flush=True)
"""
    limits = Limits(timeout_s=20, cpu_s=20, memory_mb=64, max_files=4096)
    result, elapsed = timed(lambda: py(backend, code, limits))
    made = [int(line.split()[1]) for line in result.stdout.splitlines() if line.startswith("MADE")]
    assert made or result.out_of_memory, result
    if made and isinstance(backend, PoolSandbox):
        assert made[0] <= limits.max_files, made
    assert elapsed < limits.timeout_s + SLACK_S
