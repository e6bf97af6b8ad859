"""Signals: a job cannot interrupt the pool worker it runs on, and every backend starts a job
with the signal dispositions a fresh process has, so that the same program gets the same
verdict on each.

A pool worker is init of its PID namespace: the kernel drops a signal a job sends it only where
it has no handler for it. Python installs one for SIGINT, and where jobs run as their worker's
uid (a user without subordinate ids) a job that sent it SIGINT ended the worker, and its own
result with it (CI runs this file that way too).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.families import harness_code
from assay.sandbox import PoolSandbox, Sandbox
from assay.sandbox.batch import Run, run_many
from tests.sandbox.attacks._support import QUICK, assert_healthy, py, sh

pytestmark = pytest.mark.sandbox

INTERRUPT = """
import fcntl, os, signal, time
for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1,
               signal.SIGUSR2, signal.SIGALRM, signal.SIGCHLD, signal.SIGPIPE, signal.SIGXFSZ):
    for target in (1, -1):  # the worker; every process the job may signal but itself
        try:
            os.kill(target, number)
        except OSError as exc:
            print("refused", number, target, exc.errno)
# The kernel's own signal for I/O on a descriptor, sent to a process the job names.
read_end, write_end = os.pipe()
fcntl.fcntl(read_end, fcntl.F_SETOWN, 1)
fcntl.fcntl(read_end, 10, signal.SIGINT)  # F_SETSIG
fcntl.fcntl(read_end, fcntl.F_SETFL, os.O_ASYNC | os.O_NONBLOCK)
os.write(write_end, b"x")
time.sleep(0.3)
print("still here", flush=True)
"""


@pytest.fixture
def one_worker() -> Iterator[PoolSandbox]:
    with PoolSandbox(max_workers=1, trusted_code=harness_code()) as pool:
        yield pool


def test_a_job_cannot_interrupt_its_worker(one_worker: PoolSandbox) -> None:
    """SIGINT, the other signals a program may handle, and SIGIO turned into SIGINT, to pid 1
    (the worker) and to every process the job may signal: the job gets its own result and the
    worker serves the next job."""
    assert py(one_worker, "print('warm')").ok
    result = py(one_worker, INTERRUPT)
    assert "still here" in result.stdout, result
    assert one_worker.recycled == 0, "a job's signal ended its worker"
    after = py(one_worker, "import os; print(os.getpid(), os.getppid())")
    assert after.ok, after
    assert after.stdout.split() == ["100", "1"]


def test_the_worker_catches_no_signal(one_worker: PoolSandbox) -> None:
    """Whatever uid a job runs as, the worker has no handler that a signal from inside its PID
    namespace could reach."""
    assert py(one_worker, "print('warm')").ok
    (worker,) = one_worker._idle
    zygote = worker.pids[1]
    status = dict(
        line.split(":\t", 1) for line in Path(f"/proc/{zygote}/status").read_text().splitlines()
    )
    assert int(status["SigCgt"], 16) == 0, status["SigCgt"]


DISPOSITIONS = """
import signal
shown = []
for number in (signal.SIGINT, signal.SIGPIPE, signal.SIGXFSZ, signal.SIGTERM):
    handler = signal.getsignal(number)
    shown.append(getattr(handler, "__name__", None) or int(handler))
print(shown)
"""
FRESH_PYTHON = "['default_int_handler', 1, 1, 0]"
"""What ``python -c`` sets at start: SIGINT raises KeyboardInterrupt, SIGPIPE and SIGXFSZ are
ignored (SIG_IGN: a write fails with an error instead), SIGTERM is left at SIG_DFL."""

CLOSED_PIPE = """
import os
read_end, write_end = os.pipe()
os.close(read_end)
try:
    os.write(write_end, b"x")
except BrokenPipeError:
    print("caught")
"""


def test_python_starts_with_a_fresh_interpreters_signal_dispositions(backend: Sandbox) -> None:
    """A pool job's Python code runs in a fork of its worker, not a new interpreter: with the
    worker's SIGPIPE it was killed writing to a closed pipe where a fresh interpreter, as on
    the bubblewrap backend, raises BrokenPipeError, which a correct program may handle."""
    shown = py(backend, DISPOSITIONS)
    assert shown.ok, shown
    assert shown.stdout.strip() == FRESH_PYTHON
    alone = py(backend, CLOSED_PIPE)
    assert (alone.exit_code, alone.signal, alone.stdout) == (0, None, "caught\n"), alone
    command = [backend.python, "-I", "-S", "-c", CLOSED_PIPE]
    batched = run_many(backend, command, [Run(files={}, limits=QUICK)] * 2)
    assert [(r.exit_code, r.signal, r.stdout) for r in batched] == [(0, None, "caught\n")] * 2


def test_executed_commands_start_with_every_signal_at_its_default(backend: Sandbox) -> None:
    """A command the pool executes inherited its worker's ignored SIGXFSZ: a file written past
    the size limit failed with an error and the command went on, where on the bubblewrap
    backend the kernel's signal stops it (status 153 in the shell)."""
    script = """
grep '^SigIgn:' /proc/self/status
head -c 2000000 /dev/zero > big
echo "status $?"
"""
    limits = QUICK.model_copy(update={"max_file_mb": 1})
    result = sh(backend, script, limits)
    lines = result.stdout.split("\n")
    # Nothing ignored, as in a fresh process, whatever this process (the host) ignores.
    assert lines[0] == "SigIgn:\t0000000000000000", result
    assert "status 153" in lines, result
    assert_healthy(backend)
