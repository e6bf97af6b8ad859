"""The profile of a stored run, as ``assay profile`` and ``assay audit --profile`` read it, and
the list of runs, from records this assay or another wrote."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from rich.console import Console

from assay._render_runs import runs_table
from assay.errors import InputError
from assay.runs import RunSpec, list_runs, run_profile, start_run
from assay.store import Store
from tests.runs.conftest import median_tasks


def _stored_run(db: Path) -> None:
    spec = RunSpec.of(median_tasks(2), root="t", policy="reference", k=2, mode="tools")
    with Store(db) as store:
        start_run(store, "p", spec)


def test_a_run_not_yet_run_lists_every_task_without_samples(tmp_path: Path) -> None:
    _stored_run(tmp_path / "s.db")
    with Store(tmp_path / "s.db") as store:
        profiled = run_profile(store, "p")
    assert set(profiled.versions) == {"median-0", "median-1"}
    assert [(t.task_id, t.samples, t.pass_rate) for t in profiled.profile.tasks] == [
        ("median-0", 0, None),
        ("median-1", 0, None),
    ]


@pytest.mark.parametrize(
    "spec",
    [
        {"k": 2},  # another assay's record: no tasks
        {"tasks": 5, "k": 2, "root": "t", "policy": "reference", "mode": "tools"},
        {"tasks": {"median-0": "v"}, "k": "two", "root": "t", "policy": "reference"},
    ],
)
def test_a_run_another_assay_wrote_is_one_line_never_a_crash(
    tmp_path: Path, spec: dict[str, object]
) -> None:
    db = tmp_path / "s.db"
    _stored_run(db)
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE runs SET spec = ? WHERE name = 'p'", (json.dumps(spec),))
    with Store(db) as store, pytest.raises(InputError, match="written by another assay") as err:
        run_profile(store, "p")
    assert "\n" not in str(err.value)


def test_the_list_of_runs_shows_a_run_another_assay_wrote(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _stored_run(db)
    with sqlite3.connect(db) as connection:
        spec = json.dumps({"tasks": 5, "k": 2, "policy": "reference"})
        connection.execute("UPDATE runs SET spec = ? WHERE name = 'p'", (spec,))
    with Store(db) as store:
        [row] = list_runs(store)
    assert (row.name, row.details["policy"], row.details["tasks"]) == ("p", "reference", None)
    console = Console(width=400, record=True, color_system=None, soft_wrap=True)
    console.print(runs_table([row], db))
    assert "reference k=2 ?:" in console.export_text()  # the mode it does not say, unknown
