"""The warm pool: one cap, fresh state per job, recycling, and the same results as bubblewrap."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time

import pytest

from assay.sandbox import BubblewrapSandbox, PoolSandbox
from assay.sandbox._exchange import HEADER, Exchange
from assay.sandbox._userns import FIRST_JOB_ID
from assay.tasks import Limits

FAST = Limits(timeout_s=5, memory_mb=256)


def py(pool: PoolSandbox, code: str, **files: bytes) -> str:
    result = pool.run([pool.python, "-I", "-S", "-c", code], files=files, limits=FAST)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_python_fast_path_behaves_like_a_fresh_interpreter(pool: PoolSandbox) -> None:
    code = (
        "import os, sys\n"
        "print(os.getcwd(), sys.argv, sorted(os.listdir('.')), sys.stdin.read(), os.getuid() > 0)\n"
        "print(sorted(k for k in os.environ))\n"
        "sys.exit(3)\n"
    )
    result = pool.run(
        [pool.python, "-I", "-S", "-c", code, "a1"], files={"x.txt": b"1"}, stdin=b"in"
    )
    assert result.exit_code == 3
    first, second = result.stdout.splitlines()
    assert first == "/workspace ['-c', 'a1'] ['x.txt'] in True"
    assert second == "['HOME', 'LANG', 'PATH', 'PYTHONDONTWRITEBYTECODE', 'TMPDIR']"


def test_files_in_nested_directories_arrive_whole(pool: PoolSandbox) -> None:
    files = {
        "a/b/c.txt": b"1",
        "a/b/d.txt": b"22",
        "a/e.txt": b"333",
        "f.txt": b"4444",
        "a/b/g/h.txt": b"x" * 100_000,
    }
    listing = (
        "import os\n"
        "for top, _, names in sorted(os.walk('.')):\n"
        "    for name in sorted(names):\n"
        "        path = os.path.join(top, name)[2:]\n"
        "        print(path, os.path.getsize(path), open(path, 'rb').read(1).decode())\n"
    )
    found = pool.run([pool.python, "-I", "-S", "-c", listing], files=files, limits=FAST).stdout
    assert sorted(found.splitlines()) == [
        f"{path} {len(data)} {data[:1].decode()}" for path, data in sorted(files.items())
    ]


def test_other_commands_are_executed_in_the_same_isolation(pool: PoolSandbox) -> None:
    result = pool.run(["sh", "-c", "echo $HOME; id -u; cat in.txt"], files={"in.txt": b"hi"})
    lines = result.stdout.splitlines()
    assert lines[0] == "/workspace"
    floor = {"root": 200_000, "subordinate": FIRST_JOB_ID, "shared": 1}[pool.identity.kind]
    assert int(lines[1]) >= floor
    assert lines[2] == "hi"
    assert pool.run(["no-such-command"]).exit_code == 127


def test_an_uncaught_exception_exits_1_with_a_traceback(pool: PoolSandbox) -> None:
    result = pool.run([pool.python, "-I", "-S", "-c", "raise KeyError('boom')"])
    assert result.exit_code == 1
    assert "KeyError: 'boom'" in result.stderr


def test_each_job_starts_from_nothing(pool: PoolSandbox) -> None:
    leave = (
        "import os\n"
        "open('/workspace/left', 'w').write('x')\n"
        "open('/tmp/left', 'w').write('x')\n"
        "import json; json.dumps = None\n"
        "os.environ['LEFT'] = '1'\n"
    )
    look = (
        "import os, json\n"
        "print(os.listdir('/workspace'), os.listdir('/tmp'), json.dumps is None,"
        " 'LEFT' in os.environ)\n"
    )
    for _ in range(4):  # with two workers, some job lands on a worker a previous job used
        py(pool, leave)
        assert py(pool, look).strip() == "[] [] False False"


def test_workers_preload_what_harnesses_use_and_jobs_cannot_change_it_for_the_next(
    pool: PoolSandbox,
) -> None:
    """sqlite3 (and, in a package's environment, the package) is loaded before the fork; a job
    that replaces parts of it changes its own copy only, and sys.path is not widened."""
    tamper = (
        "import sys, sqlite3\n"
        "print('sqlite3' in sys.modules, '/opt/assay/packages' in sys.path)\n"
        "sqlite3.connect = None; sqlite3.sqlite_version = 'forged'\n"
    )
    look = "import sqlite3\nprint(sqlite3.connect is None, sqlite3.sqlite_version)\n"
    for _ in range(4):  # with two workers, some job lands on a worker a previous job used
        assert py(pool, tamper).split() == ["True", "False"]
        assert py(pool, look).split()[0] == "False"
        assert "forged" not in py(pool, look)
    packaged = (
        "import sys\n"
        "print('yaml' in sys.modules, '/opt/assay/packages' in sys.path)\n"
        "sys.modules['yaml'].safe_load = None\n"
    )
    check = "import sys\nprint(sys.modules['yaml'].safe_load is None)\n"
    for _ in range(3):
        result = pool.run([pool.python, "-I", "-S", "-c", packaged], packages=["pyyaml"])
        assert result.stdout.split() == ["True", "False"], result.stderr
        again = pool.run([pool.python, "-I", "-S", "-c", check], packages=["pyyaml"])
        assert again.stdout.strip() == "False", again.stderr
    assert py(pool, "import sys\nprint('yaml' in sys.modules)").strip() == "False"


def test_the_cap_on_concurrent_sandboxes_holds() -> None:
    with PoolSandbox(max_workers=2) as pool:
        peak = 0
        done = threading.Event()

        def watch() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, pool.size)
                time.sleep(0.002)

        watcher = threading.Thread(target=watch)
        watcher.start()
        jobs = [
            threading.Thread(
                target=pool.run,
                args=([pool.python, "-I", "-S", "-c", "import time; time.sleep(0.2)"],),
            )
            for _ in range(6)
        ]
        started = time.monotonic()
        for job in jobs:
            job.start()
        for job in jobs:
            job.join()
        done.set()
        watcher.join()
        assert peak == 2
        assert time.monotonic() - started >= 0.55  # six 0.2 s jobs, two at a time


def test_workers_are_recycled_after_their_quota_and_after_trouble() -> None:
    with PoolSandbox(max_workers=1, jobs_per_worker=3) as pool:
        for _ in range(7):
            assert pool.run([pool.python, "-I", "-S", "-c", "pass"]).exit_code == 0
        assert pool.recycled == 2
        [worker] = pool._idle
        os.killpg(worker.pids[0], signal.SIGKILL)
        time.sleep(0.1)
        result = pool.run([pool.python, "-I", "-S", "-c", "print('still here')"])
        assert result.stdout == "still here\n"


def test_idle_workers_are_retired() -> None:
    with PoolSandbox(max_workers=2, idle_timeout_s=0.2) as pool:
        pool.warm(2)
        assert pool.size == 2
        time.sleep(0.4)
        pool.run([pool.python, "-I", "-S", "-c", "pass"])
        time.sleep(0.2)
        assert pool.size == 1


def test_an_idle_worker_is_small(pool: PoolSandbox) -> None:
    pool.warm(1)
    assert 0 < pool.idle_worker_memory_mb() < 30


def test_closed_pool_refuses_work() -> None:
    pool = PoolSandbox(max_workers=1)
    pool.close()
    with pytest.raises(Exception, match="closed"):
        pool.run(["true"])


def test_a_session_keeps_its_files_between_commands(pool: PoolSandbox) -> None:
    with pool.session() as session:
        first = session.run(["sh", "-c", "echo 1 > notes.txt; echo x > /tmp/t"], files={"a": b"A"})
        assert first.exit_code == 0, first.stderr
        second = session.run(["sh", "-c", "cat a notes.txt /tmp/t"], files={"b": b"B"})
        assert second.stdout == "A1\nx\n"
        assert session.run(["ls"]).stdout.split() == ["a", "b", "notes.txt"]
    after = pool.run(["sh", "-c", "ls -A /workspace /tmp"])
    assert "notes.txt" not in after.stdout
    assert "t\n" not in after.stdout


def test_sessions_do_not_see_each_other(pool: PoolSandbox) -> None:
    with pool.session() as one, pool.session() as two:
        one.run(["sh", "-c", "echo secret > mine"])
        peek = two.run(
            ["sh", "-c", "ls /workspace; cat /proc/*/root/workspace/mine 2>&1 | head -1"]
        )
        assert "secret" not in peek.stdout
        assert one.run(["cat", "mine"]).stdout == "secret\n"


def test_sixty_four_idle_sessions_fit_easily() -> None:
    with PoolSandbox(max_workers=64) as pool:
        sessions = [pool.session() for _ in range(64)]
        try:
            for index, session in enumerate(sessions):
                session.run(["sh", "-c", f"echo {index} > id"])
            total_mb = sum(s.memory_mb() for s in sessions)
            assert total_mb < 64 * 30
            assert [s.run(["cat", "id"]).stdout for s in sessions[:3]] == ["0\n", "1\n", "2\n"]
        finally:
            for session in sessions:
                session.close()


def test_the_host_takes_a_jobs_output_once_the_worker_reports_its_end() -> None:
    """Every process of a job is gone when its worker replies, so its output is whole in the
    pipes; a descriptor of the pipe left in flight on a Unix socket of the job's (which only
    the kernel's collection of such sockets, at any host process's next closing of one,
    releases) once kept the host waiting for an end of file past its deadline, and the job's
    ``fail`` became the ``error`` of a worker that did not answer. Here the test holds that
    descriptor."""
    host, worker = socket.socketpair()
    out_r, out_w = os.pipe()
    try:
        os.write(out_w, b"the job's last words\n")
        reply = json.dumps({"status": 256}).encode()
        worker.sendall(HEADER.pack(len(reply)) + reply)
        exchange = Exchange(host, writes={}, reads=(out_r,), cap=1024)
        started = time.monotonic()
        assert exchange.run(5.0) == {"status": 256}
        assert time.monotonic() - started < 1
        assert exchange.outputs[0].data == b"the job's last words\n"
    finally:
        os.close(out_w)
        host.close()
        worker.close()


ENDINGS = {
    "exit-past-c-long": "import sys; sys.exit(2**70)",
    "excepthook": "import sys\nsys.excepthook = lambda *a: print('hook', a[0].__name__)\n1/0",
    "traceback": "def f():\n    1/0\nf()",
    "atexit": "import atexit; atexit.register(print, 'at exit')",
    "thread": (
        "import threading, time\n"
        "threading.Thread(target=lambda: (time.sleep(0.2), print('thread'))).start()"
    ),
    "stdout-lost": "import os; os.close(1); print('x')",
    "surrogate": "print('\\udcff'); import sys; print(sys.stdout.errors, sys.stdout.encoding)",
    "interrupted": "raise KeyboardInterrupt",
}


@pytest.mark.parametrize("code", ENDINGS.values(), ids=ENDINGS.keys())
def test_python_code_ends_as_in_a_fresh_interpreter(
    pool: PoolSandbox, bubblewrap: BubblewrapSandbox, code: str
) -> None:
    """The fast path ran the code and exited at once: no thread was waited for, no ``atexit``
    function ran, ``sys.excepthook`` was ignored, a status past a C long was 0, a lost stdout
    went unreported, tracebacks showed the worker's own frame, and stdout was strict where a
    fresh interpreter's escapes surrogates."""
    ends = []
    for backend in (pool, bubblewrap):
        result = backend.run([backend.python, "-I", "-S", "-c", code], limits=FAST)
        # bubblewrap's init reports a signal's end as 128 + the signal
        status = result.exit_code if result.signal is None else 128 + result.signal
        ends.append((status, result.stdout, result.stderr))
    assert ends[0] == ends[1]
