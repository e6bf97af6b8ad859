"""The seccomp filter as a program: what it answers for each system call, read by a small
interpreter of classic BPF. The attack suite checks the same filter against the kernel."""

from __future__ import annotations

import struct

import pytest

from assay.sandbox._seccomp import (
    WORKER_NEEDS,
    X86_64_DENIED,
    filter_program,
    split_program,
)

ALLOW, EPERM, ENOSYS, KILL = 0x7FFF0000, 0x00050001, 0x00050026, 0x80000000
X86_64, I386 = 0xC000003E, 0x40000003
CLONE, CLONE3, SOCKET, SOCKETPAIR = 56, 435, 41, 53
CLONE_NEWUSER, SIGCHLD = 0x10000000, 17
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_VSOCK, AF_ALG = 1, 2, 10, 16, 17, 40, 38
SOCK_STREAM, SOCK_DGRAM, SOCK_RAW = 1, 2, 3
IO_URING_SETUP, IO_URING_ENTER, IO_URING_REGISTER = 425, 426, 427


def run(program: bytes, nr: int, args: tuple[int, ...] = (), arch: int = X86_64) -> int:
    """What ``program`` returns for one call (struct seccomp_data: nr, arch, ip, args)."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, *(list(args) + [0] * 6)[:6])
    insns = [struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    pc, acc = 0, 0
    while True:
        code, jt, jf, k = insns[pc]
        pc += 1
        if code == 0x20:  # ld [k]
            acc = struct.unpack_from("=I", data, k)[0]
        elif code == 0x54:  # and #k
            acc &= k
        elif code == 0x06:  # ret #k
            return k
        elif code in (0x15, 0x35, 0x45):  # jeq, jge, jset
            taken = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[code]
            pc += jt if taken else jf
        else:
            raise AssertionError(f"unknown instruction {code:#x}")


def strictest(*answers: int) -> int:
    """The kernel runs every filter and keeps the answer with the highest precedence."""
    rank = {KILL: 0, ENOSYS: 1, EPERM: 1, ALLOW: 2}
    return min(answers, key=lambda answer: rank[answer])


CALLS = [(nr, ()) for nr in range(470)] + [
    (CLONE, (SIGCHLD,)),
    (CLONE, (CLONE_NEWUSER | SIGCHLD,)),
    (SOCKET, (AF_INET, SOCK_STREAM)),
    (SOCKET, (AF_INET, SOCK_RAW)),
    (SOCKET, (AF_NETLINK, SOCK_STREAM)),
    *[(SOCKET, (family, SOCK_STREAM)) for family in range(64)],
    *[(SOCKETPAIR, (family, SOCK_STREAM)) for family in range(64)],
    (0x40000000 | 272, ()),  # x32 unshare
    *[(302, (pid, resource, new)) for pid in (0, 1) for resource in range(16) for new in (0, 8)],
    *[(160, (resource, 8)) for resource in range(16)],
]


def test_the_filter_denies_what_it_lists_and_checks_arguments() -> None:
    program = filter_program()
    if program is None:
        pytest.skip("no filter for this architecture")
    for nr in X86_64_DENIED.values():
        assert run(program, nr) == EPERM
    assert run(program, 0) == ALLOW  # read
    assert run(program, CLONE3) == ENOSYS
    assert run(program, CLONE, (SIGCHLD,)) == ALLOW
    assert run(program, CLONE, (CLONE_NEWUSER | SIGCHLD,)) == EPERM
    assert run(program, SOCKET, (AF_INET, SOCK_STREAM)) == ALLOW
    assert run(program, SOCKET, (AF_INET, SOCK_RAW)) == EPERM
    assert run(program, SOCKET, (AF_NETLINK, SOCK_STREAM)) == EPERM
    assert run(program, 0x40000000 | 272) == EPERM
    assert run(program, 0, arch=I386) == KILL


def test_socket_families_are_an_allow_list() -> None:
    """What a Python task uses (Unix, IPv4, IPv6) is allowed; every other family, known today
    or added to the kernel later, is refused, and raw sockets in any family."""
    program = filter_program()
    if program is None:
        pytest.skip("no filter for this architecture")
    allowed = {AF_UNIX, AF_INET, AF_INET6}
    for family in range(64):
        for kind in (SOCK_STREAM, SOCK_DGRAM, SOCK_RAW):
            wanted = ALLOW if family in allowed and kind != SOCK_RAW else EPERM
            assert run(program, SOCKET, (family, kind)) == wanted, (family, kind)
        pair = ALLOW if family == AF_UNIX else EPERM
        assert run(program, SOCKETPAIR, (family, SOCK_STREAM)) == pair, family
    for family in (AF_NETLINK, AF_PACKET, AF_VSOCK, AF_ALG, 0xFFFF, 2**31):
        assert run(program, SOCKET, (family, SOCK_DGRAM)) == EPERM, family


def test_io_uring_is_denied() -> None:
    """io_uring runs operations (a socket among them) that the filter never sees as calls."""
    program = filter_program()
    if program is None:
        pytest.skip("no filter for this architecture")
    for nr in (IO_URING_SETUP, IO_URING_ENTER, IO_URING_REGISTER):
        assert run(program, nr) == EPERM
    assert run(program, 0, arch=I386) == KILL


def test_the_pool_parts_together_answer_as_the_whole_filter() -> None:
    whole, parts = filter_program(), split_program()
    socketless = filter_program(sockets=False)
    if whole is None or parts is None or socketless is None:
        pytest.skip("no filter for this architecture")
    worker, job, job_without_sockets = parts
    for nr, args in CALLS:
        assert strictest(run(worker, nr, args), run(job, nr, args)) == run(whole, nr, args), nr
        both = strictest(run(worker, nr, args), run(job_without_sockets, nr, args))
        assert both == run(socketless, nr, args), nr
    for part in (job, job_without_sockets):
        assert strictest(run(worker, 0, arch=I386), run(part, 0, arch=I386)) == KILL


def test_without_sockets_no_socket_of_any_family_is_made() -> None:
    """A job run without sockets can make none, so it cannot change its network namespace,
    which the pool then lets the next job have."""
    program = filter_program(sockets=False)
    if program is None:
        pytest.skip("no filter for this architecture")
    for family in range(64):
        for kind in (SOCK_STREAM, SOCK_DGRAM, SOCK_RAW):
            assert run(program, SOCKET, (family, kind)) == EPERM, (family, kind)
        assert run(program, SOCKETPAIR, (family, SOCK_STREAM)) == EPERM, family
    assert run(program, 0) == ALLOW  # read
    for nr in X86_64_DENIED.values():
        assert run(program, nr) == EPERM


def test_the_worker_part_leaves_the_worker_only_its_mounts_and_netns() -> None:
    parts = split_program()
    if parts is None:
        pytest.skip("no filter for this architecture")
    worker, job, _ = parts
    for name, nr in X86_64_DENIED.items():
        assert run(worker, nr) == (ALLOW if name in WORKER_NEEDS else EPERM), name
    assert {name for name, nr in X86_64_DENIED.items() if run(job, nr) == EPERM} == WORKER_NEEDS
    assert len(job) < len(worker) // 4  # the part installed per job is small


PRLIMIT64, SETRLIMIT, RLIMIT_NOFILE, RLIMIT_CORE = 302, 160, 7, 4


def test_the_core_limit_can_be_read_but_not_changed() -> None:
    """A job holds RLIMIT_CORE at 1, the one limit under which the kernel pipes no core to the
    host's handler: lowering it to 0 would bring that back."""
    program = filter_program()
    if program is None:
        pytest.skip("no filter for this architecture")
    new, old = 0x7FFC_0000_1000, 0x7FFC_0000_2000
    assert run(program, PRLIMIT64, (0, RLIMIT_CORE, 0, old)) == ALLOW  # getrlimit
    assert run(program, PRLIMIT64, (0, RLIMIT_CORE, new, old)) == EPERM
    assert run(program, PRLIMIT64, (0, RLIMIT_CORE, 0x1_0000_0000, 0)) == EPERM  # high half
    assert run(program, PRLIMIT64, (0, RLIMIT_NOFILE, new, old)) == ALLOW
    assert run(program, PRLIMIT64, (1, RLIMIT_NOFILE, new, old)) == EPERM  # another process
    assert run(program, SETRLIMIT, (RLIMIT_CORE, new)) == EPERM
    assert run(program, SETRLIMIT, (RLIMIT_NOFILE, new)) == ALLOW
    parts = split_program()
    assert parts is not None
    assert run(parts[0], SETRLIMIT, (RLIMIT_CORE, new)) == EPERM  # in the pool, the worker's
