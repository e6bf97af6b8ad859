"""What a candidate may import: the standard library, and the packages its task declares in
``code.imports``. The environment is recorded in each verdict's versions."""

from __future__ import annotations

import platform
from importlib import metadata
from pathlib import Path

import pytest

from assay.errors import TaskFormatError
from assay.families.code import CodeFamily
from assay.families.code.config import Case, cases_json, code_config
from assay.families.code.generator import generate_code_tasks
from assay.sandbox import LocalSandbox, PoolSandbox, Sandbox
from assay.tasks import Limits, Task, TaskSpec, load_task, save_task
from assay.verdicts import Status, Verdict
from tests.conftest import REFERENCE, make_median_task

family = CodeFamily()

POINT_REFERENCE = b"""
from pydantic import BaseModel

import helpers


class Point(BaseModel):
    x: int
    y: int


def point_sum(data):
    point = Point.model_validate(data)
    return helpers.add(point.x, point.y)
"""
HELPERS = b"def add(a, b):\n    return a + b\n"


def point_task(imports: object = ("pydantic",), reference: bytes = POINT_REFERENCE) -> Task:
    """A task whose reference needs pydantic, declared in code.imports."""
    cases = [
        Case(id="ints", args=[{"x": 1, "y": 2}], expected=3),
        Case(id="text", args=[{"x": "4", "y": 5}], expected=9),
    ]
    return Task(
        spec=TaskSpec(
            id="point-sum",
            family="code",
            config={"function": "point_sum", "imports": imports},
            limits=Limits(timeout_s=10, memory_mb=512),
        ),
        prompt="Write `point_sum(data)` in solution.py; you may use pydantic.\n",
        hidden={"cases.json": cases_json(cases)},
        solutions={"reference": {"solution.py": reference, "helpers.py": HELPERS}},
    )


def test_a_declared_package_is_importable_and_recorded(sandbox: Sandbox) -> None:
    task = point_task()
    verdict = family.verify(task, task.solutions["reference"], sandbox)
    assert verdict.status is Status.PASS, verdict
    python = verdict.versions.python
    assert python is not None
    assert python.implementation == (
        f"{platform.python_implementation()} {platform.python_version()}"
    )
    assert f"pydantic=={metadata.version('pydantic')}" in python.packages
    assert f"pydantic-core=={metadata.version('pydantic-core')}" in python.packages  # required
    assert not any(p.startswith("hypothesis==") for p in python.packages)


def test_an_undeclared_package_does_not_load(sandbox: Sandbox) -> None:
    task = point_task()
    candidate = b"import hypothesis\n" + POINT_REFERENCE
    verdict = family.verify(task, {"solution.py": candidate, "helpers.py": HELPERS}, sandbox)
    assert verdict.status is Status.FAIL
    assert "No module named 'hypothesis'" in verdict.summary


@pytest.mark.parametrize("module", ["pydantic", "typing_extensions", "numpy", "six", "yaml"])
def test_a_standard_library_task_offers_no_installed_package(sandbox: Sandbox, module: str) -> None:
    task = make_median_task()
    # site.main() does what -S skipped: puts every site-packages directory on sys.path.
    candidate = f"import site\nsite.main()\nimport {module}\n".encode() + REFERENCE
    verdict = family.verify(task, {"solution.py": candidate}, sandbox)
    assert verdict.status is Status.FAIL
    assert f"No module named '{module}'" in verdict.summary
    assert verdict.versions.python is not None
    assert verdict.versions.python.packages == ()


def test_the_standard_library_only_by_default(median_task: Task) -> None:
    assert code_config(median_task).imports == ()


@pytest.mark.parametrize(
    ("imports", "field", "words"),
    [
        (["no-such-package-xyz"], "code.imports", "not installed in assay's Python environment"),
        (["json"], "code.imports", "in the standard library"),
        (["not a name"], "code.imports.0", "should match pattern"),
        ("pydantic", "code.imports", "valid tuple"),
    ],
)
def test_a_bad_imports_field_is_one_line_naming_file_field_and_fix(
    imports: object, field: str, words: str
) -> None:
    with pytest.raises(TaskFormatError) as raised:
        code_config(point_task(imports))
    message = str(raised.value)
    assert message.startswith(f"point-sum/task.toml: {field}: ")
    assert words in message
    assert "\n" not in message
    assert raised.value.fix


def test_a_task_on_disk_with_an_unknown_package_is_rejected_by_lint(tmp_path: Path) -> None:
    loaded = load_task(save_task(point_task(["no-such-package-xyz"]), tmp_path))
    [finding] = family.lint(loaded)
    assert "code.imports" in finding.message
    assert "'no-such-package-xyz' is not installed" in finding.message
    assert "remove it from code.imports" in finding.message


def test_lint_flags_a_reference_importing_what_the_task_does_not_declare() -> None:
    assert family.lint(point_task()) == []
    undeclared = point_task(reference=b"import hypothesis.strategies\n" + POINT_REFERENCE)
    [finding] = family.lint(undeclared)
    assert "solutions/reference/solution.py imports 'hypothesis'" in finding.message
    assert finding.evidence == "import hypothesis.strategies"
    [finding] = family.lint(point_task(imports=[]))
    assert "imports 'pydantic'" in finding.message


def test_lint_passes_standard_library_local_and_relative_imports() -> None:
    source = b"from __future__ import annotations\nimport json, os.path\nfrom . import x\n"
    task = make_median_task()
    task = task.model_copy(update={"solutions": {"reference": {"solution.py": source + REFERENCE}}})
    assert [f for f in family.lint(task) if "imports" in f.message] == []


def test_generated_tasks_are_standard_library_only(pool: PoolSandbox) -> None:
    for task in generate_code_tasks(10, 5, pool):
        assert code_config(task).imports == ()
        assert [f.message for f in family.lint(task) if "imports" in f.message] == []
        verdict = family.verify(task, task.solutions["reference"], pool)
        assert verdict.status is Status.PASS
        assert verdict.versions.python is not None
        assert verdict.versions.python.packages == ()


def test_a_backend_that_cannot_expose_packages_gives_an_error_verdict() -> None:
    task = point_task()
    verdict = family.verify(task, task.solutions["reference"], LocalSandbox())
    assert verdict.status is Status.ERROR
    assert "cannot expose packages" in verdict.summary


def test_a_verdict_stored_before_the_environment_was_recorded_still_loads(
    median_task: Task,
) -> None:
    verdict = family.verify(median_task, median_task.solutions["reference"], LocalSandbox())
    stored = verdict.model_dump(mode="json")
    del stored["versions"]["python"]
    old = Verdict.model_validate(stored)
    assert old.versions.python is None
    assert Verdict.model_validate_json(verdict.model_dump_json()) == verdict
