"""Uids of jobs: leased per process, so that two assay processes (or two pools in one process)
on one host never give jobs the same uid, and a dead process's block is free again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from assay.errors import SandboxError
from assay.families import harness_code
from assay.sandbox import BubblewrapSandbox, PoolSandbox
from assay.sandbox._uids import POOL_UIDS, UidRange, lease
from assay.sandbox._userns import FIRST_JOB_ID, host_identity
from assay.tasks import Limits

SMALL = UidRange("test", first=1_000_000, size=4, blocks=3)


def _lease_in_another_process(directory: Path, hold: str = "") -> subprocess.Popen[str]:
    code = textwrap.dedent(f"""
        from pathlib import Path
        from assay.sandbox._uids import UidRange, lease
        held = lease(UidRange("test", first=1_000_000, size=4, blocks=3), Path({str(directory)!r}))
        print(held.block, flush=True)
        {hold}
    """)
    return subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True
    )


def test_two_processes_never_hold_the_same_block(tmp_path: Path) -> None:
    other = _lease_in_another_process(tmp_path, hold="input()")
    assert other.stdout is not None
    theirs = int(other.stdout.readline())
    mine = [lease(SMALL, tmp_path), lease(SMALL, tmp_path)]
    assert len({theirs, *(held.block for held in mine)}) == 3
    with pytest.raises(SandboxError, match="all 3 blocks"):
        lease(SMALL, tmp_path)
    other.communicate("\n")  # the other process ends: its block is free again
    again = lease(SMALL, tmp_path)
    assert again.block == theirs
    for held in (*mine, again):
        held.release()


def test_uids_of_a_block_stay_inside_it(tmp_path: Path) -> None:
    assert POOL_UIDS.first + POOL_UIDS.size * POOL_UIDS.blocks < 40_000_000
    held = lease(SMALL, tmp_path)
    try:
        assert held.uid(0) == SMALL.first + held.block * SMALL.size
        with pytest.raises(SandboxError):
            held.uid(SMALL.size)
    finally:
        held.release()


def test_a_directory_of_another_user_is_refused(tmp_path: Path) -> None:
    directory = tmp_path / "theirs"
    if os.geteuid() == 0:
        directory.mkdir()
        os.chown(directory, 4242, 4242)
    else:
        directory = Path("/")  # root's
    with pytest.raises(SandboxError, match="another user"):
        lease(SMALL, directory)


@pytest.mark.sandbox
def test_two_pools_and_two_bubblewrap_sandboxes_run_jobs_as_different_uids() -> None:
    limits = Limits(timeout_s=5, memory_mb=64)
    uids = []
    with (
        PoolSandbox(max_workers=1, trusted_code=harness_code()) as first,
        PoolSandbox(max_workers=1, trusted_code=harness_code()) as second,
    ):
        for pool in (first, second):
            uids.append(pool.run(["id", "-u"], limits=limits).stdout.strip())
    boxes = [BubblewrapSandbox(), BubblewrapSandbox()]  # both alive at once
    try:
        uids += [box.run(["id", "-u"], limits=limits).stdout.strip() for box in boxes]
    finally:
        for box in boxes:
            box.close()
    identity = host_identity(str(shutil.which("bwrap")))
    if identity.kind == "shared":
        pytest.skip("without subordinate ids every job runs as the user (and says so in its notes)")
    # Root: the host's unprivileged uids; otherwise the namespace's, above the worker's own.
    floor = 200_000 if identity.kind == "root" else FIRST_JOB_ID
    assert all(uid.isdigit() and int(uid) >= floor for uid in uids), uids
    assert len(set(uids)) == 4, uids
