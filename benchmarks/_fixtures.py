"""What the benchmarks share: the median task, its reference solution, its cases and limits.

Imported by ``sandbox.py`` and ``runner.py`` as a sibling module (each is run as a script, so its
own directory is on the path).
"""

from __future__ import annotations

from assay.families.code.config import Case, cases_json
from assay.tasks import Limits, Task, TaskSpec

LIMITS = Limits(timeout_s=5, memory_mb=256)

CANDIDATE = """
def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    if not ordered:
        return None
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
"""
"""The reference solution: it passes every case."""

CASES: list[tuple[list[object], object]] = [
    ([[3, 1, 2]], 2),
    ([[4, 1, 3, 2]], 2.5),
    ([[]], None),
    ([[5]], 5),
    ([[9, 7, 8, 6]], 7.5),
    ([[-1, -5, 3]], -1),
    ([[1.5, 0.5]], 1.0),
    ([[10, 20, 30, 40, 50, 60, 70]], 40),
    ([[2, 2, 2, 2]], 2.0),
    ([list(range(100, 0, -1))], 50.5),
]
"""The hidden cases: arguments and the expected value."""


def median_task(task_id: str = "bench-median") -> Task:
    """A small, sound code task held in memory: ``median`` with the 10 hidden cases."""
    cases = [Case(id=f"case-{i}", args=args, expected=want) for i, (args, want) in enumerate(CASES)]
    return Task(
        spec=TaskSpec(id=task_id, family="code", config={"function": "median"}, limits=LIMITS),
        prompt="Write `median(values)` in solution.py.\n",
        hidden={"cases.json": cases_json(cases)},
        solutions={"reference": {"solution.py": CANDIDATE.encode()}},
    )
