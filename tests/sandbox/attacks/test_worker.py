"""A pool job against its own worker: nothing it sets on the worker outlives it.

Under root, and with subordinate ids, a job's uid is not its worker's, so the kernel refuses it
most of this by itself; without subordinate ids the job runs as its worker's uid, and these
attacks are what the worker's other defences are for (init of its PID namespace, its /proc
entry covered, /proc/sys read-only, the seccomp filter's "caller only" rules). CI runs this
file in all three ways.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.families import harness_code
from assay.sandbox import PoolSandbox, _userns
from assay.sandbox._seccomp import NO_FILTER_NOTE
from assay.tasks import Limits
from tests.sandbox.attacks._support import py

pytestmark = pytest.mark.sandbox

ATTACK = """
import ctypes, os, resource, signal
def attempt(label, action):
    try:
        action()
        print("DONE", label, flush=True)
    except OSError as exc:
        print("refused", label, exc.errno, flush=True)
def write(path, value):
    with open(path, "w") as handle:
        handle.write(value)
libc = ctypes.CDLL(None, use_errno=True)
def ioprio(which, who):
    if libc.syscall(251, which, who, (3 << 13) | 7) != 0:
        raise OSError(ctypes.get_errno(), "ioprio_set")
attempt("prlimit-nofile", lambda: resource.prlimit(1, resource.RLIMIT_NOFILE, (3, 3)))
attempt("prlimit-nproc", lambda: resource.prlimit(1, resource.RLIMIT_NPROC, (1, 1)))
attempt("nice-worker", lambda: os.setpriority(os.PRIO_PROCESS, 1, 19))
attempt("nice-user", lambda: os.setpriority(os.PRIO_USER, 0, 19))
attempt("nice-group", lambda: os.setpriority(os.PRIO_PGRP, 1, 19))
attempt("affinity", lambda: os.sched_setaffinity(1, {0}))
attempt("scheduler", lambda: os.sched_setscheduler(1, os.SCHED_IDLE, os.sched_param(0)))
attempt("ioprio-worker", lambda: ioprio(1, 1))
attempt("ioprio-user", lambda: ioprio(3, 0))
attempt("oom-score", lambda: write("/proc/1/oom_score_adj", "1000"))
attempt("coredump-filter", lambda: write("/proc/1/coredump_filter", "0x7f"))
attempt("status", lambda: open("/proc/1/status").read())
attempt("pid-max", lambda: write("/proc/sys/kernel/pid_max", "400"))
attempt("ns-last-pid", lambda: write("/proc/sys/kernel/ns_last_pid", "5000"))
attempt("stop", lambda: os.kill(1, signal.SIGSTOP))
attempt("kill", lambda: os.kill(1, signal.SIGKILL))
attempt("kill-all", lambda: os.kill(-1, signal.SIGKILL))
"""
CHANGES = (
    "prlimit-nofile",
    "prlimit-nproc",
    "nice-worker",
    "nice-user",
    "nice-group",
    "affinity",
    "scheduler",
    "ioprio-worker",
    "ioprio-user",
    "oom-score",
    "coredump-filter",
    "status",
    "pid-max",
    "ns-last-pid",
)
"""Attempts that, done, would change the worker or read it (signals to init are dropped by the
kernel without an error, so they are judged by the worker surviving)."""


@pytest.fixture
def one_worker() -> Iterator[PoolSandbox]:
    with PoolSandbox(max_workers=1, trusted_code=harness_code()) as pool:
        yield pool


def _worker_state(pool: PoolSandbox) -> dict[str, str]:
    """What the host sees of the only worker's zygote: its limits, priority, CPUs, OOM score."""
    (worker,) = pool._idle
    zygote = worker.pids[1]
    proc = Path(f"/proc/{zygote}")
    stat = proc.joinpath("stat").read_text().rsplit(")", 1)[1].split()
    status = dict(line.split(":", 1) for line in proc.joinpath("status").read_text().splitlines())
    return {
        "pid": str(zygote),
        "limits": proc.joinpath("limits").read_text(),
        "nice": stat[16],
        "policy": stat[38],
        "cpus": status["Cpus_allowed_list"].strip(),
        "oom": proc.joinpath("oom_score_adj").read_text(),
        "coredump": proc.joinpath("coredump_filter").read_text(),
    }


def test_a_job_cannot_change_or_stop_its_worker(one_worker: PoolSandbox) -> None:
    limits = Limits(timeout_s=5, memory_mb=128)
    assert py(one_worker, "print('warm')", limits).exit_code == 0
    before = _worker_state(one_worker)
    result = py(one_worker, ATTACK, limits)
    done = [line.split()[1] for line in result.stdout.splitlines() if line.startswith("DONE")]
    assert [label for label in done if label in CHANGES] == [], result.stdout
    after = py(one_worker, "import os; print(os.getpid(), os.getppid())", limits)
    assert after.exit_code == 0, after
    assert after.stdout.split() == ["100", "1"]
    assert one_worker.recycled == 0, "the attack ended its worker"
    assert _worker_state(one_worker) == before


def test_the_identity_is_reported(one_worker: PoolSandbox) -> None:
    """Root, subordinate ids or the user's own uid: only the last loses anything, and says so."""
    kind = one_worker.identity.kind
    assert kind == ("root" if os.geteuid() == 0 else kind)
    shared = [note for note in one_worker.notes if "no subordinate ids" in note]
    assert bool(shared) == (kind == "shared")
    result = py(one_worker, "print(1)", Limits(timeout_s=5, memory_mb=64))
    assert tuple(shared) == tuple(n for n in result.notes if "no subordinate ids" in n)


def test_no_note_says_a_job_can_change_its_worker(one_worker: PoolSandbox) -> None:
    """Without subordinate ids every result said a job "can slow down or reconfigure its own
    worker (its priority, CPU affinity)", which the seccomp filter refuses (the attack above);
    only a host without the filter loses that, and its note says so."""
    claim = re.compile(r"\bjob can\b[^;]*\b(priority|affinity)")
    if NO_FILTER_NOTE not in one_worker.notes:
        for note in (*one_worker.notes, _userns.SHARED_NOTE):
            assert not claim.search(note), note
    assert "priority or CPU affinity" in NO_FILTER_NOTE
