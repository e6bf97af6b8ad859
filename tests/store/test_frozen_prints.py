"""The prints of frozen tasks the store keeps for the contamination check: one for each task id,
the latest audit's; a store of schema 1 gains them when migrated; a print changed outside assay
is one line naming the file and the print."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from assay.audit.report import AuditReport
from assay.errors import StoreError
from assay.store import Store
from assay.store.records import FrozenPrint
from tests.store.test_migration import FIXTURE

NOW = datetime(2026, 12, 8, tzinfo=UTC)


def _run(run_id: str) -> AuditReport:
    return AuditReport(
        run_id=run_id, root="tasks", started_at=NOW, finished_at=NOW, checks=(), tasks=()
    )


def _print(task_id: str, run_id: str, grams: set[str]) -> FrozenPrint:
    return FrozenPrint(
        task_id=task_id,
        task_version="v",
        run_id=run_id,
        grams=frozenset(grams),
        verifier=frozenset({"case:01", "case:02"}),
    )


def test_a_frozen_task_kept_again_replaces_its_print(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        store.add_audit(_run("one"), [], [_print("a", "one", {"x"}), _print("b", "one", {"y"})])
        store.add_audit(_run("two"), [], [_print("a", "two", {"z"})])
        store.add_audit(_run("three"), [])
        kept = store.frozen_prints()
    assert kept == [_print("a", "two", {"z"}), _print("b", "one", {"y"})]


def test_a_migrated_store_keeps_frozen_prints(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE, path)
    with Store(path) as store:
        assert store.frozen_prints() == []
        store.add_audit(_run("new"), [], [_print("a", "new", {"x"})])
    with Store(path) as store:
        assert store.frozen_prints() == [_print("a", "new", {"x"})]


@pytest.mark.parametrize("grams", ["not json", "[1, 2]", "7"])
def test_a_print_changed_outside_assay_is_one_line(tmp_path: Path, grams: str) -> None:
    path = tmp_path / "s.db"
    with Store(path) as store:
        store.add_audit(_run("one"), [], [_print("a", "one", {"x"})])
    with sqlite3.connect(path) as db:
        db.execute("UPDATE frozen_prints SET grams = ?", (grams,))
    db.close()
    with Store(path) as store, pytest.raises(StoreError) as caught:
        store.frozen_prints()
    said = f"{path}: the record of the print of frozen task a from audit run 'one' cannot be read"
    assert str(caught.value).startswith(said)
    assert "\n" not in str(caught.value)
