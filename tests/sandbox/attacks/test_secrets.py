"""Host secrets: planted values must never appear in anything a job prints.

Each attack has a control: the same code run as a plain subprocess of the host finds the secret,
so a pass means the sandbox hid it, not that the attack code was broken.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.sandbox import Sandbox
from tests.sandbox.attacks._support import TOKEN, output, plain, py, secret

pytestmark = pytest.mark.sandbox

DUMP_FILES = """
import base64, json, os
found = {{}}
for path in {paths!r}:
    try:
        with open(path, "rb") as handle:
            found[path] = base64.b64encode(handle.read()).decode()
    except OSError as exc:
        found[path] = None
        print("denied", path, exc.errno)
print("FILES", json.dumps(found))
for path in {paths!r}:
    try:
        print(open(path, errors="replace").read())
    except OSError:
        pass
"""

NON_ALLOWLISTED_ETC = (
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/hostname",
    "/etc/hosts",
    "/etc/machine-id",
    "/etc/resolv.conf",
    "/etc/sudoers",
    "/etc/environment",
    "/etc/ssh/ssh_host_ed25519_key",
    "/etc/ssh/ssh_host_rsa_key",
    "/etc/ssh/ssh_host_ecdsa_key",
)


def files_read(text: str) -> dict[str, bytes | None]:
    """The ``FILES`` line DUMP_FILES prints, decoded."""
    for line in text.splitlines():
        if line.startswith("FILES "):
            raw = json.loads(line.removeprefix("FILES "))
            return {k: None if v is None else base64.b64decode(v) for k, v in raw.items()}
    raise AssertionError(f"no FILES line in {text!r}")


def home() -> Path:
    """/root where the suite can write there (it runs as root in CI), else the user's home."""
    root = Path("/root")
    return root if os.access(root, os.W_OK) else Path.home()


@pytest.fixture
def victim() -> Iterator[tuple[int, str, str]]:
    """A host process holding a secret in its environment and another in its argv."""
    env_secret, argv_secret = secret("victim-env"), secret("victim-argv")
    process = subprocess.Popen(
        [sys.executable, "-c", f"import time; time.sleep(60)  # {TOKEN}", argv_secret],
        env={**os.environ, "ASSAY_ATTACK_VICTIM": env_secret},
        stdin=subprocess.DEVNULL,
    )
    try:
        yield process.pid, env_secret, argv_secret
    finally:
        process.kill()
        process.wait()


def test_environment_of_the_test_process(backend: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    value = secret("env")
    monkeypatch.setenv("ASSAY_ATTACK_SECRET", value)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", value)
    code = """
import os
print(dict(os.environ))
for path in ["/proc/self/environ", "/proc/1/environ", f"/proc/{os.getppid()}/environ"]:
    try:
        print(path, open(path, "rb").read())
    except OSError as exc:
        print("denied", path, exc)
"""
    result = py(backend, code)
    assert result.exit_code == 0, result
    assert value not in output(result)
    assert "ASSAY_ATTACK_SECRET" not in output(result)
    assert value in plain(code).stdout


def test_proc_environ_and_cmdline_of_host_processes(
    backend: Sandbox, victim: tuple[int, str, str]
) -> None:
    """Host processes by their host pid (a victim holding secrets, pytest itself, host init),
    and every process the job can see at all."""
    pid, env_secret, argv_secret = victim
    code = f"""
import os
pids = {[pid, os.getpid(), 1]!r} + [int(p) for p in os.listdir("/proc") if p.isdigit()]
for pid in pids:
    for name in ["environ", "cmdline", "maps"]:
        path = f"/proc/{{pid}}/{{name}}"
        try:
            print(path, open(path, "rb").read()[:100000])
        except OSError as exc:
            print("denied", path, exc.errno)
    try:
        print(pid, "cwd", os.readlink(f"/proc/{{pid}}/cwd"), os.listdir(f"/proc/{{pid}}/cwd"))
    except OSError as exc:
        print("denied cwd", pid, exc.errno)
"""
    result = py(backend, code)
    assert result.exit_code == 0, result
    assert env_secret not in output(result)
    assert argv_secret not in output(result)
    control = plain(code)
    assert env_secret in control.stdout
    assert argv_secret in control.stdout


def test_the_sandboxs_own_setup_is_not_in_any_visible_command_line(backend: Sandbox) -> None:
    """bubblewrap's init shares the job's PID namespace (and, without subordinate ids, its uid):
    its command line would show the host's paths, every mount and the names of the files."""
    code = """
import os
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            print(pid, open(f"/proc/{pid}/cmdline", "rb").read())
        except OSError as exc:
            print("denied", pid, exc.errno)
"""
    result = py(backend, code, files={"named-after-a-hidden-test.py": b""})
    assert result.exit_code == 0, result
    seen = output(result)
    assert "python" in seen  # the probe read command lines: its own at least
    for leak in ("--ro-bind", "--json-status-fd", "named-after-a-hidden-test", "--seccomp"):
        assert leak not in seen


def test_files_under_root(backend: Sandbox) -> None:
    """A secret planted in the home directory, a dot-directory, and the real shell rc file."""
    value = secret("root-file")
    base = home()
    planted = base / f"{TOKEN}.txt"
    hidden = base / f".{TOKEN}" / "credentials"
    bashrc = base / ".bashrc"
    try:
        planted.write_text(value)
        hidden.parent.mkdir()
        hidden.write_text(value)
        paths = [str(planted), str(hidden), str(bashrc), f"{base}/.ssh/id_rsa", "~/.bashrc"]
        code = (
            DUMP_FILES.format(paths=paths)
            + f"""
for directory in [{str(base)!r}, {str(hidden.parent)!r}]:
    try:
        print("LISTED", directory, os.listdir(directory))
    except OSError as exc:
        print("denied", directory, exc.errno)
"""
        )
        result = py(backend, code)
        control = plain(code)
    finally:
        planted.unlink(missing_ok=True)
        hidden.unlink(missing_ok=True)
        if hidden.parent.exists():
            hidden.parent.rmdir()
    assert result.exit_code == 0, result
    assert value not in output(result)
    listings = [line for line in result.stdout.splitlines() if line.startswith("LISTED")]
    assert not any(TOKEN in line for line in listings), listings
    seen = files_read(result.stdout)
    assert seen[str(planted)] is None
    assert seen[str(hidden)] is None
    if bashrc.is_file() and bashrc.read_bytes().strip():
        assert seen[str(bashrc)] != bashrc.read_bytes()
    assert value in control.stdout


def test_owner_only_file_in_a_visible_directory(backend: Sandbox) -> None:
    """The Python installation is visible to jobs by design; a file in it that only its owner may
    read (mode 0600) must still be unreadable to them."""
    prefix = Path(os.path.realpath(backend.python)).parent.parent
    if not os.access(prefix, os.W_OK):
        pytest.skip(f"{prefix} is not this user's: nothing only they may read can be there")
    value = secret("owner-only")
    planted = prefix / f"{TOKEN}.key"
    planted.touch(mode=0o600)
    try:
        planted.write_text(value)
        code = DUMP_FILES.format(paths=[str(planted)])
        result = py(backend, code)
        control = plain(code)
    finally:
        planted.unlink()
    assert result.exit_code == 0, result
    assert value in control.stdout
    identity = getattr(backend, "identity", None)
    if identity is not None and identity.kind == "shared":
        # Without subordinate ids a job is the user: the gap is reported on the result.
        assert any("your own uid" in note for note in result.notes), result.notes
        return
    assert value not in output(result)


def test_host_etc_files_outside_the_allowlist(backend: Sandbox) -> None:
    """/etc/shadow, host identity, resolver and SSH host keys: the job must not read the host's."""
    host = {}
    for path in NON_ALLOWLISTED_ETC:
        try:
            host[path] = Path(path).read_bytes()
        except OSError:
            continue
    assert host, "none of the probed host files exists; the test cannot show anything"
    code = DUMP_FILES.format(paths=list(NON_ALLOWLISTED_ETC))
    result = py(backend, code)
    assert result.exit_code == 0, result
    seen = files_read(result.stdout)
    leaked = [path for path, content in host.items() if content and seen.get(path) == content]
    assert leaked == []
    for content in host.values():
        text = content.decode(errors="replace").strip()
        if len(text) >= 16:
            assert text not in result.stdout
    control = files_read(plain(code).stdout)
    assert any(control.get(path) == content for path, content in host.items())


def test_task_hidden_directory(backend: Sandbox, tmp_path: Path) -> None:
    """The task's hidden cases, by absolute path, by walking up from the workspace, and through
    /proc links of the job's parents (a worker whose cwd is the task directory would leak it)."""
    value = secret("hidden")
    task = tmp_path / "task"
    hidden = task / "hidden" / "cases.json"
    hidden.parent.mkdir(parents=True)
    hidden.write_text(json.dumps({"cases": [{"expected": value}]}))
    (task / "task.toml").write_text('id = "x"\n')
    candidates = [
        str(hidden),
        "../hidden/cases.json",
        "../../hidden/cases.json",
        "/hidden/cases.json",
        "/task/hidden/cases.json",
        f"/proc/1/root{hidden}",
        "/proc/1/cwd/hidden/cases.json",
        "/proc/1/cwd/../hidden/cases.json",
    ]
    code = (
        "import os\n"
        f"paths = {candidates!r}\n"
        "parent = os.getppid()\n"
        "paths += [f'/proc/{parent}/cwd/hidden/cases.json',"
        " f'/proc/{parent}/cwd/../hidden/cases.json',"
        f" f'/proc/{{parent}}/root{hidden}']\n"
        + DUMP_FILES.format(paths=[]).replace("[]", "paths")
        + f"""
for top, depth in [({str(tmp_path)!r}, 9), ("..", 3), ("/proc/1/cwd/..", 3), ("/", 2)]:
    for root, dirs, files in os.walk(top):
        too_deep = root[len(top):].count(os.sep) >= depth
        dirs[:] = [] if too_deep else [d for d in dirs if d not in ("proc", "sys", "usr", "dev")]
        for name in files:
            if name == "cases.json":
                print("FOUND", os.path.join(root, name), open(os.path.join(root, name)).read())
"""
    )
    result = py(backend, code, files={"solution.py": b"def f(): pass\n"})
    assert result.exit_code == 0, result
    assert value not in output(result)
    assert "FOUND" not in result.stdout
    assert value in plain(code).stdout
