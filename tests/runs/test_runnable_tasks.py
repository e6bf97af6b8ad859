"""A task set holding a task no episode can be formed on (a family that gives agents no tools,
such as imported terminal tasks) is refused before the run is made, naming the task; it never
becomes a run that stops at that task and cannot be finished or resumed."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import InputError
from assay.runs import RunSpec
from assay.store import Store
from assay.tasks import save_task
from tests.conftest import make_terminal_task
from tests.runs.conftest import assay, finish, median_tasks


@pytest.mark.parametrize("mode", ["tools", "single"])
def test_a_spec_with_a_task_no_episode_can_be_formed_on_is_refused(mode: str) -> None:
    tasks = [*median_tasks(2), make_terminal_task()]
    with pytest.raises(
        InputError, match=r"term-1: a \S+ task runs in a container .*needs a container backend"
    ):
        RunSpec.of(tasks, root="t", policy="reference", k=1, mode=mode)  # type: ignore[arg-type]


def test_assay_run_refuses_it_with_exit_2_and_makes_no_run(tmp_path: Path) -> None:
    root = tmp_path / "tasks"
    for task in [*median_tasks(2), make_terminal_task()]:
        save_task(task, root)
    db = tmp_path / "s.db"
    code, _, err = finish(assay("run", str(root), "--policy", "reference", "--run", "r", db=db))
    assert code == 2, err
    assert "term-1" in err
    assert "needs a container backend" in err
    assert "Traceback" not in err
    if db.exists():
        with Store(db) as store:
            assert store.run("r") is None
