"""The SQLite store keeps what it is given, with its versions, and refuses what it cannot read."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.audit import AuditReport, Decision, TaskAudit
from assay.errors import StoreError
from assay.store import Store
from assay.verdicts import Criterion, Status, Timings, Verdict, Versions

criteria = st.builds(
    Criterion,
    name=st.text(min_size=1, max_size=10),
    passed=st.booleans(),
    weight=st.floats(0, 10),
    evidence=st.text(max_size=40),
)
verdicts = st.builds(
    Verdict,
    task_id=st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True),
    status=st.sampled_from(list(Status)),
    score=st.floats(0, 1),
    criteria=st.lists(criteria, max_size=4).map(tuple),
    summary=st.text(max_size=40),
    timings=st.builds(Timings, wall_s=st.floats(0, 100)),
    versions=st.builds(
        Versions,
        task=st.text(min_size=1, max_size=8),
        family=st.just("code@1"),
        assay=st.just("0.1.0"),
    ),
    created_at=st.datetimes(timezones=st.just(UTC)),
)


@settings(max_examples=50)
@given(verdict=verdicts)
def test_verdict_write_then_read_round_trips(verdict: Verdict) -> None:
    with Store(Path(":memory:")) as store:
        row = store.add_verdict(verdict, solution="sol")
        [stored] = store.verdicts(task_id=verdict.task_id)
    assert stored.id == row
    assert stored.verdict == verdict


def test_audit_runs_and_their_verdicts_are_kept_together(tmp_path: Path) -> None:
    now = datetime.now(UTC)
    verdict = Verdict(
        task_id="t",
        status=Status.FAIL,
        score=0.5,
        timings=Timings(wall_s=1),
        versions=Versions(task="abc", family="code@1", assay="0.1.0"),
    )
    report = AuditReport(
        run_id="run1",
        root="/x",
        started_at=now,
        finished_at=now,
        checks=("lint",),
        tasks=(
            TaskAudit(task_id="t", task_version="abc", path="/x/t", decision=Decision.ACCEPTED),
        ),
    )
    path = tmp_path / "a.db"
    with Store(path) as store:
        store.add_audit(report, [("bad-x", verdict)])
    with Store(path) as store:
        [run] = store.audit_runs()
        [kept] = store.verdicts(run_id="run1")
    assert run.accepted == 1
    assert run.checks == ("lint",)
    assert kept.solution == "bad-x"
    assert kept.verdict.versions.task == "abc"


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database" * 100)
    with pytest.raises(StoreError, match="cannot open the results database"):
        Store(path)
    assert path.read_text().startswith("these are my notes")


def test_runners_opening_one_new_store_together_all_open_it(tmp_path: Path) -> None:
    """Several processes started together on a new store file (two runners sharing a run): one
    creates its tables while the others look at it. Each of them must see an assay store, not
    half of one (read as another program's database) nor a locked file."""
    refused: list[str] = []
    for round_ in range(80):
        path = tmp_path / f"s{round_}.db"
        start = threading.Barrier(6)

        def open_store(path: Path = path, start: threading.Barrier = start) -> None:
            start.wait()
            try:
                with Store(path):
                    pass
            except StoreError as exc:
                refused.append(str(exc))

        openers = [threading.Thread(target=open_store) for _ in range(6)]
        for opener in openers:
            opener.start()
        for opener in openers:
            opener.join()
    assert refused == []
