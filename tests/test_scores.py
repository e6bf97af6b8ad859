"""A verdict's score: what the starting state already meets scales it and never adds to it."""

from __future__ import annotations

import pytest

from assay.verdicts import Criterion, met_at_start, score_of


def _c(name: str, passed: bool, *, kept: bool = False, weight: float = 1.0) -> Criterion:
    return Criterion(name=name, passed=passed, met_at_start=kept, weight=weight)


def test_without_kept_criteria_the_score_is_the_weighted_share() -> None:
    assert score_of([_c("a", True), _c("b", False), _c("c", True, weight=2)]) == 0.75
    assert score_of([]) == 0


def test_doing_nothing_scores_nothing() -> None:
    """Every kept criterion met and none of the changes: 0, where the plain share was 0.75."""
    criteria = [_c("change", False), *(_c(f"keep-{i}", True, kept=True) for i in range(3))]
    assert score_of(criteria) == 0


def test_the_changes_scaled_by_what_was_kept() -> None:
    changes = [_c("change-1", True), _c("change-2", True), _c("change-3", False)]
    kept = [_c("keep-1", True, kept=True), _c("keep-2", False, kept=True)]
    assert score_of([*changes, *kept]) == pytest.approx(2 / 3 * 1 / 2)
    assert score_of([*changes[:2], kept[0]]) == 1  # every change made, nothing broken
    broken = score_of([*changes[:2], *kept])
    assert broken == 0.5  # all the work done, half of what was kept broken


def test_only_kept_criteria_give_their_share() -> None:
    """A task whose requirements the start meets entirely (the audit's empty check rejects it)
    still gets a score that means something."""
    assert score_of([_c("keep-1", True, kept=True), _c("keep-2", False, kept=True)]) == 0.5


def test_kept_criteria_of_no_weight_leave_the_score_alone() -> None:
    assert score_of([_c("change", True), _c("keep", False, kept=True, weight=0)]) == 1


def test_marking_leaves_rubric_criteria_and_other_names_alone() -> None:
    criteria = (
        _c("a", True),
        _c("b", True),
        Criterion(name="a", passed=True, part="rubric", kind="style"),
    )
    marked = met_at_start(criteria, {"a"})
    assert [c.met_at_start for c in marked] == [True, False, False]
    assert [c.met_at_start for c in criteria] == [False, False, False]  # copies, not edits
