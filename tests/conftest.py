"""Shared fixtures: a real bubblewrap sandbox, a small hand-written code task, a CLI runner."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from assay.cli import cli
from assay.families import harness_code
from assay.families.code.config import Case, cases_json
from assay.sandbox import BubblewrapSandbox, PoolSandbox, Sandbox, _userns
from assay.tasks import Limits, Task, TaskSpec, save_task

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    # Started in the background by a shell (``make test &``), the tests inherit SIGINT ignored,
    # and so would every command they start: the tests that interrupt one need it back.
    signal.signal(signal.SIGINT, signal.default_int_handler)

if os.environ.get("ASSAY_TEST_WITHOUT_SUBIDS"):
    # The suite as a user whose host grants no subordinate ids (the ``shared`` identity).
    _userns.SUBUID = Path("/nonexistent/subuid")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``slow(minutes)`` (whole demos, generated sets audited, trainers) first,
    the longest first, so that with two workers (``make test``) the other one works through the
    rest meanwhile instead of both waiting on one long test at the end."""

    def minutes(item: pytest.Item) -> float:
        slow = item.get_closest_marker("slow")
        return 0.0 if slow is None else float(slow.kwargs["minutes"])

    items.sort(key=minutes, reverse=True)  # stable: the rest keep their order


REFERENCE = b"""
def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    if not ordered:
        return None
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
"""

BAD_NO_SORT = b"""
def median(values):
    middle = len(values) // 2
    if not values:
        return None
    if len(values) % 2:
        return values[middle]
    return (values[middle - 1] + values[middle]) / 2
"""

CASES = [
    ([[3, 1, 2]], 2),
    ([[4, 1, 3, 2]], 2.5),
    ([[]], None),
    ([[5]], 5),
    ([[9, 7, 8, 6]], 7.5),
]


def make_terminal_task() -> Task:
    """A task of the one family that gives agents no tools (an imported Terminal-Bench task)."""
    return Task(
        spec=TaskSpec(
            id="term-1",
            family="terminal",
            config={"source": "terminal-bench", "test_command": "run-tests.sh"},
        ),
        prompt="Create hello.txt in the working directory.\n",
        hidden={"run-tests.sh": b"#!/bin/sh\ntest -f hello.txt\n"},
        solutions={"reference": {"solve.sh": b"#!/bin/sh\necho hi > hello.txt\n"}},
    )


def make_median_task(task_id: str = "median-1", **spec: object) -> Task:
    """A small, sound code task written by hand (not by the generator). Its last case is drawn
    from the task's id (``median-1`` keeps :data:`CASES`), so that two such tasks of a set are
    not judged by the very same cases, which the duplicates check reports as copies."""
    low = 6 if task_id == "median-1" else 10 + zlib.crc32(task_id.encode()) % 100_000
    drawn = [*CASES[:-1], ([[low + 3, low + 1, low + 2, low]], low + 1.5)]
    cases = [Case(id=f"case-{i}", args=args, expected=want) for i, (args, want) in enumerate(drawn)]
    return Task(
        spec=TaskSpec(
            id=task_id,
            family="code",
            config={"function": "median"},
            **({"limits": Limits(timeout_s=5, memory_mb=256)} | spec),  # type: ignore[arg-type]
        ),
        prompt=_context(task_id) + "Write `median(values)` in solution.py: the median of a list "
        "of numbers, the mean of the two middle values for even lengths, None for an empty list.\n",
        hidden={"cases.json": cases_json(cases)},
        solutions={
            "reference": {"solution.py": REFERENCE},
            "bad-unsorted": {"solution.py": BAD_NO_SORT},
        },
    )


_CONTEXT_WORDS = [
    "amber",
    "birch",
    "cedar",
    "delta",
    "ember",
    "fjord",
    "grove",
    "harbor",
    "indigo",
    "juniper",
    "kestrel",
    "lagoon",
    "meadow",
    "nectar",
    "orchid",
    "prairie",
    "quartz",
    "raven",
    "sierra",
    "tundra",
    "umber",
    "violet",
    "willow",
    "yarrow",
    "zephyr",
]


def _context(task_id: str) -> str:
    """A few words of context that differ from task id to task id, so that a set of median
    tasks is not a set of duplicates to the audit."""
    digest = hashlib.sha256(task_id.encode()).digest()
    words = [_CONTEXT_WORDS[byte % len(_CONTEXT_WORDS)] for byte in digest[:8]]
    return f"For the {' '.join(words)} report: "


def with_checker(task: Task, source: bytes, name: str = "checker.py") -> Task:
    """``task`` judged by a trusted checker in ``hidden/<name>`` instead of by comparison."""
    config = {**task.spec.config, "checker": name}
    return task.model_copy(
        update={
            "spec": task.spec.model_copy(update={"config": config}),
            "hidden": {**task.hidden, name: source},
        }
    )


@pytest.fixture(scope="session")
def bubblewrap() -> BubblewrapSandbox:
    return BubblewrapSandbox()


@pytest.fixture(scope="session")
def pool() -> Iterator[PoolSandbox]:
    with PoolSandbox(max_workers=2, trusted_code=harness_code()) as warm:
        yield warm


@pytest.fixture(params=["pool", "bubblewrap"])
def sandbox(request: pytest.FixtureRequest) -> Sandbox:
    """Each backend in turn: what holds for one must hold for the other."""
    backend: Sandbox = request.getfixturevalue(request.param)
    return backend


@pytest.fixture
def median_task() -> Task:
    return make_median_task()


@pytest.fixture
def median_dir(tmp_path: Path, median_task: Task) -> Path:
    return save_task(median_task, tmp_path / "tasks")


@pytest.fixture
def run_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    """Invoke the CLI in-process with the store in a temporary directory."""
    monkeypatch.setenv("ASSAY_DB", str(tmp_path / "store.db"))

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)

    return invoke


def expected_outputs(task: Task) -> list[object]:
    """The expected outputs recorded in a task's hidden cases."""
    return [case["expected"] for case in json.loads(task.hidden["cases.json"])["cases"]]
