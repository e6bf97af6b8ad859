"""The seccomp filter every sandboxed job runs under, as a classic BPF program.

Compiled once (pure Python, no libseccomp needed) and installed either by bubblewrap
(``--seccomp FD``) or, in two parts, by the warm pool (:func:`split_program`). It denies, with
``EPERM``:

- tracing and reading other processes: ptrace, process_vm_readv/writev, pidfd_getfd;
- mounting and namespaces: mount, umount2, pivot_root, the new mount API, unshare, setns, and
  ``clone`` with any namespace flag; ``clone3`` gets ``ENOSYS`` so the C library falls back to
  ``clone``, whose flags can be checked;
- System V and POSIX IPC, which would let one job leave state for the next;
- the kernel keyring, clock and time setting, module loading, bpf, kexec, reboot, swap, acct,
  quotactl, syslog, perf_event_open, userfaultfd, open_by_handle_at, iopl/ioperm;
- io_uring, a second way into the kernel that a filter on system calls never sees (its
  ``IORING_OP_SOCKET`` made netlink sockets a plain ``socket`` call could not);
- sockets of any family but ``AF_UNIX``, ``AF_INET`` and ``AF_INET6`` (what a Python task
  uses), ``socketpair`` of any family but ``AF_UNIX``, and raw sockets of any family; for a job
  run without sockets, ``socket`` and ``socketpair`` altogether;
- changing the core-dump limit (RLIMIT_CORE, which every job holds at 1: under a core pattern
  that pipes to a program, the kernel starts that program, outside the job's limits, for a
  crash under any other limit);
- changing another process's limits, scheduling, priority or memory placement (prlimit64,
  sched_set*, setpriority, ioprio_set, migrate_pages, move_pages with another target than the
  caller): where jobs run as their worker's uid (a pool without root or subordinate ids), the
  kernel would let a job change its worker, and what it set would outlive the job.

Only x86_64 is described; elsewhere :func:`filter_program` returns ``None`` and callers note the
lost protection.
"""

from __future__ import annotations

import platform
import struct
from collections.abc import Iterable

# BPF opcodes
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_AND_K = 0x54
_RET_K = 0x06

_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_BIT = 0x40000000
_ALLOW = 0x7FFF0000
_KILL_PROCESS = 0x80000000
_EPERM = 0x00050000 | 1
_ENOSYS = 0x00050000 | 38

_NR_OFFSET, _ARCH_OFFSET = 0, 4


def _arg_low(index: int) -> int:
    return 16 + 8 * index


X86_64_DENIED = {
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "pidfd_getfd": 438,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "unshare": 272,
    "setns": 308,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "shmget": 29,
    "shmat": 30,
    "shmctl": 31,
    "shmdt": 67,
    "semget": 64,
    "semop": 65,
    "semctl": 66,
    "semtimedop": 220,
    "msgget": 68,
    "msgsnd": 69,
    "msgrcv": 70,
    "msgctl": 71,
    "mq_open": 240,
    "mq_unlink": 241,
    "mq_timedsend": 242,
    "mq_timedreceive": 243,
    "mq_notify": 244,
    "mq_getsetattr": 245,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "settimeofday": 164,
    "clock_settime": 227,
    "clock_adjtime": 305,
    "adjtimex": 159,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "bpf": 321,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "reboot": 169,
    "swapon": 167,
    "swapoff": 168,
    "acct": 163,
    "quotactl": 179,
    "syslog": 103,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "open_by_handle_at": 304,
    "name_to_handle_at": 303,
    "iopl": 172,
    "ioperm": 173,
    "lookup_dcookie": 212,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
}
_CLONE, _CLONE3, _SOCKET, _SOCKETPAIR = 56, 435, 41, 53
_CLONE_NAMESPACES = (
    0x00020000  # CLONE_NEWNS
    | 0x02000000  # CLONE_NEWCGROUP
    | 0x04000000  # CLONE_NEWUTS
    | 0x08000000  # CLONE_NEWIPC
    | 0x10000000  # CLONE_NEWUSER
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
    | 0x00000080  # CLONE_NEWTIME
)
_PRLIMIT64, _SETRLIMIT, _RLIMIT_CORE = 302, 160, 4
_SELF_ONLY = {
    "sched_setaffinity": 203,
    "sched_setparam": 142,
    "sched_setscheduler": 144,
    "sched_setattr": 314,
    "migrate_pages": 256,
    "move_pages": 279,
}
"""Calls whose first argument names a process: allowed only for the caller itself (0)."""
_SELF_ONLY_WHICH = {"setpriority": (141, 0), "ioprio_set": (251, 1)}
"""Calls that name their target as (which, who): only (PRIO_PROCESS / IOPRIO_WHO_PROCESS, 0)."""
_AF_UNIX, _AF_INET, _AF_INET6, _SOCK_RAW, _SOCK_TYPE_MASK = 1, 2, 10, 3, 0xF
SOCKET_FAMILIES = {"AF_UNIX": _AF_UNIX, "AF_INET": _AF_INET, "AF_INET6": _AF_INET6}
"""The socket families a job may open; every other one is refused."""


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def _build_x86_64(denied: Iterable[int], *, argument_checks: bool) -> bytes:
    program = [
        _insn(_LD_W_ABS, _ARCH_OFFSET),
        _insn(_JEQ_K, _AUDIT_ARCH_X86_64, 1, 0),
        _insn(_RET_K, _KILL_PROCESS),
        _insn(_LD_W_ABS, _NR_OFFSET),
        _insn(_JGE_K, _X32_BIT, 0, 1),
        _insn(_RET_K, _EPERM),
    ]
    for number in sorted(denied):
        program += [_insn(_JEQ_K, number, 0, 1), _insn(_RET_K, _EPERM)]
    if argument_checks:
        program += _argument_checks()
    program.append(_insn(_RET_K, _ALLOW))
    return b"".join(program)


def _argument_checks() -> list[bytes]:
    # clone3 takes its flags in memory, out of a filter's sight: ENOSYS sends the C library
    # back to clone, whose first argument is checked for namespace flags.
    program = [_insn(_JEQ_K, _CLONE3, 0, 1), _insn(_RET_K, _ENOSYS)]
    program += [
        _insn(_JEQ_K, _CLONE, 0, 4),
        _insn(_LD_W_ABS, _arg_low(0)),
        _insn(_JSET_K, _CLONE_NAMESPACES, 0, 1),
        _insn(_RET_K, _EPERM),
        _insn(_RET_K, _ALLOW),
    ]
    # socket: an allow-list of families, and no raw sockets in any of them
    program += [
        _insn(_JEQ_K, _SOCKET, 0, 10),
        _insn(_LD_W_ABS, _arg_low(0)),
        _insn(_JEQ_K, _AF_UNIX, 3, 0),
        _insn(_JEQ_K, _AF_INET, 2, 0),
        _insn(_JEQ_K, _AF_INET6, 1, 0),
        _insn(_RET_K, _EPERM),
        _insn(_LD_W_ABS, _arg_low(1)),
        _insn(_AND_K, _SOCK_TYPE_MASK),
        _insn(_JEQ_K, _SOCK_RAW, 0, 1),
        _insn(_RET_K, _EPERM),
        _insn(_RET_K, _ALLOW),
    ]
    # socketpair: only AF_UNIX makes pairs; anything else is refused before the kernel looks
    program += [
        _insn(_JEQ_K, _SOCKETPAIR, 0, 4),
        _insn(_LD_W_ABS, _arg_low(0)),
        _insn(_JEQ_K, _AF_UNIX, 0, 1),
        _insn(_RET_K, _ALLOW),
        _insn(_RET_K, _EPERM),
    ]
    program += _limit_checks()
    for number in _SELF_ONLY.values():
        program += [
            _insn(_JEQ_K, number, 0, 4),
            _insn(_LD_W_ABS, _arg_low(0)),
            _insn(_JEQ_K, 0, 1, 0),
            _insn(_RET_K, _EPERM),
            _insn(_RET_K, _ALLOW),
        ]
    for number, which in _SELF_ONLY_WHICH.values():
        program += [
            _insn(_JEQ_K, number, 0, 6),
            _insn(_LD_W_ABS, _arg_low(0)),
            _insn(_JEQ_K, which, 0, 2),
            _insn(_LD_W_ABS, _arg_low(1)),
            _insn(_JEQ_K, 0, 1, 0),
            _insn(_RET_K, _EPERM),
            _insn(_RET_K, _ALLOW),
        ]
    return program


def _limit_checks() -> list[bytes]:
    """prlimit64 for the caller alone (0), and neither it nor setrlimit changing RLIMIT_CORE
    (reading it, with no new limit given, is allowed)."""
    return [
        _insn(_JEQ_K, _PRLIMIT64, 0, 12),
        _insn(_LD_W_ABS, _arg_low(0)),
        _insn(_JEQ_K, 0, 1, 0),
        _insn(_RET_K, _EPERM),
        _insn(_LD_W_ABS, _arg_low(1)),
        _insn(_JEQ_K, _RLIMIT_CORE, 1, 0),
        _insn(_RET_K, _ALLOW),
        _insn(_LD_W_ABS, _arg_low(2)),  # the new limit: only a NULL pointer, both halves 0
        _insn(_JEQ_K, 0, 0, 3),
        _insn(_LD_W_ABS, _arg_low(2) + 4),
        _insn(_JEQ_K, 0, 0, 1),
        _insn(_RET_K, _ALLOW),
        _insn(_RET_K, _EPERM),
        _insn(_JEQ_K, _SETRLIMIT, 0, 4),
        _insn(_LD_W_ABS, _arg_low(0)),
        _insn(_JEQ_K, _RLIMIT_CORE, 0, 1),
        _insn(_RET_K, _EPERM),
        _insn(_RET_K, _ALLOW),
    ]


def filter_program(*, sockets: bool = True) -> bytes | None:
    """The compiled filter (an array of ``struct sock_filter``), or ``None`` on other arches.
    Without ``sockets``, ``socket`` and ``socketpair`` are denied too, whatever the family."""
    if platform.machine() != "x86_64":
        return None
    denied = [*X86_64_DENIED.values(), *(() if sockets else SOCKET_CALLS)]
    return _build_x86_64(denied, argument_checks=True)


SOCKET_CALLS = (_SOCKET, _SOCKETPAIR)
"""What a job run without sockets cannot call: with no socket it can neither make nor be
handed one (its descriptors are pipes), so it cannot change its network namespace."""

WORKER_NEEDS = frozenset({"mount", "umount2", "unshare"})
"""Denied calls a pool worker still makes after installing its part: it mounts each job's
scratch directories and makes a fresh network namespace after each job that left a trace in
its own."""


def split_program() -> tuple[bytes, bytes, bytes] | None:
    """The filter in parts that together deny what :func:`filter_program` denies: the worker's
    part (all but :data:`WORKER_NEEDS`), installed once when a worker starts and inherited by
    every job; the job's part (just those), installed in each job; and the part of a job run
    without sockets (those and :data:`SOCKET_CALLS`). The kernel runs every filter a process
    has and the strictest answer wins, and a small part costs each job far less to install than
    the whole filter. ``None`` on other arches."""
    if platform.machine() != "x86_64":
        return None
    worker = [n for name, n in X86_64_DENIED.items() if name not in WORKER_NEEDS]
    job = [X86_64_DENIED[name] for name in sorted(WORKER_NEEDS)]
    return (
        _build_x86_64(worker, argument_checks=True),
        _build_x86_64(job, argument_checks=False),
        _build_x86_64([*job, *SOCKET_CALLS], argument_checks=False),
    )


NO_FILTER_NOTE = (
    "no seccomp filter for this CPU architecture: namespace, IPC, tracing and mount system calls "
    "are not filtered, nor changes to other processes' limits, priority or CPU affinity (a pool "
    "worker's, where its jobs run as its uid)"
)
