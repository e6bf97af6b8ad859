"""A submitted patch and the changed project are hostile input read on the host: applying the
patch, measuring the change and linting it take time in proportion to their size, never its
square, and stop once the outcome is known."""

from __future__ import annotations

import time

import pytest

from assay.families.code.rewards import StyleReport, ruff_report
from assay.families.repo import rubric
from assay.families.repo.patches import PatchError, apply_patch, changed_lines, lines_changed
from assay.sandbox import LocalSandbox
from assay.tasks import Task
from assay.tasks.spec import TaskSpec

PROJECT = {"README.md": b"# pkg\n"}


def _made(lines: int) -> str:
    """A patch's first part: it makes big.txt of ``lines`` lines ``a``."""
    return f"--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,{lines} @@\n" + "+a\n" * lines


def test_a_hunk_stated_far_past_the_end_is_placed_at_once() -> None:
    patch = "--- a/README.md\n+++ b/README.md\n@@ -99999999 +99999999 @@\n-# pkg\n+# x\n"
    started = time.perf_counter()
    assert apply_patch(PROJECT, patch)["README.md"] == b"# x\n"
    assert time.perf_counter() - started < 2.0


def test_a_hunk_tried_at_every_place_of_a_long_file_is_refused() -> None:
    """20,000 lines that match at none of 20,000 places: 400 million line comparisons."""
    hunk = "@@ -1,20000 +1,20000 @@\n" + " a\n" * 19999 + "-b\n+c\n"
    patch = _made(40000) + "--- a/big.txt\n+++ b/big.txt\n" + hunk
    started = time.perf_counter()
    with pytest.raises(PatchError, match=r"big\.txt takes more than \d+ line steps"):
        apply_patch(PROJECT, patch, "attempt.patch")
    assert time.perf_counter() - started < 5.0


def test_one_long_file_changed_over_and_over_is_refused() -> None:
    again = "--- a/big.txt\n+++ b/big.txt\n@@ -1 +1 @@\n-a\n+a\n"
    with pytest.raises(PatchError, match="line steps"):
        apply_patch(PROJECT, _made(200_000) + again * 200)


def test_hunks_that_each_move_a_long_file_are_refused() -> None:
    inserts = "--- a/big.txt\n+++ b/big.txt\n" + "@@ -0,0 +1 @@\n+x\n" * 200
    with pytest.raises(PatchError, match="line steps"):
        apply_patch(PROJECT, _made(200_000) + inserts)


def test_a_patch_made_by_diff_is_far_inside_the_budget() -> None:
    old = {"big.txt": b"".join(b"line %d\n" % i for i in range(100_000))}
    patch = "--- a/big.txt\n+++ b/big.txt\n" + "".join(
        f"@@ -{i} +{i} @@\n-line {i - 1}\n+changed {i}\n" for i in range(1, 100_000, 100)
    )
    assert apply_patch(old, patch)["big.txt"].count(b"changed") == 1000


def test_blank_lines_strewn_through_a_file_are_counted_at_once_and_never_too_few() -> None:
    """difflib pairs every old blank line with every new one: hours for a 100 kB file."""
    old = b"".join(b"x%d = 1\n\n" % i for i in range(150))
    new = b"".join(b"x%d = 1\n" % i + b"\n" * 150 for i in range(150))
    started = time.perf_counter()
    assert lines_changed({"a.py": old}, {"a.py": new}) >= 150 * 149
    assert changed_lines(old, new) >= set(range(3, 150 * 151, 151))
    assert time.perf_counter() - started < 2.0


def test_a_small_change_is_counted_line_by_line() -> None:
    old = b"".join(b"x%d = 1\n\n" % i for i in range(300))
    new = old.replace(b"x7 = 1\n", b"x7 = 2\n").replace(b"x200 = 1\n\n", b"")
    assert lines_changed({"a.py": old}, {"a.py": new}) == 4
    assert changed_lines(old, new) == {15, 400}


def test_style_stops_at_the_findings_that_score_it_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    """40 changed files full of findings: ruff ran on each of them (a minute of host time for
    one verification), though the score was 0 after the first."""
    called: list[str] = []

    def counted(source: str, select: tuple[str, ...], line_length: int) -> StyleReport:
        called.append(source)
        return ruff_report(source, select, line_length)

    monkeypatch.setattr(rubric, "ruff_report", counted)
    workspace = {f"m{i}.py": b"x = 1\n" for i in range(40)}
    project = {f"m{i}.py": b"import os\n" * 100 for i in range(40)}
    task = Task(spec=TaskSpec(id="repo-x", family="repo"), prompt="Fix it.\n", workspace=workspace)
    criteria, _ = rubric.rubric_criteria(
        rubric.RepoRubric(style=1.0),
        task,
        project,
        [],
        sandbox=LocalSandbox(),
        tests="tests",
    )
    [style] = [c for c in criteria if c.name == "style"]
    assert style.score == 0.0
    assert style.evidence.startswith("at least 5 ruff finding(s) on changed lines: m0.py:2:")
    assert len(called) == 1
