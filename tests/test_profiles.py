"""Pass-rate profiles: the estimators, the histogram's edges, the triage, and bad input."""

from __future__ import annotations

import json
from math import comb

import pytest
from rich.console import Console

from assay._render_runs import profile_table
from assay.profiles import Sample, build_profile, histogram_lines, pass_at_k


def _samples(task: str, statuses: str) -> list[Sample]:
    names = {"p": "pass", "f": "fail", "e": "error"}
    return [Sample(task, i, names[s]) for i, s in enumerate(statuses)]


def test_pass_at_k_is_the_unbiased_estimator() -> None:
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - comb(7, 5) / comb(10, 5))
    assert pass_at_k(10, 0, 5) == 0.0
    assert pass_at_k(10, 6, 5) == 1.0  # fewer than k failures: some draw of k always passes
    assert pass_at_k(3, 1, 5) is None  # fewer scored samples than k: not defined
    with pytest.raises(ValueError, match="passed <= scored"):
        pass_at_k(3, 4, 1)


def test_errors_are_left_out_of_the_rates_and_reported_beside_them() -> None:
    profile = build_profile("r", 4, _samples("t", "ppfe"))
    (task,) = profile.tasks
    assert (task.samples, task.passed, task.errors) == (4, 2, 1)
    assert task.pass_rate == pytest.approx(2 / 3)
    assert task.pass_at_1 == pytest.approx(2 / 3)
    assert task.pass_at_k is None  # 3 scored samples cannot estimate pass@4
    only_errors = build_profile("r", 2, _samples("t", "ee")).tasks[0]
    assert (only_errors.pass_rate, only_errors.pass_at_1, only_errors.pass_at_k) == (
        None,
        None,
        None,
    )


def test_the_histogram_has_exact_ends_and_ten_buckets_between() -> None:
    samples = [
        *_samples("zero", "ffffffffff"),
        *_samples("three-tenths", "pppfffffff"),  # exactly 0.3: in [0.3, 0.4), not below
        *_samples("one-tenth-less", "pfffffffffff"),  # 1/12: in (0, 0.1)
        *_samples("nine-tenths", "pppppppppf"),  # 0.9: in [0.9, 1.0)
        *_samples("all", "pppppppppp"),
        *_samples("unscored", "eeeeeeeeee"),
    ]
    profile = build_profile("r", 10, samples)
    buckets = [(b.low, b.high, b.tasks) for b in profile.histogram]
    assert len(buckets) == 12
    assert buckets[0] == (0.0, 0.0, 1)
    assert buckets[-1] == (1.0, 1.0, 1)
    assert buckets[1] == (0.0, 0.1, 1)
    assert buckets[4] == (0.3, 0.4, 1)
    assert buckets[10] == (0.9, 1.0, 1)
    assert sum(b[2] for b in buckets) == 5  # the unscored task is in none
    assert profile.triage.review == ("zero",)
    assert profile.triage.too_easy == ("all",)


def test_the_json_has_the_documented_shape() -> None:
    profile = build_profile("run-1", 2, [*_samples("a", "pf"), *_samples("b", "pp")])
    data = json.loads(profile.model_dump_json())
    assert set(data) == {"run", "k", "tasks", "histogram", "triage"}
    assert set(data["tasks"][0]) == {
        "task_id",
        "samples",
        "passed",
        "errors",
        "pass_rate",
        "pass_at_1",
        "pass_at_k",
    }
    assert set(data["histogram"][0]) == {"low", "high", "tasks"}
    assert data["triage"] == {"review": [], "too_easy": ["b"]}


def test_the_text_histogram_has_a_line_a_bucket() -> None:
    profile = build_profile("r", 1, [*_samples("a", "p"), *_samples("b", "f"), *_samples("c", "f")])
    lines = histogram_lines(profile, width=10)
    assert len(lines) == 12
    assert lines[0].split() == ["0%", "2", "#" * 10]
    assert lines[-1].split() == ["100%", "1", "#" * 5]


def test_an_unknown_status_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown status 'passed'"):
        build_profile("r", 1, [Sample("t", 0, "passed")])


def test_a_rate_near_an_end_is_not_shown_as_the_end() -> None:
    statuses = {"almost": ["pass"] * 4998 + ["fail"] * 2, "barely": ["pass"] + ["fail"] * 4999}
    samples = [
        Sample(task_id=task, sample=i, status=status)
        for task, kept in statuses.items()
        for i, status in enumerate(kept)
    ]
    profile = build_profile("r", 5000, samples)
    assert (profile.triage.review, profile.triage.too_easy) == ((), ())
    console = Console(width=200, record=True)
    console.print(profile_table(profile))
    cells = {
        row[0]: row[1:]
        for line in console.export_text().splitlines()
        if len(row := [cell.strip() for cell in line.split("│")[1:-1]]) == 7
    }
    # samples, passed, errors, pass rate, pass@1, pass@k (k = 5000: a certainty with 4998)
    assert cells["almost"] == ["5000", "4998", "0", ">99.9%", ">99.9%", "100.0%"]
    assert cells["barely"] == ["5000", "1", "0", "<0.1%", "<0.1%", "100.0%"]
