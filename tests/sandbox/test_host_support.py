"""A host that lacks something is told what, and what protection it loses; nothing is silent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from assay.errors import SandboxUnavailableError
from assay.sandbox import BubblewrapSandbox, PoolSandbox, bubblewrap
from assay.sandbox._cgroups import open_job_group
from assay.tasks import Limits


def test_without_cgroups_both_backends_say_what_is_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bubblewrap, "open_job_group", lambda *_a, **_k: None)
    for backend in (BubblewrapSandbox(), PoolSandbox(max_workers=1)):
        try:
            [note] = [note for note in backend.notes if "cgroup" in note]
            assert "no writable cgroup" in note
            assert "per process only" in note
        finally:
            backend.close()


def test_without_cgroups_a_run_still_carries_the_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bubblewrap, "open_job_group", lambda *_a, **_k: None)
    result = BubblewrapSandbox().run(["true"], limits=Limits(timeout_s=5))
    assert result.exit_code == 0
    assert any("no writable cgroup" in note for note in result.notes)


def test_without_cgroups_no_peak_is_the_hosts_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The peak was the largest resident size of the process tree, which the fork that starts
    bubblewrap copies from the host: a job that did nothing was reported at the host's 300 MiB,
    and the audit's headroom check found its 512 MiB limit tight."""
    monkeypatch.setattr(bubblewrap, "open_job_group", lambda *_a, **_k: None)
    ballast = bytearray(300 << 20)
    ballast[:: 1 << 12] = b"x" * len(range(0, len(ballast), 1 << 12))  # every page resident
    sandbox = BubblewrapSandbox()
    result = sandbox.run([sandbox.python, "-I", "-S", "-c", "pass"], limits=Limits(memory_mb=512))
    assert result.ok, result
    assert result.peak_memory_mb is None or result.peak_memory_mb < 64, result.peak_memory_mb
    assert any("no job's peak memory is measured" in note for note in result.notes)
    del ballast


def test_this_host_offers_cgroups_so_ci_tests_the_real_limits() -> None:
    group = open_job_group(64, 8)
    assert group is not None, "CI must run where cgroups are writable, or the limits go untested"
    group.close()


@pytest.mark.parametrize("backend", [BubblewrapSandbox, PoolSandbox])
def test_without_bubblewrap_the_error_says_how_to_install(
    backend: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(SandboxUnavailableError, match="apt-get install bubblewrap"):
        backend()


def test_the_cli_says_it_in_one_line_and_exits_3(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "assay", "sandbox", "run", "--", "true"],
        env={"PATH": "/nonexistent", "ASSAY_DB": str(tmp_path / "db")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 3
    assert result.stderr.count("\n") == 1
    assert "bubblewrap (bwrap) is not installed" in result.stderr
