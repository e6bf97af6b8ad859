"""The commands that only read the store read it on media that cannot be written: the store's
directory mounted read-only (bubblewrap's ``--ro-bind``, a real read-only mount)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assay.errors import StoreError
from assay.store import Store
from assay.verdicts import Status, Timings, Verdict, Versions

pytestmark = pytest.mark.sandbox
OLD = Path(__file__).parents[1] / "store" / "schema-1.db"


def _assay(*args: str) -> subprocess.CompletedProcess[str]:
    """``assay ARGS`` with every file system read-only, as on a mounted archive."""
    bwrap = shutil.which("bwrap")
    assert bwrap is not None, "bubblewrap is missing: make test installs it"
    command = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    command += ["--unshare-user", "--", sys.executable, "-m", "assay", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def _store(path: Path) -> None:
    with Store(path) as store:
        store.add_verdict(
            Verdict(
                task_id="median-1",
                status=Status.PASS,
                score=1.0,
                timings=Timings(wall_s=1),
                versions=Versions(task="abc", family="code@2", assay="0.1.0"),
            ),
            solution="reference",
        )


def test_runs_and_verdicts_read_a_store_on_read_only_media(tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    _store(db)
    listed = _assay("verdicts", "--json", "--db", str(db))
    assert listed.returncode == 0, listed.stderr
    [row] = json.loads(listed.stdout)
    assert (row["task_id"], row["status"]) == ("median-1", "pass")
    runs = _assay("runs", "--json", "--db", str(db))
    assert runs.returncode == 0, runs.stderr
    assert json.loads(runs.stdout) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["assay.db"]  # nothing was made


def test_a_write_ahead_log_that_cannot_be_read_is_said(tmp_path: Path) -> None:
    """Changes still in the -wal file would be missed by a read of the file alone: refused,
    with the way out, never a silently older answer."""
    db = tmp_path / "assay.db"
    _store(db)
    (tmp_path / "assay.db-wal").write_bytes(b"\0" * 64)
    listed = _assay("verdicts", "--db", str(db))
    assert listed.returncode != 0
    [line] = listed.stderr.strip().splitlines()
    assert "write-ahead log (assay.db-wal)" in line
    assert "somewhere writable" in line


def test_an_older_store_on_read_only_media_is_refused_by_name(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    shutil.copy(OLD, db)
    listed = _assay("verdicts", "--db", str(db))
    assert listed.returncode != 0
    [line] = listed.stderr.strip().splitlines()
    assert f"{db}: a store of schema 1 cannot be read where it cannot be migrated" in line
    assert _assay("runs", "--db", str(db)).returncode != 0


def test_a_read_only_store_is_never_written(tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    _store(db)
    before = db.read_bytes()
    with Store(db, read_only=True) as store:
        [kept] = store.verdicts()
        assert kept.verdict.task_id == "median-1"
        with pytest.raises(StoreError, match="readonly"):
            store.add_verdict(kept.verdict, solution="again")
    assert db.read_bytes() == before


def test_serve_reads_its_profile_from_a_store_on_read_only_media(tmp_path: Path) -> None:
    """``assay serve --profile RUN`` only reads the store: a read-only one serves."""
    from assay.tasks import save_task  # noqa: PLC0415
    from tests.conftest import make_median_task  # noqa: PLC0415

    tasks = tmp_path / "tasks"
    save_task(make_median_task(), tasks)
    db = tmp_path / "assay.db"
    profile = [sys.executable, "-m", "assay", "profile", str(tasks), "--policy", "reference"]
    profile += ["--k", "1", "--run", "p1", "--db", str(db), "--sandbox", "bubblewrap"]
    profiled = subprocess.run(profile, capture_output=True, text=True, timeout=120, check=False)
    assert profiled.returncode == 0, profiled.stderr
    bwrap = shutil.which("bwrap")
    assert bwrap is not None, "bubblewrap is missing: make test installs it"
    command = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    command += ["--unshare-user", "--unshare-pid", "--die-with-parent"]
    command += ["--", sys.executable, "-m", "assay", "serve", "--env-only"]
    command += ["--tasks", str(tasks), "--port", "0", "--profile", "p1", "--db", str(db)]
    command += ["--sandbox", "bubblewrap"]
    with subprocess.Popen(command, stderr=subprocess.PIPE, text=True) as server:
        try:
            assert server.stderr is not None
            said = next(line for line in server.stderr if not line.startswith("warning:"))
        finally:
            server.kill()
    assert said.startswith("serving 1 tasks on http://127.0.0.1:"), said
