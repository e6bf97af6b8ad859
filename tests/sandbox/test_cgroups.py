"""Job cgroups, read and written through the files the kernel offers.

This host mounts the memory and pids controllers as cgroup v1, so the v2 layout is checked
against a directory laid out the way the kernel lays out cgroup v2 files.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from assay._namespaces import pid_namespace
from assay.sandbox import _cgroups
from assay.sandbox._cgroups import open_job_group


def test_v1_group_on_this_host_limits_and_reports() -> None:
    group = open_job_group(64, 8)
    assert group is not None
    try:
        assert group.version == 1
        assert (group.memory / "memory.limit_in_bytes").read_text().strip() == str(64 * 2**20)
        assert (group.pids / "pids.max").read_text().strip() == "8"
        group.set_limits(128, 16)
        assert (group.memory / "memory.limit_in_bytes").read_text().strip() == str(128 * 2**20)
        assert (group.pids / "pids.max").read_text().strip() == "16"
        group.set_limits(32, 4)  # shrinking writes the memory limit before the swap limit
        assert (group.memory / "memory.limit_in_bytes").read_text().strip() == str(32 * 2**20)
        assert group.oom_kills() == 0
        assert group.cpu_seconds() is not None
    finally:
        group.close()
    assert not group.memory.exists()


def _fake_unified(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "cgroup.controllers").write_text("cpu memory pids\n")
    (root / "cgroup.procs").write_text("")


def test_v2_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the unified hierarchy (as root), groups go under ``assay/`` at the top, with the
    memory and pids controllers passed down to it."""
    _fake_unified(tmp_path)
    monkeypatch.setattr(_cgroups, "ROOT", tmp_path)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    found = _cgroups._find_layout()
    assert found is not None
    assert found.version == 2
    assert found.parents() == [tmp_path / "assay"]
    assert (tmp_path / "assay" / "cgroup.subtree_control").read_text() == "+memory +pids"
    group = _cgroups._open_v2(found, "job-test", 64, 8)
    assert (group.memory / "memory.max").read_text() == str(64 * 2**20)
    assert (group.pids / "pids.max").read_text() == "8"
    (group.memory / "memory.peak").write_text(str(3 * 2**20))
    (group.memory / "memory.events").write_text("low 0\nhigh 0\nmax 4\noom 1\noom_kill 2\n")
    (group.memory / "cpu.stat").write_text("usage_usec 1500000\nuser_usec 1000000\n")
    assert group.peak_memory_mb() == 3
    assert group.oom_kills() == 2
    assert group.oom_killed()
    assert group.cpu_seconds() == 1.5
    group.set_limits(128, 16)
    assert (group.memory / "memory.max").read_text() == str(128 * 2**20)


def test_v2_delegated_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without root, on the unified hierarchy: groups go inside the group this process runs in
    (a delegated one), after it moves itself into a leaf there, since the kernel passes
    controllers down only from groups that hold no process. (The files stand in for the
    kernel's: this checks what is written where, not what the kernel makes of it.)"""
    delegated = tmp_path / "user.slice" / "user@1000.service" / "app.slice" / "run-1.scope"
    _fake_unified(tmp_path)
    _fake_unified(delegated)
    (delegated / "cgroup.procs").write_text(f"{os.getpid()}\n")
    monkeypatch.setattr(_cgroups, "ROOT", tmp_path)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(
        _cgroups, "_own_group", lambda _controller: str(delegated.relative_to(tmp_path))
    )
    found = _cgroups._find_layout()
    assert found is not None
    assert found.version == 2
    assert found.parents() == [delegated / "assay"]
    leaves = list((delegated / "assay").glob(f"host-{os.getpid()}-*"))
    assert len(leaves) == 1
    assert (leaves[0] / "cgroup.procs").read_text() == str(os.getpid())
    assert _cgroups.OWNED.match(leaves[0].name)
    for directory in (delegated, delegated / "assay"):
        assert (directory / "cgroup.subtree_control").read_text() == "+memory +pids"
    assert not (tmp_path / "cgroup.subtree_control").exists()  # nothing above the delegation


def test_v1_delegated_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without root, on cgroup v1: groups go inside this process's group of each controller,
    where it may write; a controller it may not write (cpuacct here) is left out."""
    for controller in ("memory", "pids", "cpuacct"):
        (tmp_path / controller / "delegated").mkdir(parents=True)
    (tmp_path / "cpuacct" / "delegated").chmod(0o555)
    monkeypatch.setattr(_cgroups, "ROOT", tmp_path)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(_cgroups, "_own_group", lambda _controller: "delegated")
    monkeypatch.setattr(
        _cgroups, "_writable", lambda path: path.is_dir() and path.stat().st_mode & 0o200 != 0
    )
    found = _cgroups._find_layout()
    assert found is not None
    assert found.version == 1
    assert found.bases == {
        "memory": tmp_path / "memory" / "delegated",
        "pids": tmp_path / "pids" / "delegated",
    }


def test_no_writable_cgroup_gives_no_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_cgroups, "ROOT", tmp_path)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert _cgroups._find_layout() is None


def test_groups_left_by_a_dead_assay_process_are_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run killed mid-job left ``assay/job-*`` and ``assay/worker-*`` groups with nothing in
    them; the next assay process removes them, and nothing of a living process."""
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead_pid = int(dead.stdout)
    found = _cgroups.layout()
    if found is None or found.version != 1:
        pytest.skip("needs writable cgroup v1 hierarchies")
    memory, pids = (found.bases[c] / "assay" for c in ("memory", "pids"))
    here = pid_namespace()
    stale = [
        memory / f"worker-{dead_pid}-{here}-0123456789ab" / "job",
        pids / f"job-{dead_pid}-0123456789ab",  # as older versions named them
    ]
    alive = memory / f"job-{os.getpid()}-{here}-fedcba987654"
    for path in (*stale, alive):
        path.mkdir(parents=True)
    monkeypatch.setattr(_cgroups, "_swept", False)
    try:
        removed = _cgroups.remove_stale_groups()
        assert not stale[0].parent.exists()
        assert not stale[1].exists()
        assert alive.exists()
        assert {p.name for p in removed} == {stale[0].parent.name, stale[1].name}
    finally:
        for path in (*stale, stale[0].parent, alive):
            with contextlib.suppress(OSError):
                path.rmdir()


def test_groups_of_another_pid_namespace_are_not_judged_by_their_process_ids(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No process here has the id a group of another PID namespace names: judged by it, the
    groups of every assay process in another container would be torn down under their jobs."""
    found = _cgroups.layout()
    if found is None or found.version != 1:
        pytest.skip("needs writable cgroup v1 hierarchies")
    foreign = found.bases["pids"] / "assay" / f"job-999999999-{pid_namespace() + 1}-ab"
    foreign.mkdir(parents=True)
    monkeypatch.setattr(_cgroups, "_swept", False)
    try:
        assert _cgroups.remove_stale_groups() == []
        assert foreign.exists()
    finally:
        foreign.rmdir()


def test_a_sweep_from_a_new_pid_namespace_leaves_a_live_workers_groups() -> None:
    """The attack as it happened: an assay process started under ``unshare --pid`` swept the
    groups, and a pool's worker in the middle of its jobs lost its own."""
    unshare = shutil.which("unshare")
    if unshare is None or _cgroups.layout() is None:
        pytest.skip("needs unshare and writable cgroups")
    group = open_job_group(64, 8, kind="worker")
    assert group is not None
    try:
        code = "from assay.sandbox import _cgroups; print(len(_cgroups.remove_stale_groups()))"
        command = [unshare, "--pid", "--fork", "--mount-proc", sys.executable, "-c", code]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0 and "unshare failed" in done.stderr:
            pytest.skip(f"cannot make a PID namespace here: {done.stderr.strip()}")
        assert done.returncode == 0, done.stderr
        assert (group.pids / "pids.max").exists()
        assert (group.memory / "memory.limit_in_bytes").exists()
    finally:
        group.close()


def test_a_worker_job_group_sits_inside_the_worker_group() -> None:
    group = open_job_group(64, 8, kind="worker")
    assert group is not None
    try:
        assert group.memory.name.startswith(f"worker-{os.getpid()}-")
        job = _cgroups.open_child_group(group, "job", 32, 4)
        assert job.memory.parent == group.memory
        assert (job.memory / "memory.limit_in_bytes").read_text().strip() == str(32 * 2**20)
        tcp = (job.memory / "memory.kmem.tcp.limit_in_bytes").read_text().strip()
        assert int(tcp) == 32 * 2**20 // _cgroups.TCP_SHARE
    finally:
        group.close()
    assert not group.memory.exists()


def test_a_group_whose_process_outlives_its_job_is_removed_once_the_process_exits() -> None:
    """A killed process that takes its time to exit (here: frozen, so the kill waits) keeps
    its job's group busy past the job's end; the group is removed once the process is gone,
    not left on the host for good."""
    freezer = Path("/sys/fs/cgroup/freezer")
    found = _cgroups.layout()
    if found is None or found.version != 1 or not os.access(freezer, os.W_OK):
        pytest.skip("needs cgroup v1 and a writable freezer hierarchy")
    group = open_job_group(64, 8)
    assert group is not None
    sleeper = subprocess.Popen(["sleep", "60"])  # noqa: S607 - a plain system tool
    ice = freezer / f"assay-test-{uuid.uuid4().hex[:12]}"
    ice.mkdir()
    try:
        for procs in group.procs_files():
            Path(os.fsdecode(procs)).write_text(str(sleeper.pid))
        (ice / "cgroup.procs").write_text(str(sleeper.pid))
        (ice / "freezer.state").write_text("FROZEN")
        _wait_for(lambda: (ice / "freezer.state").read_text().strip() == "FROZEN")
        group.close()
        assert sleeper.poll() is None, "the frozen process cannot have exited yet"
        assert all(directory.exists() for directory in group.dirs)
        assert set(_cgroups._leftovers.waiting()) >= set(group.dirs)
        (ice / "freezer.state").write_text("THAWED")
        assert sleeper.wait(timeout=10) == -9  # the kill lands once it can
        _wait_for(lambda: not any(directory.exists() for directory in group.dirs))
        assert not set(_cgroups._leftovers.waiting()) & set(group.dirs)
    finally:
        with contextlib.suppress(OSError):
            (ice / "freezer.state").write_text("THAWED")
        sleeper.kill()
        sleeper.wait()
        ice.rmdir()


def _wait_for(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)
