"""Channels between jobs: a job encodes a number in state that outlives it (network
connections, packet counters, the PID counter, counters of the processes around it, files of an
earlier session), and a later job on the same backend tries to read the number back. Each
attack sends several different numbers; what the later job sees must not change with them.
"""

from __future__ import annotations

import json
import time

import pytest

from assay.families import harness_code
from assay.sandbox import PoolSandbox, Sandbox
from assay.sandbox import pool as pool_module
from assay.tasks import Limits
from tests.sandbox.attacks._support import py

pytestmark = pytest.mark.sandbox

NUMBERS = (0, 7, 23)
"""What the planting job encodes, one round each."""

TIME_WAIT_PLANT = """
import socket
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(64)
for _ in range({n}):
    client = socket.create_connection(server.getsockname())
    accepted, _ = server.accept()
    client.close()  # the side that closes first keeps the connection in TIME_WAIT
    accepted.close()
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range({n} * 10):
    udp.sendto(b"x", ("127.0.0.1", 9))
print("planted", {n})
"""

NETWORK_LOOK = """
import json, os
seen = {}
for table in ("tcp", "tcp6", "udp", "udp6", "unix"):
    try:
        seen[table] = len(open(f"/proc/net/{table}").read().splitlines()) - 1
    except OSError as exc:
        seen[table] = str(exc)
for counter in ("rx_packets", "tx_packets", "rx_bytes"):
    try:
        seen[counter] = open(f"/sys/class/net/lo/statistics/{counter}").read().strip()
    except OSError as exc:
        seen[counter] = str(exc)
seen["dev"] = [line.split()[1:3] for line in open("/proc/net/dev") if "lo:" in line]
snmp = [line for line in open("/proc/net/snmp") if line.startswith(("Tcp: ", "Udp: "))]
seen["snmp"] = snmp[1::2]
print(json.dumps(seen, sort_keys=True))
"""


def what_later_jobs_see(backend: Sandbox, plant: str, look: str) -> list[str]:
    """For each of :data:`NUMBERS`: a job plants it (``plant`` formatted with ``n``), then the
    next job runs ``look``; what each look printed. All the same: nothing was carried."""
    seen = []
    for number in NUMBERS:
        planted = py(backend, plant.format(n=number))
        assert planted.ok, planted
        looked = py(backend, look)
        assert looked.ok, looked
        seen.append(looked.stdout)
    assert len(set(seen)) == 1, seen
    return seen


def test_network_state_is_not_carried_to_the_next_job(backend: Sandbox) -> None:
    """TIME_WAIT entries in /proc/net/tcp and loopback packet counters once carried a job's
    numbers to the next job on the same pool worker."""
    seen = what_later_jobs_see(backend, TIME_WAIT_PLANT, NETWORK_LOOK)
    fresh = json.loads(seen[0])
    assert fresh["tcp"] == 0
    assert fresh["dev"] == [["0", "0"]]  # loopback: no byte, no packet received


def test_jobs_without_sockets_share_no_network_state_with_others(backend: Sandbox) -> None:
    """A job run without sockets gets the network namespace of the job before it, if that one
    had none either: what a job with sockets planted must still be gone, for jobs with and
    without sockets alike, however many socket-less jobs ran in between."""
    seen = []
    for number in NUMBERS:
        planted = py(backend, TIME_WAIT_PLANT.format(n=number))
        assert planted.ok, planted
        for sockets in (False, False, True):
            looked = py(backend, NETWORK_LOOK, sockets=sockets)
            assert looked.ok, looked
            seen.append(looked.stdout)
    assert len(set(seen)) == 1, seen
    fresh = json.loads(seen[0])
    assert fresh["tcp"] == 0
    assert fresh["dev"] == [["0", "0"]]


QUIET_PLANT = """
import os, socket
# No packet leaves or arrives: a listening socket, abstract unix names, and unix sockets sent
# over themselves and closed (in flight until the kernel collects them).
kept = []
server = socket.socket()
server.bind(("127.0.0.1", 41000 + {n}))
server.listen(8)
kept.append(server)
for i in range({n} + 1):
    named = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    named.bind(f"\\0assay-quiet-{n}-{{i}}")
    named.listen(1)
    kept.append(named)
for _ in range({n} * 3):
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    socket.send_fds(left, [b"x"], [left.fileno(), right.fileno()])
    left.close()
    right.close()
print("planted", {n}, flush=True)
os.kill(os.getpid(), 9)  # dies holding them
"""

QUIET_LOOK = """
import json, socket
seen = {{}}
for n in {numbers}:
    probe = socket.socket()
    try:
        probe.bind(("127.0.0.1", 41000 + n))
        seen[f"port-{{n}}"] = "free"
    except OSError as exc:
        seen[f"port-{{n}}"] = exc.errno
    finally:
        probe.close()
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.connect(f"\\0assay-quiet-{{n}}-0")
        seen[f"name-{{n}}"] = "answered"
    except OSError as exc:
        seen[f"name-{{n}}"] = exc.errno
    finally:
        client.close()
seen["unix"] = len(open("/proc/net/unix").read().splitlines()) - 1
tcp = [line.split() for line in open("/proc/net/sockstat") if line.startswith("TCP:")]
seen["tcp-in-use"] = tcp[0][2]  # the namespace's own count; the others are the host's
print(json.dumps(seen, sort_keys=True))
"""


FLOW_LABEL_PLANT = """
import socket, struct
# IPv6 flow labels outlive the socket that made them (for their linger time), and sending no
# packet changes no counter: the label itself is the number.
made = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
request = socket.inet_pton(socket.AF_INET6, "::1") + struct.pack("!I", 0x1000 + {n})
request += struct.pack("=BBHHHI", 0, 2, 1, 60, 60, 0)  # get, shared by any, create; 60 s
made.setsockopt(socket.IPPROTO_IPV6, 32, request)  # IPV6_FLOWLABEL_MGR
made.close()
print("planted", {n})
"""

FLOW_LABEL_LOOK = """
print(open("/proc/net/ip6_flowlabel").read().splitlines()[1:])
"""


def test_an_ipv6_flow_label_a_job_left_is_not_handed_on(backend: Sandbox) -> None:
    """A flow label is made without a packet and lingers after its socket is closed; the pool
    must see it and give the next job a new namespace."""
    seen = what_later_jobs_see(backend, FLOW_LABEL_PLANT, FLOW_LABEL_LOOK)
    assert seen[0].strip() == "[]"


def test_sockets_a_job_held_without_any_traffic_are_gone_for_the_next_job(
    backend: Sandbox,
) -> None:
    """A job that sends no packet leaves the packet counters as they were, and the pool then
    hands its network namespace on: the sockets it held when it died (a listening port,
    abstract unix names, unix sockets in flight) must be gone for the next job all the same."""
    seen = []
    for number in NUMBERS:
        planted = py(backend, QUIET_PLANT.format(n=number))
        assert "planted" in planted.stdout, planted
        looked = py(backend, QUIET_LOOK.format(numbers=list(NUMBERS)))
        assert looked.ok, looked
        seen.append(looked.stdout)
    assert len(set(seen)) == 1, seen
    fresh = json.loads(seen[0])
    assert all(fresh[f"port-{n}"] == "free" for n in NUMBERS), fresh
    assert fresh["unix"] == 0, fresh


IN_FLIGHT_PLANT = """
import os, socket, time
held = []
for name in ("/workspace/ballast", "/tmp/ballast"):
    for part in range(6):
        fd = os.open(f"{{name}}-{{part}}", os.O_RDWR | os.O_CREAT, 0o600)
        for _ in range(8):
            os.write(fd, b"x" * (1 << 20))
        held.append(fd)
for _ in range(6):
    fd = os.memfd_create("ballast")
    for _ in range(8):
        os.write(fd, b"x" * (1 << 20))
    held.append(fd)
for _ in range({n}):
    try:
        held.append(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))
    except OSError:
        break
# sent to the pair's other end, with that end itself: a loop that nothing outside it holds
# once the job is gone. Closing a Unix socket has the kernel look for such loops: the sending
# end is closed first, and the loop closes itself last, when the job exits.
ends = socket.socketpair()
socket.send_fds(ends[0], [b"x"], [*held, ends[1].fileno()])
ends[0].close()
time.sleep(0.2)
print("planted", {n})
"""

IN_FLIGHT_LOOK = """
import os
print(sorted(os.listdir("/dev/pts")) if os.path.isdir("/dev/pts") else None, flush=True)
block = bytearray(200 << 20)
print("allocated", len(block) >> 20)
"""


def test_what_a_job_left_in_flight_is_gone_for_the_next_job(backend: Sandbox) -> None:
    """Descriptors sent over a Unix socket that holds itself outlive every process of the job
    until the kernel next collects such loops, which on a quiet host may be never: 144 MiB of
    scratch and memory files held that way stayed charged to a pool worker's jobs, and every
    later job under a 256 MiB limit that needed 200 MiB was killed for lack of memory; the
    pseudo-terminals held were in every later job's /dev/pts."""
    seen = what_later_jobs_see(backend, IN_FLIGHT_PLANT, IN_FLIGHT_LOOK)
    assert "allocated 200" in seen[0], seen


def test_jobs_that_leave_no_trace_share_a_network_namespace() -> None:
    """Making and tearing down a namespace for every job is work that most jobs (which never
    touch the network) do not need: the next job gets the namespace of the last one unless
    that one left a trace in it, as any traffic does."""
    look = "import os; print(os.readlink('/proc/self/ns/net'))"
    traffic = TIME_WAIT_PLANT.format(n=1)
    with PoolSandbox(max_workers=1, trusted_code=harness_code()) as alone:
        quiet = [py(alone, look).stdout for _ in range(3)]
        quiet.append(py(alone, look, sockets=False).stdout)
        assert len(set(quiet)) == 1, quiet
        assert py(alone, traffic).ok
        after = py(alone, look).stdout
    assert after != quiet[0]


SOCKETLESS_PLANT = """
import asyncio, ctypes, socket
refused = []
attempts = [
    lambda: socket.socket(),
    lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM),
    lambda: socket.socket(socket.AF_INET6, socket.SOCK_STREAM),
    lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM),
    lambda: socket.socketpair(),
    lambda: asyncio.new_event_loop(),  # its self-pipe is a socket pair
]
for attempt in attempts:
    try:
        attempt()
    except PermissionError:
        refused.append(True)
libc = ctypes.CDLL(None, use_errno=True)
for family, kind in ((2, 1), (2, 2), (10, 2), (1, 1), (16, 3)):
    if libc.syscall(41, family, kind, 0) < 0 and ctypes.get_errno() == 1:  # socket: EPERM
        refused.append(True)
pair = (ctypes.c_int * 2)()
if libc.syscall(53, 1, 1, 0, pair) < 0 and ctypes.get_errno() == 1:  # socketpair: EPERM
    refused.append(True)
print("refused", len(refused))
"""


def test_a_job_without_sockets_can_make_none(backend: Sandbox) -> None:
    """Through Python, asyncio and the raw system calls: every socket and socket pair is
    refused, so such a job cannot change the namespace that the next job may inherit."""
    done = py(backend, SOCKETLESS_PLANT, sockets=False)
    assert done.ok, done
    assert done.stdout.split() == ["refused", "12"]
    control = py(backend, "import socket; socket.socketpair(); socket.socket(); print('made')")
    assert control.ok, control
    assert control.stdout.strip() == "made"


PID_PLANT = """
import os
for _ in range({n}):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
print("planted", {n})
"""

PID_LOOK = """
import os
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
print(os.getpid(), pid)
"""


def test_the_pid_counter_carries_nothing(backend: Sandbox) -> None:
    """A job that forks N times moved a shared PID counter by N; the next job's process ids
    then gave N away."""
    what_later_jobs_see(backend, PID_PLANT, PID_LOOK)


COUNTERS_PLANT = """
import os, time
for _ in range({n}):
    if os.fork() == 0:
        end = time.process_time() + 0.02
        while time.process_time() < end:
            pass
        os._exit(0)
    os.wait()
    time.sleep(0.001)
print("planted", {n})
"""

COUNTERS_LOOK = """
import json, os
me = os.getpid()
seen = {}
for entry in os.listdir("/proc"):
    if not entry.isdigit() or int(entry) == me:
        continue
    try:
        stat = open(f"/proc/{entry}/stat").read()
    except OSError:
        continue
    # utime, stime, and the CPU time of reaped children, of every other visible process
    seen[entry] = stat[stat.rindex(")") + 2:].split()[11:15]
print(json.dumps(seen, sort_keys=True))
"""


def test_counters_of_the_processes_around_a_job_carry_nothing(backend: Sandbox) -> None:
    """A pool worker reaps each job: its CPU time of reaped children and its context switches
    grew with what the job did, and the next job could read them in /proc."""
    what_later_jobs_see(backend, COUNTERS_PLANT, COUNTERS_LOOK)


def test_a_job_sees_no_process_older_than_itself(backend: Sandbox) -> None:
    """A pool worker, which forks and reaps every job, is hidden from them with everything
    /proc would say about it (context switches, CPU time of reaped children, memory); a
    bubblewrap job sees only the init process of its own new sandbox."""
    code = """
import os
me = os.getpid()
print(sorted(int(e) for e in os.listdir("/proc") if e.isdigit() and int(e) != me))
"""
    own_init = "[]" if isinstance(backend, PoolSandbox) else "[1]"
    for _ in range(2):
        result = py(backend, code)
        assert result.ok, result
        assert result.stdout.strip() == own_init


SESSION_PLANT = {
    "json.py": b"print('PLANTED json')\nfrom _json import *\n",
    "sitecustomize.py": b"print('PLANTED site')\n",
}
SESSION_LOOK = b"""
import json, os
print("workspace", sorted(os.listdir("/workspace")))
print("tmp", sorted(os.listdir("/tmp")))
print("json from", json.__file__)
"""


def test_a_new_session_starts_from_fresh_scratch() -> None:
    """A session planted ``json.py`` in /workspace and /tmp; the first command of the next
    session on the same worker imported it. Every session, and every one-shot job after a
    session, starts from empty scratch."""
    limits = Limits(timeout_s=5, memory_mb=256)
    with PoolSandbox(max_workers=1, trusted_code=harness_code()) as pool:
        for _ in range(2):
            with pool.session() as planting:
                planted = planting.run(
                    ["sh", "-c", "cp /workspace/json.py /workspace/sitecustomize.py /tmp/"],
                    files=SESSION_PLANT,
                    limits=limits,
                )
                assert planted.ok, planted
                kept = planting.run(["ls", "/tmp", "/workspace"], limits=limits)  # noqa: S108 - the job's
                assert "json.py" in kept.stdout  # within one session, files persist
            with pool.session() as looking:
                looked = looking.run(
                    [pool.python, "main.py"], files={"main.py": SESSION_LOOK}, limits=limits
                )
            assert looked.ok, looked
            assert "PLANTED" not in looked.stdout
            assert "workspace ['main.py']" in looked.stdout
            assert "tmp []" in looked.stdout
            with pool.session() as planting:
                planting.run(["sh", "-c", "echo x > /tmp/left; echo y > left"], limits=limits)
            one_shot = pool.run(["ls", "-A", "/tmp", "/workspace"], limits=limits)  # noqa: S108
            assert one_shot.ok, one_shot
            assert "left" not in one_shot.stdout


def test_without_a_filter_a_job_asked_to_go_without_sockets_still_gets_no_old_network(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where there is no seccomp filter (other arches), nothing refuses a socket-less job its
    sockets, so the worker must not hand its network namespace on after such a job either."""
    monkeypatch.setattr(pool_module, "split_program", lambda: None)
    with PoolSandbox(max_workers=1, trusted_code=harness_code()) as pool:
        seen = []
        for number in NUMBERS:
            planted = py(pool, TIME_WAIT_PLANT.format(n=number), sockets=False)
            assert planted.ok, planted  # nothing refused its sockets
            looked = py(pool, NETWORK_LOOK, sockets=False)
            assert looked.ok, looked
            seen.append(looked.stdout)
    assert len(set(seen)) == 1, seen
    assert json.loads(seen[0])["tcp"] == 0


MEMORY_PLANT = """
import os
# Memory charged to the job's group that outlives its processes: its scratch until unmounted,
# and the page cache of the files it read (dropped first, so that this job reads them in).
with open("/workspace/ballast", "wb") as out:
    for _ in range({n}):
        out.write(b"x" * (1 << 20))
read = 0
for root, _dirs, names in os.walk(os.path.dirname(os.__file__)):
    for name in names:
        if read >= {n} << 20:
            break
        try:
            fd = os.open(os.path.join(root, name), os.O_RDONLY)
        except OSError:
            continue
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        while chunk := os.read(fd, 1 << 20):
            read += len(chunk)
        os.close(fd)
print("planted", {n}, read >> 20)
"""


def test_memory_a_job_left_charged_is_not_a_later_jobs_peak(backend: Sandbox) -> None:
    """A pool worker's jobs take turns in one cgroup. The page cache of the files a job read
    stayed charged to it, and its scratch until the worker unmounted it, after the peak of the
    next job had been reset: a job that did nothing was reported at 99 MiB after one that
    wrote 48 MiB of files and read 48 MiB (the audit fits memory limits, and warns of tight
    ones, from such peaks)."""
    limits = Limits(timeout_s=30, cpu_s=20, memory_mb=384, max_file_mb=128)
    for number in (0, 48, 96):
        planted = py(backend, MEMORY_PLANT.format(n=number), limits)
        assert planted.ok, planted
        looked = py(backend, "pass", limits)
        assert looked.ok, looked
        if looked.peak_memory_mb is not None:
            assert looked.peak_memory_mb < 16, (number, looked.peak_memory_mb)


SCRATCH_PLANT = """
with open("/workspace/ballast", "wb") as out:
    for _ in range(300):
        out.write(b"x" * (1 << 20))
"""


def test_a_job_with_a_smaller_memory_limit_after_a_big_one_gets_its_own(backend: Sandbox) -> None:
    """The host set a worker's next memory limit while the worker was still unmounting the
    last job's scratch; the kernel refuses a limit under what the group holds, and the refusal
    went unseen: after a 512 MiB job that left 300 MiB of files, jobs limited to 128 MiB used
    300 MiB, every one of them."""
    large = Limits(timeout_s=30, cpu_s=20, memory_mb=512, max_file_mb=400)
    small = Limits(timeout_s=30, cpu_s=20, memory_mb=128)
    planted = py(backend, SCRATCH_PLANT, large)
    assert planted.ok, planted
    for _ in range(2):
        result = py(backend, "b = bytearray(300 << 20); print(len(b))", small)
        assert result.exit_code != 0, result
        if backend.name == "pool" and result.peak_memory_mb is not None:
            assert result.out_of_memory, result


def test_after_a_session_a_job_with_a_smaller_memory_limit_gets_its_own_at_once() -> None:
    """A closed session's files stayed mounted, charged to its worker's group, until the next
    job came; a job with a smaller memory limit then got the session's (see above), and once
    that was refused, waited for the files to go. They go when the session ends."""
    large = Limits(timeout_s=30, cpu_s=20, memory_mb=512, max_file_mb=400)
    small = Limits(timeout_s=30, cpu_s=20, memory_mb=128)
    with PoolSandbox(max_workers=1, trusted_code=harness_code()) as pool:
        with pool.session() as session:
            planted = py(session, SCRATCH_PLANT, large)
            assert planted.ok, planted
        started = time.monotonic()
        result = py(pool, "b = bytearray(300 << 20); print(len(b))", small)
        elapsed = time.monotonic() - started
        assert result.exit_code != 0, result
        assert result.peak_memory_mb is None or result.out_of_memory, result
        assert elapsed < 2, elapsed
        assert pool.recycled == 0


EXIT_PLANT = """
import sys, time
end = time.process_time() + 0.01 * {n}
while time.process_time() < end:
    pass
sys.exit({n})
"""

FRAMES_LOOK = """
import json, sys

def plain(value, depth=0):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, bytes):
        return value.hex()
    if depth < 3 and isinstance(value, dict):
        return {str(key): plain(item, depth + 1) for key, item in value.items()}
    if depth < 3 and isinstance(value, (list, tuple)):
        return [plain(item, depth + 1) for item in value]
    return type(value).__name__

seen = []
frame = sys._getframe().f_back  # the frames around the job's code, up to the first
while frame is not None:
    names = {key: plain(value) for key, value in frame.f_locals.items() if key != "__builtins__"}
    seen.append([frame.f_code.co_name, names])
    frame = frame.f_back
print(json.dumps(seen, sort_keys=True))
"""


def test_the_frames_a_job_runs_in_hold_nothing_of_the_job_before(backend: Sandbox) -> None:
    """A job's code can walk up its frames: on a pool worker those of the loop that forked it
    held the last job's exit status, CPU and wall time (and whether it was a session's)."""
    seen = []
    for number in NUMBERS:
        planted = py(backend, EXIT_PLANT.format(n=number))
        assert planted.exit_code == number, planted
        looked = py(backend, FRAMES_LOOK)
        assert looked.ok, looked
        assert repr(planted.wall_s) not in looked.stdout
        seen.append(looked.stdout)
    assert len(set(seen)) == 1, seen


LOOPBACK_PLANT = """
import socket
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.bind(("127.0.0.1", 0))
for _ in range({n} + 1):
    udp.sendto(b"x" * 1000, udp.getsockname())
print("planted", {n})
"""

MEMORY_LOOK = """
import ctypes, json, re
found = set()
with open("/proc/self/maps") as maps:
    regions = [line.split() for line in maps]
for fields in regions:
    # the heap and anonymous mappings: the memory the job was forked with, freed parts too
    if not fields[1].startswith("r") or (len(fields) > 5 and fields[5] != "[heap]"):
        continue
    start, end = (int(part, 16) for part in fields[0].split("-"))
    data = ctypes.string_at(start, end - start)
    found.update(re.findall(rb"lo:\\s+(\\d+)\\s+(\\d+)", data))
print(json.dumps(sorted([a.decode(), b.decode()] for a, b in found)))
"""


def test_what_a_job_left_in_the_network_is_not_in_the_memory_the_next_is_forked_with(
    backend: Sandbox,
) -> None:
    """A pool worker reads /proc/net after a job to see whether it left a trace; the next job,
    forked from the worker, found that reading in its own memory: the loopback counters of a
    namespace made afresh so that it could not read them."""
    seen = what_later_jobs_see(backend, LOOPBACK_PLANT, MEMORY_LOOK)
    assert all(pair == ["0", "0"] for pair in json.loads(seen[0])), seen[0]
