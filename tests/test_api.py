"""The library example in the README works as written."""

from __future__ import annotations

from pathlib import Path

import pytest

import assay
from tests.conftest import REFERENCE, make_median_task


def test_the_readme_library_example(tmp_path: Path) -> None:
    task_dir = assay.save_task(make_median_task(), tmp_path / "tasks")
    (tmp_path / "attempt.py").write_bytes(REFERENCE)

    task = assay.load_task(task_dir)
    family = assay.get_family(task.family)
    with assay.PoolSandbox(trusted_code=family.trusted_code) as sandbox:
        attempt = (tmp_path / "attempt.py").read_bytes()
        verdict = family.verify(task, {"solution.py": attempt}, sandbox)
    assert verdict.status is assay.Status.PASS
    assert verdict.score == 1.0

    report = assay.run_audit(
        assay.TaskSet.load(tmp_path / "tasks"), sandbox=assay.BubblewrapSandbox()
    )
    assert report.all_accepted


def test_every_public_name_is_exported() -> None:
    for name in assay.__all__:
        assert hasattr(assay, name), name


def test_public_names_are_listed_before_they_are_loaded() -> None:
    assert set(assay.__all__) <= set(dir(assay))
    with pytest.raises(AttributeError, match="no attribute 'load_tasks'"):
        assay.load_tasks  # type: ignore[attr-defined]  # noqa: B018 - the lookup is the test
