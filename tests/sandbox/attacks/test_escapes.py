"""Escapes through the kernel: mounts, new namespaces, other system-call ABIs, privileged
system calls and privilege changes. Each must be refused, whatever the route."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.sandbox import Sandbox
from tests.sandbox.attacks._support import TOKEN, py, sh

pytestmark = pytest.mark.sandbox

CLONE_FLAGS = {
    "NEWNS": 0x00020000,
    "NEWCGROUP": 0x02000000,
    "NEWUTS": 0x04000000,
    "NEWIPC": 0x08000000,
    "NEWUSER": 0x10000000,
    "NEWPID": 0x20000000,
    "NEWNET": 0x40000000,
    "NEWTIME": 0x00000080,
}

LIBC = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def report(label, rc):
    if rc == -1:
        print("refused", label, os.strerror(ctypes.get_errno()))
    else:
        print("ESCAPED", label, rc, flush=True)
"""


def test_mounting(backend: Sandbox) -> None:
    """mount(2) of tmpfs, proc and a bind mount; read-write remounts of / and /usr; umount2 of
    the masking mounts; pivot_root; the new mount API; and mount(8) from the shell.

    Harmless if they worked: mounts go on a directory of the job's own and are undone at once,
    umount2 only marks for expiry, pivot_root names a directory that does not exist. What counts
    is getting past the permission check (EPERM)."""
    code = (
        LIBC
        + """
import errno
MS_BIND, MS_REMOUNT, MNT_DETACH, MNT_EXPIRE = 4096, 32, 2, 4
os.makedirs("mnt", exist_ok=True)
os.makedirs("src", exist_ok=True)
def mounted(label, rc):
    report(label, rc)
    if rc == 0:
        libc.umount2(b"mnt", MNT_DETACH)
def permitted(label, rc):
    error = ctypes.get_errno()
    if rc >= 0 or error not in (errno.EPERM, errno.EACCES):
        print("ESCAPED", label, rc, errno.errorcode.get(error), flush=True)
    else:
        print("refused", label, errno.errorcode.get(error))
mounted("mount tmpfs", libc.mount(b"none", b"mnt", b"tmpfs", 0, None))
mounted("mount proc", libc.mount(b"proc", b"mnt", b"proc", 0, None))
mounted("bind", libc.mount(b"src", b"mnt", None, MS_BIND, None))
report("remount / rw", libc.mount(None, b"/", None, MS_REMOUNT | MS_BIND, None))
report("remount /usr rw", libc.mount(None, b"/usr", None, MS_REMOUNT | MS_BIND, None))
for target in [b"/proc", b"/tmp", b"/dev", b"/usr", os.getcwd().encode()]:
    permitted("umount " + target.decode(), libc.umount2(target, MNT_EXPIRE))
permitted("pivot_root", libc.syscall(155, b".", b"assay-no-such-directory"))
report("fsopen", libc.syscall(430, b"tmpfs", 0))
report("open_tree", libc.syscall(428, -100, b"/", 1))
report("fspick", libc.syscall(433, -100, b"/", 0))
"""
    )
    result = py(backend, code)
    shell = sh(
        backend,
        "mkdir -p m s; mount -t tmpfs none m && { echo ESCAPED mount8; umount m; }\n"
        "mount --bind s m && { echo ESCAPED bind8; umount m; }\n"
        "mount -o remount,rw / && echo ESCAPED remount8\nexit 0",
    )
    assert result.exit_code == 0, result
    assert "ESCAPED" not in result.stdout
    assert "ESCAPED" not in shell.stdout


def test_unshare(backend: Sandbox) -> None:
    """unshare(2) with each namespace flag, then unshare(1) and a nested bubblewrap."""
    code = LIBC + "".join(
        f'report("unshare {name}", libc.unshare({flag}))\n' for name, flag in CLONE_FLAGS.items()
    )
    result = py(backend, code)
    shell = sh(
        backend,
        "unshare -Ur id && echo ESCAPED unshare-user\n"
        "unshare -m true && echo ESCAPED unshare-mount\n"
        "unshare -n true && echo ESCAPED unshare-net\n"
        "bwrap --bind / / --unshare-user true 2>/dev/null && echo ESCAPED nested-bwrap\n"
        "bwrap --dev-bind / / true 2>/dev/null && echo ESCAPED nested-bwrap-plain\nexit 0",
    )
    assert result.exit_code == 0, result
    assert "ESCAPED" not in result.stdout
    assert "ESCAPED" not in shell.stdout


def test_clone_with_namespace_flags(backend: Sandbox) -> None:
    """The raw clone system call (56) with each namespace flag, and clone3 (435), which takes
    its flags in memory where a filter cannot see them. A child, if one is made, leaves at once
    and the parent reports it."""
    code = (
        LIBC
        + f"""
import struct
SIGCHLD = 17
def attempt(label, number, *args):
    pid = libc.syscall(number, *args)
    if pid == 0:
        os._exit(42)
    if pid > 0:
        os.waitpid(pid, 0)
        print("ESCAPED", label, pid, flush=True)
    else:
        print("refused", label, os.strerror(ctypes.get_errno()))
for name, flag in {CLONE_FLAGS!r}.items():
    attempt("clone " + name, 56, ctypes.c_ulong(flag | SIGCHLD), None, None, None, None)
    clone_args = struct.pack("=11Q", flag, 0, 0, 0, SIGCHLD, *[0] * 6)
    args = ctypes.create_string_buffer(clone_args)
    attempt("clone3 " + name, 435, args, ctypes.c_size_t(88))
"""
    )
    result = py(backend, code)
    assert result.exit_code == 0, result
    assert "ESCAPED" not in result.stdout


def test_setns(backend: Sandbox) -> None:
    """Joining the namespaces of pid 1 and of the parent through /proc and through pidfds."""
    code = (
        LIBC
        + """
targets = sorted({1, os.getppid()})
for pid in targets:
    for kind in ["user", "mnt", "net", "pid", "ipc", "uts", "cgroup", "time"]:
        try:
            fd = os.open(f"/proc/{pid}/ns/{kind}", os.O_RDONLY)
        except OSError as exc:
            print("no", pid, kind, exc.errno)
            continue
        report(f"setns {pid} {kind}", libc.setns(fd, 0))
        os.close(fd)
    pidfd = libc.syscall(434, pid, 0)
    if pidfd >= 0:
        report(f"setns pidfd {pid}", libc.setns(pidfd, 0x10000000 | 0x00020000))
"""
    )
    result = py(backend, code)
    assert result.exit_code == 0, result
    assert "ESCAPED" not in result.stdout


def test_other_system_call_abis(backend: Sandbox) -> None:
    """unshare(CLONE_NEWUSER) through the i386 ABI (int 0x80, where x86_64 numbers mean other
    calls) and through the x32 ABI (numbers with bit 30 set): a filter that checks only x86_64
    numbers would let both through. Run in a child, which the filter may simply kill."""
    code = (
        LIBC
        + """
import mmap, platform
if platform.machine() != "x86_64":
    print("not x86_64")
    raise SystemExit(0)
# mov eax, 310 (i386 unshare); mov ebx, CLONE_NEWUSER; int 0x80; ret
machine = (bytes([0xB8]) + (310).to_bytes(4, "little") + bytes([0xBB])
           + (0x10000000).to_bytes(4, "little") + bytes([0xCD, 0x80, 0xC3]))
read_end, write_end = os.pipe()
pid = os.fork()
if pid == 0:
    page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(machine)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    rc = ctypes.CFUNCTYPE(ctypes.c_int)(address)()
    os.write(write_end, str(rc).encode())
    os._exit(0)
os.close(write_end)
_, status = os.waitpid(pid, 0)
answer = os.read(read_end, 64).decode()
print("i386 status", status, "returned", answer)
if answer == "0":
    print("ESCAPED i386 unshare", flush=True)
report("x32 unshare", libc.syscall(0x40000000 | 272, 0x10000000))
report("x32 mount", libc.syscall(0x40000000 | 165, b"none", b"/workspace", b"tmpfs", 0, None))
"""
    )
    result = py(backend, code)
    assert result.exit_code == 0, result
    assert "ESCAPED" not in result.stdout


PRIVILEGED_CALLS = {
    # name: (number, arguments). Arguments are invalid or no-ops, so that getting past the
    # filter and the permission checks shows up as EINVAL/EFAULT/ENOENT instead of doing
    # anything. All of these are denied by the seccomp filter every backend installs.
    "reboot": (169, (0, 0, 0xDEADBEEF, None)),
    "init_module": (175, (None, 0, None)),
    "finit_module": (313, (-1, None, 0)),
    "delete_module": (176, (b"assay_no_such_module", 0)),
    "kexec_load": (246, (0, 0, None, 0xFFFF0000)),
    "swapon": (167, (b"/workspace/no-such-swap", 0)),
    "swapoff": (168, (b"/workspace/no-such-swap",)),
    "acct": (163, (b"/workspace/no-such-acct",)),
    "quotactl": (179, (0, b"/dev/null", 0, None)),
    "syslog-console-level": (103, (8, None, 0)),
    "bpf": (321, (0xFFFF, None, 0)),
    "perf_event_open": (298, (None, 0, -1, -1, 0)),
    "userfaultfd": (323, (0,)),
    "keyctl": (250, (0, -3, 0)),
    "add_key": (248, (b"assay_no_such_type", b"assay", None, 0, -3)),
    "open_by_handle_at": (304, (-100, None, 0)),
    "name_to_handle_at": (303, (-100, b"/", None, None, 0)),
    "iopl": (172, (3,)),
    "ioperm": (173, (0x80, 1, 1)),
    # Both check their arguments before the caller's privilege (EINVAL, EFAULT), so only the
    # filter, not the missing capability, can make them fail with EPERM.
    "umount2 (bad flags)": (166, (b"/", 0xFFFF)),
    "mount (bad type pointer)": (165, (b"none", b"/workspace", 1, 0, None)),
}


def test_privileged_system_calls(backend: Sandbox) -> None:
    """Module loading, kexec, reboot, swap, accounting, bpf, perf, keyrings, file handles, I/O
    ports: each must fail with EPERM (or ENOSYS), not get as far as checking its arguments."""
    code = (
        LIBC
        + f"""
import errno
name = os.uname().nodename.encode()
calls = {PRIVILEGED_CALLS!r}
calls["sethostname (to its own name)"] = (170, (name, len(name)))
for name, (number, args) in calls.items():
    rc = libc.syscall(number, *args)
    error = ctypes.get_errno()
    if rc >= 0 or error not in (errno.EPERM, errno.ENOSYS, errno.EACCES):
        print("REACHED", name, rc, errno.errorcode.get(error), flush=True)
    else:
        print("refused", name, errno.errorcode.get(error))
"""
    )
    result = py(backend, code)
    assert result.exit_code == 0, result
    assert "REACHED" not in result.stdout


def test_gaining_privileges(backend: Sandbox) -> None:
    """setuid(0) and friends, extra groups, ambient capabilities, and whatever capability the
    job might hold at the start (inheritable ones too, unless no_new_privs makes them inert)."""
    code = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
lines = open("/proc/self/status").read().splitlines()
status = dict(line.split(":\\t", 1) for line in lines if ":\\t" in line)
# inheritable capabilities count only where execve could still turn them into permitted ones
fields = ["CapPrm", "CapEff", "CapAmb"] + (["CapInh"] if status["NoNewPrivs"] != "1" else [])
for field in fields:
    if int(status[field], 16):
        print("CAPABLE", field, status[field], flush=True)
attempts = {
    "setuid": lambda: os.setuid(0),
    "seteuid": lambda: os.seteuid(0),
    "setresuid": lambda: os.setresuid(0, 0, 0),
    "setgid": lambda: os.setgid(0),
    "setgroups": lambda: os.setgroups([0]),
}
for label, attempt in attempts.items():
    try:
        attempt()
        print("GAINED", label, flush=True)
    except OSError as exc:
        print("refused", label, exc.errno)
for cap in range(41):
    if libc.prctl(47, 2, cap, 0, 0) == 0:  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE
        print("GAINED ambient", cap, flush=True)
print("ids", os.getresuid(), os.getresgid(), os.getgroups())
"""
    result = py(backend, code)
    assert result.exit_code == 0, result
    assert "CAPABLE" not in result.stdout
    assert "GAINED" not in result.stdout


def test_job_is_not_host_root(backend: Sandbox) -> None:
    """The job's user must not be the host user that owns the system files.

    With bubblewrap started by root and ``--unshare-user --uid 1000``, uid 1000 inside maps to
    uid 0 outside: no capabilities, but owner permissions on every root-owned object the job can
    reach, such as root-only files on bound mounts (test_secrets) and the global sysctls under
    /proc/sys, whose permission check compares against host root (test_writes).
    """
    owned = [path for path in ("/usr", "/usr/bin", "/etc/passwd") if Path(path).stat().st_uid == 0]
    assert owned, "no root-owned system path on this host; the test cannot show anything"
    code = f"""
import os
print("uid", os.getuid(), os.geteuid(), "gid", os.getgid())
for path in {owned!r}:
    try:
        if os.stat(path).st_uid == os.geteuid():
            print("OWNS", path, flush=True)
    except OSError as exc:
        print("no", path, exc)
for path in ["/proc/self/uid_map", "/proc/self/gid_map"]:
    try:
        print(path, open(path).read().split())
    except OSError as exc:
        print("no", path, exc)
"""
    result = py(backend, code)
    assert result.exit_code == 0, result
    assert "uid 0 " not in result.stdout
    assert "OWNS" not in result.stdout


def test_hostname_of_the_host_is_unchanged(backend: Sandbox) -> None:
    """sethostname/setdomainname and writes to the UTS sysctls must not rename the host."""
    before = Path("/proc/sys/kernel/hostname").read_text()
    code = f"""
import socket
try:
    socket.sethostname("{TOKEN}")
    print("renamed the job's own host")
except OSError as exc:
    print("refused", exc)
for path in ["/proc/sys/kernel/hostname", "/proc/sys/kernel/domainname"]:
    try:
        with open(path, "w") as handle:
            handle.write("{TOKEN}")
        print("wrote", path)
    except OSError as exc:
        print("refused", path, exc)
"""
    domain = Path("/proc/sys/kernel/domainname").read_text()
    try:
        result = py(backend, code)
        after = Path("/proc/sys/kernel/hostname").read_text()
    finally:
        for path, value in [("hostname", before), ("domainname", domain)]:
            if Path(f"/proc/sys/kernel/{path}").read_text() != value:
                Path(f"/proc/sys/kernel/{path}").write_text(value)
    assert result.exit_code == 0, result
    assert TOKEN not in after
    assert after == before


def test_io_uring_cannot_be_set_up(backend: Sandbox) -> None:
    """io_uring submits operations the seccomp filter never sees as system calls: through its
    IORING_OP_SOCKET a job once made netlink sockets and read the host's device events."""
    code = (
        LIBC
        + """
params = ctypes.create_string_buffer(120)
report("io_uring_setup", libc.syscall(425, 8, params))
report("io_uring_enter", libc.syscall(426, 0, 1, 0, 0, None, 0))
report("io_uring_register", libc.syscall(427, 0, 0, None, 0))
"""
    )
    result = py(backend, code)
    assert result.exit_code == 0, result
    assert "ESCAPED" not in result.stdout
    assert result.stdout.count("refused") == 3
    assert "Operation not permitted" in result.stdout
