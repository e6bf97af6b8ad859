"""The frozen tasks an audit saw are recorded in the store, and a later audit against it compares
its tasks with them: a frozen set audited apart from a train set, or a copy of a frozen task
audited again without it beside it, is still a copy (a copy rejected beside its frozen task was
accepted when audited alone, and exported for training). The store keeps hashes, never the
frozen prompt's words or hidden data."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from assay.audit import run_audit_into, select_checks
from assay.audit.setchecks import ContaminationCheck, frozen_print
from assay.findings import Decision, Severity
from assay.sandbox import PoolSandbox
from assay.store import Store
from assay.tasks import Split, Task, TaskSet, save_task
from tests.audit.test_setchecks import OTHER, PROMPT, renamed_copy, task, with_cases

Run = Callable[..., Result]


def _audit(store: Store, root: Path, tasks: list[Task], pool: PoolSandbox) -> dict[str, object]:
    shutil.rmtree(root, ignore_errors=True)
    for made in tasks:
        save_task(made, root)
    report = run_audit_into(store, TaskSet.load(root), pool, checks=select_checks("contamination"))
    return {"run": report.run_id, **{t.task_id: t for t in report.tasks}}


def test_a_copy_audited_again_alone_is_rejected_and_not_exported(
    tmp_path: Path, run_cli: Run
) -> None:
    """The reproduction from the command line: audited beside its frozen task the copy is
    rejected; audited again alone it was accepted, and `assay export tasks` wrote it."""
    both, alone = tmp_path / "both", tmp_path / "alone"
    save_task(task("held", split=Split.FROZEN), both)
    save_task(task("leak"), both)
    save_task(task("leak"), alone)
    checks = "reference,known-bad,contamination"
    assert run_cli("audit", str(both), "--checks", checks).exit_code == 1
    with Store(tmp_path / "store.db") as store:
        [first] = store.audit_runs()
    out = tmp_path / "alone.json"
    again = run_cli("audit", str(alone), "--checks", checks, "--json", str(out))
    assert again.exit_code == 1, again.output
    [audited] = json.loads(out.read_text())["tasks"]
    assert audited["decision"] == "rejected"
    [finding] = [f for f in audited["findings"] if f["check"] == "contamination"]
    assert finding["severity"] == "error"
    assert finding["message"].startswith(
        f"copies frozen task held of audit run {first.run_id} (100% of its 8-word n-grams"
    )
    exported = run_cli("export", "tasks", str(alone), "--out", str(tmp_path / "train.jsonl"))
    assert exported.exit_code != 0
    assert "1 rejected by its latest audit" in exported.output
    assert not (tmp_path / "train.jsonl").exists()


def test_a_frozen_set_audited_apart_catches_a_reworded_copy(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    """Frozen and train kept in directories of their own: a train task reworded and renamed
    but judged by the frozen task's cases is a copy; an unrelated one is not."""
    held = task("held", split=Split.FROZEN)
    with Store(tmp_path / "s.db") as store:
        frozen = _audit(store, tmp_path / "frozen", [held], pool)
        found = _audit(
            store,
            tmp_path / "train",
            [renamed_copy(held, "leak"), task("slug", OTHER, shift=10)],
            pool,
        )
    leak, slug = found["leak"], found["slug"]
    assert leak.decision is Decision.REJECTED  # type: ignore[attr-defined]
    [finding] = leak.findings  # type: ignore[attr-defined]
    assert finding.severity is Severity.ERROR
    assert finding.message.startswith(
        f"copies frozen task held of audit run {frozen['run']} (judged by the same cases)"
    )
    assert finding.evidence.startswith(f"held of audit run {frozen['run']} (frozen) and leak: ")
    assert slug.decision is Decision.ACCEPTED  # type: ignore[attr-defined]


def test_a_frozen_task_audited_again_replaces_its_record(tmp_path: Path, pool: PoolSandbox) -> None:
    """A frozen task changed and audited again is compared as it is now: a train task like its
    old words and cases is no copy of it, one like its new ones is."""
    with Store(tmp_path / "s.db") as store:
        _audit(store, tmp_path / "frozen", [task("held", split=Split.FROZEN)], pool)
        changed = task("held", OTHER, split=Split.FROZEN, shift=10)
        second = _audit(store, tmp_path / "frozen", [changed], pool)
        [kept] = store.frozen_prints()
        found = _audit(store, tmp_path / "train", [task("old"), task("new", OTHER, shift=20)], pool)
    assert (kept.task_id, kept.run_id) == ("held", second["run"])
    assert found["old"].decision is Decision.ACCEPTED  # type: ignore[attr-defined]
    assert found["new"].decision is Decision.REJECTED  # type: ignore[attr-defined]


def test_a_frozen_task_in_the_set_is_compared_as_it_is_not_as_recorded(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    """Audited twice beside its frozen task, a copy gets one finding, naming the frozen task
    of the set; a task moved out of the frozen split copies what was held out."""
    with Store(tmp_path / "s.db") as store:
        tasks = [task("held", split=Split.FROZEN), task("leak")]
        _audit(store, tmp_path / "both", tasks, pool)
        found = _audit(store, tmp_path / "both", tasks, pool)
        moved = _audit(store, tmp_path / "moved", [task("held")], pool)
    [finding] = found["leak"].findings  # type: ignore[attr-defined]
    assert finding.message.startswith("copies frozen task held (100% of its 8-word n-grams")
    assert moved["held"].decision is Decision.REJECTED  # type: ignore[attr-defined]
    [finding] = moved["held"].findings  # type: ignore[attr-defined]
    assert finding.message.startswith(f"copies frozen task held of audit run {found['run']} (")


def test_the_store_keeps_no_words_or_hidden_data_of_a_frozen_task(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    secret = task("held", split=Split.FROZEN)
    secret = with_cases(secret, [([[9137, 9139, 9138]], 9138), ([[7411]], 7411)])
    with Store(tmp_path / "s.db") as store:
        _audit(store, tmp_path / "frozen", [secret], pool)
    with sqlite3.connect(tmp_path / "s.db") as db:
        [(grams, verifier)] = db.execute("SELECT grams, verifier FROM frozen_prints").fetchall()
    db.close()
    kept = grams + verifier
    assert len(json.loads(grams)) > 10
    for word in ("median", "values", "9137", "7411", "9138"):
        assert word not in kept


def test_a_thousand_tasks_against_a_thousand_recorded_are_fast() -> None:
    """One template's 1,000 frozen tasks recorded, 1,000 train tasks of it audited after: each
    train task shares most words and cases with every frozen one, and the check stays fast."""
    fixed: list[tuple[list[object], object]] = [([[n, n + 2, n + 1]], n + 1) for n in range(9)]

    def made(task_id: str, n: int, split: Split) -> Task:
        prompt = f"{PROMPT}Use at most {n + 10} comparisons.\n"
        return with_cases(task(task_id, prompt, split), [*fixed, ([[5000 + n]], 5000 + n)])

    recorded = [frozen_print(made(f"f{n:04}", n, Split.FROZEN), "v", "r") for n in range(1000)]
    train = [made(f"t{n:04}", n + 1000, Split.TRAIN) for n in range(1000)]
    start = time.perf_counter()
    found = ContaminationCheck(recorded=recorded).run_set(train)
    took = time.perf_counter() - start
    assert sorted(found) == [t.id for t in train]
    [finding] = found["t0000"]
    assert finding.message.startswith("copies frozen task f0000 of audit run r (")
    assert finding.message.endswith(
        "and 999 more frozen tasks: remove it, or it trains on the held-out set"
    )
    assert took < 30, took
