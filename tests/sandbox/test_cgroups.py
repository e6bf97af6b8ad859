"""Job cgroups, read and written through the files the kernel offers.

This host mounts the memory and pids controllers as cgroup v1, so the v2 layout is checked
against a directory laid out the way the kernel lays out cgroup v2 files.
"""

from __future__ import annotations

from pathlib import Path

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


def test_v2_layout(tmp_path: Path) -> None:
    unified = tmp_path / "unified"
    unified.mkdir()
    group = _cgroups._open_v2(unified, "job-test", 64, 8)
    assert (unified / "assay" / "cgroup.subtree_control").read_text() == "+memory +pids"
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
