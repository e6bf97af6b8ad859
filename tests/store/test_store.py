"""The SQLite store keeps what it is given, with its versions, and refuses what it cannot read."""

from __future__ import annotations

import os
import stat
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


def test_text_a_database_cannot_hold_is_kept_with_a_replacement_character(
    tmp_path: Path,
) -> None:
    # A solution file whose name is not UTF-8 (its bytes held as lone surrogates) and a summary
    # with a lone surrogate: binding either raised, and the verdict just made was lost.
    now = datetime.now(UTC)
    verdict = Verdict(
        task_id="t",
        status=Status.FAIL,
        score=0.5,
        summary="half \ud800 done",
        timings=Timings(wall_s=1),
        versions=Versions(task="abc", family="code@1", assay="0.1.0"),
    )
    audit = TaskAudit(
        task_id="t", task_version="abc", path="/x\udcff/t", decision=Decision.ACCEPTED
    )
    report = AuditReport(
        run_id="run1", root="/x\udcff", started_at=now, finished_at=now, checks=(), tasks=(audit,)
    )
    path = tmp_path / "a.db"
    with Store(path) as store:
        store.add_verdict(verdict, solution="ok")
        store.add_verdict(verdict, solution="sols/sol-\udcff.py", run_id="r\udcff")
        store.add_audit(report, [])
    with Store(path) as store:
        kept = store.verdicts()
        [run] = store.audit_runs()
        [task] = store.task_audits("run1") or []
        assert [v.id for v in store.verdicts(run_id="r\udcff")] == [kept[1].id]
    assert [v.solution for v in kept] == ["ok", "sols/sol-\ufffd.py"]
    assert [v.verdict.summary for v in kept] == ["half \ufffd done"] * 2
    assert run.root == "/x\ufffd"
    assert task.path == "/x\ufffd/t"


def _opened_or_refused(path: Path, *, read_only: bool) -> str:
    """What opening ``path`` says, within ten seconds: a FIFO the store waits on fails here."""
    said: list[str] = []

    def open_it() -> None:
        try:
            Store(path, timeout_s=1, read_only=read_only).close()
            said.append("opened")
        except StoreError as exc:
            said.append(str(exc))

    opening = threading.Thread(target=open_it, daemon=True)
    opening.start()
    opening.join(10)
    if opening.is_alive() and stat.S_ISFIFO(os.lstat(path).st_mode):
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))  # lets the waiting reader go
        opening.join(10)
        return "waited on the FIFO"
    return said[0]


@pytest.mark.parametrize("read_only", [False, True])
def test_a_fifo_or_device_given_as_the_store_is_refused_without_waiting(
    tmp_path: Path, read_only: bool
) -> None:
    fifo = tmp_path / "runs.db"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        said = _opened_or_refused(path, read_only=read_only)
        assert said == (
            f"{path}: is a FIFO, socket or device, not a results database (point ASSAY_DB or "
            "--db at a SQLite file, or at a new path to start one)"
        )


@pytest.mark.parametrize("read_only", [False, True])
def test_a_store_path_the_system_refuses_is_one_line(tmp_path: Path, read_only: bool) -> None:
    for path in (tmp_path / ("x" * 300), tmp_path / "a\x00b.db"):
        with pytest.raises(StoreError, match="cannot open the results database: ") as caught:
            Store(path, read_only=read_only)
        assert str(caught.value).startswith(f"{path}: ")


def test_a_truncated_store_read_where_it_cannot_be_written_names_the_file(
    tmp_path: Path,
) -> None:
    whole = tmp_path / "whole.db"
    Store(whole).close()
    cut = tmp_path / "cut.db"
    cut.write_bytes(whole.read_bytes()[:50])
    for read_only in (False, True):
        with pytest.raises(StoreError, match="malformed") as caught:
            Store(cut, read_only=read_only)
        assert str(caught.value).startswith(f"{cut}: cannot ")


def test_reading_a_store_that_is_not_there_says_so(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"nope\.db: no results database here"):
        Store(tmp_path / "nope.db", read_only=True)
    assert not (tmp_path / "nope.db").exists()
