"""Writes outside the workspace: nothing a job writes may land anywhere on the host but its own
(temporary) workspace. Every target is checked on the host afterwards.

Attacks that would damage the host if they worked only *open* existing host files for writing,
or write back what is already there (the same mode, times or value); that is enough to show
the hole, and a broken backend does no harm.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from pathlib import Path

import pytest

from assay.errors import AssayError
from assay.sandbox import Sandbox
from tests.sandbox.attacks._support import TMP, TOKEN, py, sh

pytestmark = pytest.mark.sandbox

CREATE = """
import os
for path in {paths!r}:
    try:
        with open(path, "x") as handle:
            handle.write("{token}")
        print("WROTE", path, flush=True)
    except OSError as exc:
        print("denied", path, exc.errno)
    try:
        os.mkdir(path + ".d")
        print("WROTE", path + ".d", flush=True)
    except OSError as exc:
        print("denied", path + ".d", exc.errno)
    try:
        os.symlink("/workspace", path + ".link")
        print("WROTE", path + ".link", flush=True)
    except OSError as exc:
        print("denied", path + ".link", exc.errno)
"""

OPEN_FOR_WRITING = """
import os
for path in {paths!r}:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        os.close(fd)
        print("OPENED-RW", path, flush=True)
    except OSError as exc:
        print("denied", path, exc.errno)
    try:
        stat = os.stat(path)
    except OSError as exc:
        print("denied stat", path, exc.errno)
        continue
    try:
        os.chmod(path, stat.st_mode & 0o7777)
        print("CHMODDED", path, flush=True)
    except OSError as exc:
        print("denied chmod", path, exc.errno)
    try:
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        print("TOUCHED", path, flush=True)
    except OSError as exc:
        print("denied utime", path, exc.errno)
"""


def digest(path: Path) -> tuple[str, int, int] | None:
    """Content, mode and modification time of a file; None if there is none."""
    try:
        stat = path.stat()
        return hashlib.sha256(path.read_bytes()).hexdigest(), stat.st_mode, stat.st_mtime_ns
    except OSError:
        return None


def fingerprint(path: Path) -> tuple[object, ...]:
    """What a write, chmod, chown or utime would change, even to the same value (ctime)."""
    stat = path.stat()
    content = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    return content, stat.st_mode, stat.st_uid, stat.st_gid, stat.st_mtime_ns, stat.st_ctime_ns


def python_prefix(backend: Sandbox) -> Path:
    return Path(os.path.realpath(backend.python)).parent.parent


def site_packages(backend: Sandbox) -> Path:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    candidate = python_prefix(backend) / "lib" / version / "site-packages"
    return candidate if candidate.is_dir() else python_prefix(backend) / "lib"


def test_new_files_in_system_directories(backend: Sandbox) -> None:
    """/usr, /etc, /, /bin, /lib, /root, /var, /opt, /home and the Python installation itself
    (a .pth file there would run in every host Python process)."""
    targets = [
        Path("/usr") / TOKEN,
        Path("/usr/bin") / TOKEN,
        Path("/usr/local/bin") / TOKEN,
        Path("/usr/lib") / TOKEN,
        Path("/etc") / TOKEN,
        Path("/etc/ld.so.conf.d") / f"{TOKEN}.conf",
        Path("/") / TOKEN,
        Path("/bin") / TOKEN,
        Path("/lib") / TOKEN,
        Path("/root") / TOKEN,
        Path("/var/tmp") / TOKEN,  # noqa: S108 - an attack target, checked on the host
        Path("/opt") / TOKEN,
        Path("/home") / TOKEN,
        python_prefix(backend) / TOKEN,
        site_packages(backend) / f"{TOKEN}.pth",
    ]
    result = py(backend, CREATE.format(paths=[str(t) for t in targets], token=TOKEN))
    created = [
        path
        for target in targets
        for path in (target, Path(f"{target}.d"), Path(f"{target}.link"))
        if _present(path)
    ]
    for path in created:
        with contextlib.suppress(OSError):
            path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
    assert result.exit_code == 0, result
    assert created == []
    assert "WROTE" not in result.stdout


def _present(path: Path) -> bool:
    """Whether ``path`` exists; a directory the test's user may not look into (/root, run
    without root) counts as holding nothing new: the jobs have fewer rights than that user."""
    try:
        return path.exists() or path.is_symlink()
    except PermissionError:
        return False


def test_existing_host_files_cannot_be_modified(backend: Sandbox) -> None:
    """Opening system files and the Python interpreter for writing, chmod and utime (each to
    what it already is)."""
    targets = [
        Path("/etc/passwd"),
        Path("/etc/group"),
        Path("/etc/ld.so.cache"),
        Path("/usr/bin/env"),
        Path(os.path.realpath(backend.python)),
        site_packages(backend),
        Path("/usr"),
        Path("/"),
    ]
    targets = [target for target in targets if target.exists()]
    before = {target: fingerprint(target) for target in targets}
    result = py(backend, OPEN_FOR_WRITING.format(paths=[str(t) for t in targets]))
    after = {target: fingerprint(target) for target in targets}
    assert result.exit_code == 0, result
    assert after == before
    for verb in ("OPENED-RW", "CHMODDED", "TOUCHED"):
        assert verb not in result.stdout


def test_dev_shm_and_dev(backend: Sandbox) -> None:
    """Files in /dev/shm would outlive the job on a shared host; device nodes would be worse."""
    code = f"""
import os, stat
for path in ["/dev/shm/{TOKEN}", "/dev/{TOKEN}", "/run/shm/{TOKEN}", "/run/{TOKEN}"]:
    try:
        with open(path, "x") as handle:
            handle.write("x")
        print("WROTE", path, flush=True)
    except OSError as exc:
        print("denied", path, exc.errno)
for path in ["{TOKEN}-null", "/dev/{TOKEN}-null"]:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        print("MKNOD", path, flush=True)
    except OSError as exc:
        print("denied", path, exc.errno)
"""
    result = py(backend, code)
    shm = Path("/dev/shm")  # noqa: S108 - an attack target, checked on the host
    leftovers = [*shm.glob(f"{TOKEN}*"), *Path("/dev").glob(f"{TOKEN}*")]
    for path in leftovers:
        path.unlink()
    assert result.exit_code == 0, result
    assert leftovers == []
    assert "WROTE" not in result.stdout
    assert "MKNOD" not in result.stdout


def test_cgroup_files(backend: Sandbox) -> None:
    """Raising its own limits (shown by writing back the value they have), moving itself out of
    its cgroup, or making new cgroups."""
    code = f"""
import os
writes = [
    ("/sys/fs/cgroup/cgroup.procs", str(os.getpid())),
    ("/sys/fs/cgroup/memory/cgroup.procs", str(os.getpid())),
    ("/sys/fs/cgroup/pids/cgroup.procs", str(os.getpid())),
    ("/sys/fs/cgroup/memory/memory.limit_in_bytes", None),
    ("/sys/fs/cgroup/pids/pids.max", None),
    ("/sys/fs/cgroup/memory.max", None),
    ("/sys/fs/cgroup/pids.max", None),
]
for line in open("/proc/self/cgroup").read().splitlines():
    _, controllers, path = line.split(":", 2)
    for controller in (controllers.split(",") if controllers else [""]):
        base = f"/sys/fs/cgroup/{{controller}}{{path}}".replace("//", "/")
        writes += [
            (f"{{base}}/memory.limit_in_bytes", None),
            (f"{{base}}/memory.memsw.limit_in_bytes", None),
            (f"{{base}}/memory.max", None),
            (f"{{base}}/pids.max", None),
            (f"{{base}}/../cgroup.procs", str(os.getpid())),
        ]
for path, value in writes:
    try:
        if value is None:  # a limit: write back the value it has, which is enough to show
            value = open(path).read()
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, value.encode())
        finally:
            os.close(fd)
        print("WROTE", path, flush=True)
    except OSError as exc:
        print("denied", path, exc.errno)
for top in ["/sys/fs/cgroup", "/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids"]:
    path = f"{{top}}/{TOKEN}"
    try:
        os.mkdir(path)
        print("WROTE", path, flush=True)
    except OSError as exc:
        print("denied", path, exc.errno)
"""
    result = py(backend, code)
    tops = ("", "memory", "pids")
    made = [p for top in tops if (p := Path("/sys/fs/cgroup") / top / TOKEN).exists()]
    for path in made:
        with contextlib.suppress(OSError):
            path.rmdir()
    assert result.exit_code == 0, result
    assert made == []
    assert "WROTE" not in result.stdout


def test_global_sysctls_under_proc_sys(backend: Sandbox) -> None:
    """Writing the host's kernel settings. One harmless setting is changed and looked at on the
    host (and restored); the dangerous ones (core_pattern runs a program as host root on every
    crash) are only written back with the value they already hold."""
    observed = Path("/proc/sys/kernel/printk_ratelimit")
    original = observed.read_text()
    same_value = [
        "/proc/sys/kernel/core_pattern",
        "/proc/sys/kernel/modprobe",
        "/proc/sys/kernel/randomize_va_space",
        "/proc/sys/kernel/pid_max",
        "/proc/sys/vm/overcommit_memory",
        "/proc/sys/fs/suid_dumpable",
    ]
    code = f"""
import os
for path in {same_value!r}:
    try:
        value = open(path).read()
    except OSError as exc:
        print("unreadable", path, exc.errno)
        continue
    try:
        with open(path, "w") as handle:
            handle.write(value)
        print("WROTE", path, flush=True)
    except OSError as exc:
        print("denied", path, exc.errno)
try:
    with open({str(observed)!r}, "w") as handle:
        handle.write("{int(original) + 1}\\n")
    print("WROTE", {str(observed)!r}, flush=True)
except OSError as exc:
    print("denied", {str(observed)!r}, exc.errno)
try:
    os.close(os.open("/proc/sysrq-trigger", os.O_WRONLY))  # opened only, never written
    print("OPENED-RW /proc/sysrq-trigger", flush=True)
except OSError as exc:
    print("denied /proc/sysrq-trigger", exc.errno)
"""
    host_pid_max = Path("/proc/sys/kernel/pid_max").read_text()
    try:
        result = py(backend, code)
        changed = observed.read_text()
    finally:
        if observed.read_text() != original:
            observed.write_text(original)
    assert result.exit_code == 0, result
    assert changed == original, f"the job changed a kernel setting of the host:\n{result.stdout}"
    assert Path("/proc/sys/kernel/pid_max").read_text() == host_pid_max
    wrote = [line for line in result.stdout.splitlines() if line.startswith("WROTE")]
    identity = getattr(backend, "identity", None)
    if backend.name == "bubblewrap" and identity is not None and identity.kind == "shared":
        # Such a job owns the user namespace of its one-job sandbox, and pid_max is per PID
        # namespace since Linux 6.14: it set its own sandbox's (the host's stayed, checked).
        wrote = [line for line in wrote if line != "WROTE /proc/sys/kernel/pid_max"]
    assert wrote == []
    assert "OPENED-RW" not in result.stdout


def test_host_paths_around_the_workspace(backend: Sandbox, tmp_path: Path) -> None:
    """The test's own directory, the workspace's parent, the host /tmp and a relative climb."""
    targets = [
        str(tmp_path / TOKEN),
        f"/workspace/../{TOKEN}",
        f"../{TOKEN}",
        f"../../{TOKEN}",
        f"/proc/1/cwd/../{TOKEN}",
        f"/proc/self/cwd/../{TOKEN}",
        str(TMP / f"{TOKEN}-host-tmp"),
    ]
    result = py(backend, CREATE.format(paths=targets, token=TOKEN))
    candidates = [*tmp_path.iterdir(), *TMP.glob(f"{TOKEN}*"), *Path("/").glob(f"{TOKEN}*")]
    on_host = [p for p in candidates if p.exists() or p.is_symlink()]
    for path in on_host:
        with contextlib.suppress(OSError):
            path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
    assert result.exit_code == 0, result
    assert on_host == []


def test_result_files_outside_the_workspace(backend: Sandbox) -> None:
    """Forged verdict files (reward.json, results) in the places a grader might look."""
    names = ["reward.json", "reward.txt", "result.json", "verdict.json"]
    dirs = ["/", "/logs/verifier", "/logs", "/workspace/..", "/output", "/results"]
    dirs.append("/tmp/..")  # noqa: S108 - an attack target, checked on the host
    on_host = [Path(d) / n for d in dirs if not d.startswith("/workspace") for n in names]
    host_before = {path: digest(path) for path in on_host}
    existing_dirs = {Path(d) for d in ("/logs/verifier", "/logs", "/output", "/results")}
    existing_dirs = {d for d in existing_dirs if d.exists()}
    script = "\n".join(
        f"mkdir -p {d} 2>/dev/null; echo '{{\"reward\": 1.0}}' > {d}/{n} 2>/dev/null"
        f" && echo WROTE {d}/{n}"
        for d in dirs
        for n in names
    )
    result = sh(backend, script + "\nexit 0")
    host_after = {path: digest(path) for path in host_before}
    for path, before in host_before.items():
        if before is None and path.is_file():
            path.unlink()
    for directory in ("/logs/verifier", "/logs", "/output", "/results"):
        if Path(directory) not in existing_dirs:
            with contextlib.suppress(OSError):
                Path(directory).rmdir()
    assert result.exit_code == 0, result
    assert "WROTE" not in result.stdout
    assert host_after == host_before


@pytest.mark.parametrize(
    "name",
    ["../{token}", "/tmp/{token}", "a/../../{token}", "./../{token}"],  # noqa: S108 - attack names
)
def test_file_names_cannot_escape_the_workspace(backend: Sandbox, name: str) -> None:
    """Untrusted file names (an agent's submission) must not place files outside the job."""
    relative = name.format(token=f"{TOKEN}-name")
    with contextlib.suppress(AssayError, ValueError):
        backend.run(["true"], files={relative: b"escaped"})
    escaped = [*TMP.glob(f"{TOKEN}-name*"), *Path("/").glob(f"{TOKEN}-name*")]
    for path in escaped:
        path.unlink()
    assert escaped == []
