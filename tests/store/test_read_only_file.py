"""A store file that cannot be written (a read-only mount of it, or its mode) is refused when it
is opened for writing, in one line naming it, before an audit spends its time (the command
opens its store first): SQLite would open it for reading without a word, and the audit's record
would be lost at its end. The commands that only read still read it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assay.store import Store

pytestmark = pytest.mark.sandbox


def _with_the_store_read_only(db: Path, *command: str) -> subprocess.CompletedProcess[str]:
    """``command`` where ``db`` alone is mounted read-only; its directory can be written."""
    bwrap = shutil.which("bwrap")
    assert bwrap is not None, "bubblewrap is missing: make test installs it"
    mounts = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    mounts += ["--bind", str(db.parent), str(db.parent), "--ro-bind", str(db), str(db)]
    return subprocess.run(
        [*mounts, "--unshare-user", "--", *command],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=db.parent,
    )


@pytest.fixture
def kept(tmp_path: Path) -> Path:
    db = tmp_path / "assay.db"
    with Store(db) as store:
        store.create_rollout("r", {"k": 1}, [])
    return db


def test_opening_a_read_only_store_to_write_is_refused_by_name(kept: Path) -> None:
    code = (
        "import sys; from assay.store import Store; from assay.errors import StoreError\n"
        "try:\n    Store(sys.argv[1])\nexcept StoreError as exc:\n    print(exc)\n"
        "else:\n    print('opened')\n"
    )
    opened = _with_the_store_read_only(kept, sys.executable, "-c", code, str(kept))
    assert opened.returncode == 0, opened.stderr
    assert opened.stdout.startswith(f"{kept}: the results database cannot be written here")
    read = _with_the_store_read_only(kept, sys.executable, "-m", "assay", "runs", "--db", str(kept))
    assert read.returncode == 0, read.stderr
    assert "rollout" in read.stdout
