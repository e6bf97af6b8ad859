"""Drift of a generated set from its seed tasks: closeness to the nearest seed and how the mix
of labels moved; a set that stays near its seeds shows little, one that wanders shows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.audit import run_audit, select_checks
from assay.audit.diversity import diversity
from assay.audit.drift import BINS, drift, drift_findings
from assay.findings import Decision, Severity
from assay.sandbox import LocalSandbox
from assay.tasks import Task, TaskSet, save_task
from tests.conftest import make_median_task

SEED_TEXTS = {
    "seed-median": "Write median(values) returning the middle value of the sorted list of "
    "numbers, the mean of the two middle values when the length is even, None for no values.",
    "seed-mode": "Write mode(values) returning the most common value in the list of numbers, "
    "the smallest of them on a tie, and None when the list of values is empty.",
}


def task(task_id: str, prompt: str, *tags: str, locale: str | None = None) -> Task:
    made = make_median_task(task_id, tags=tags, locale=locale)
    return made.model_copy(update={"prompt": prompt})


def seeds() -> list[Task]:
    return [
        task("seed-median", SEED_TEXTS["seed-median"], "stats", "style:formal"),
        task("seed-mode", SEED_TEXTS["seed-mode"], "stats", "style:formal"),
    ]


def close_set() -> list[Task]:
    """Each seed again with a word or two changed, as a careful expansion makes them."""
    median, mode = SEED_TEXTS["seed-median"], SEED_TEXTS["seed-mode"]
    labels = ("stats", "style:formal")
    return [
        task("gen-1", median.replace("numbers", "floats"), *labels),
        task("gen-2", mode.replace("smallest", "least"), *labels),
        task("gen-3", median + " Do not modify the input.", *labels),
    ]


def far_set() -> list[Task]:
    """Tasks that share no phrasing with the seeds, in another style, tags and locale."""
    return [
        task(
            f"gen-{i}",
            f"Parse the {word} header of an HTTP response into a dictionary of lowercase names "
            f"to values, joining repeated {word} fields with commas.",
            "parsing",
            "style:ticket",
            locale="de-DE",
        )
        for i, word in enumerate(["cache", "cookie", "vary", "link"])
    ]


def test_a_set_that_stays_near_its_seeds_shows_no_drift() -> None:
    measured = drift(close_set(), seeds(), "seeds")
    assert measured.seeds == 2
    assert [(m.task_id, m.seed_id) for m in measured.nearest] == [
        ("gen-1", "seed-median"),
        ("gen-2", "seed-mode"),
        ("gen-3", "seed-median"),
    ]
    assert all(m.similarity >= 0.6 for m in measured.nearest)
    assert measured.median is not None
    assert measured.median >= 0.6
    assert measured.far == 0
    assert sum(measured.bins) == 3
    assert len(measured.bins) == BINS
    assert sum(measured.bins[6:]) == 3
    for kind, moved in measured.labels.items():
        assert moved.distance == 0.0, kind
        assert all(share.seeds == share.tasks for share in moved.shares), kind


def test_a_set_that_wanders_from_its_seeds_shows_how_far() -> None:
    measured = drift(far_set(), seeds(), "seeds")
    assert measured.far == 4
    assert measured.copies == 0
    assert measured.bins[0] == 4
    assert measured.median is not None
    assert measured.median < 0.1
    tags = measured.labels["tags"]
    assert tags.distance == 1.0  # no tag in common
    by_label = {share.label: (share.seeds, share.tasks) for share in tags.shares}
    assert by_label["stats"] == (1.0, 0.0)
    assert by_label["style:ticket"] == (0.0, 1.0)
    locales = measured.labels["locales"]
    assert {s.label: (s.seeds, s.tasks) for s in locales.shares} == {
        "unset": (1.0, 0.0),
        "de-DE": (0.0, 1.0),
    }
    assert measured.labels["families"].distance == 0.0


def test_shares_that_moved_part_way_are_measured_and_sorted_by_how_far() -> None:
    mixed = close_set()[:2] + far_set()[:2]
    tags = drift(mixed, seeds(), "seeds").labels["tags"]
    # seeds: stats and style:formal once each a task; the set: half of them, half new tags
    assert tags.distance == 0.5
    assert [s.label for s in tags.shares][:2] == ["parsing", "stats"]
    assert {s.label: s.tasks for s in tags.shares}["stats"] == 0.5


def test_copies_of_seeds_are_counted() -> None:
    copies = [task("copy", SEED_TEXTS["seed-mode"], "stats", "style:formal")]
    measured = drift(copies, seeds(), "seeds")
    assert measured.copies == 1
    assert measured.nearest[0].similarity == 1.0
    assert measured.bins[-1] == 1


def test_drift_needs_a_seed_and_takes_an_empty_set() -> None:
    with pytest.raises(ValueError, match="at least one seed"):
        drift(close_set(), [], "seeds")
    empty = drift([], seeds(), "seeds")
    assert empty.median is None
    assert sum(empty.bins) == 0


def test_the_diversity_carries_the_drift_only_when_seeds_are_given(tmp_path: Path) -> None:
    for seed in seeds():
        save_task(seed, tmp_path / "seeds")
    loaded = TaskSet.load(tmp_path / "seeds")
    spread = diversity(far_set(), loaded)
    assert spread.drift is not None
    assert spread.drift.seeds_root == str(tmp_path / "seeds")
    assert spread.drift.far == 4
    assert diversity(far_set()).drift is None


def test_near_copies_need_review_and_far_tasks_are_noted() -> None:
    made = [
        task("copy", SEED_TEXTS["seed-mode"], "stats"),
        task("close", SEED_TEXTS["seed-median"].replace("numbers", "floats") + " Be exact."),
        *far_set()[:1],
    ]
    found = drift_findings(drift(made, seeds(), "seeds"), ["copy", "close", "gen-0"])
    assert set(found) == {"copy", "gen-0"}  # a careful variant of a seed is what expansion is for
    [copy] = found["copy"]
    assert (copy.check, copy.severity, copy.review) == ("drift", Severity.WARNING, True)
    assert "near copy of seed seed-mode" in copy.message
    assert copy.evidence == "nearest seed seed-mode in seeds: 1.00"
    [far] = found["gen-0"]
    assert (far.severity, far.review) == (Severity.INFO, False)
    assert drift_findings(drift(made, seeds(), "seeds"), ["close", "gen-0"]).keys() == {"gen-0"}


def test_the_audit_quarantines_a_copy_of_a_seed(tmp_path: Path) -> None:
    for seed in seeds():
        save_task(seed, tmp_path / "seeds")
    save_task(task("copy", SEED_TEXTS["seed-mode"], "stats"), tmp_path / "set")
    save_task(task("gen-1", far_set()[0].prompt, "parsing"), tmp_path / "set")
    taskset = TaskSet.load(tmp_path / "set")
    only = select_checks("duplicates")  # the prompts are the tests', not the tasks' own
    seeded = TaskSet.load(tmp_path / "seeds")
    report = run_audit(taskset, LocalSandbox(), checks=only, seeds=seeded)
    decisions = {t.task_id: t.decision for t in report.tasks}
    assert decisions == {"copy": Decision.QUARANTINED, "gen-1": Decision.ACCEPTED}
    assert "drift" in report.checks
    checks = {t.task_id: [f.check for f in t.findings] for t in report.tasks}
    assert checks == {"copy": ["drift"], "gen-1": ["drift"]}
    unseeded = run_audit(taskset, LocalSandbox(), checks=only)
    assert "drift" not in unseeded.checks
    assert all(t.decision is Decision.ACCEPTED for t in unseeded.tasks)


def test_a_seed_kept_in_the_set_or_its_next_version_is_no_copy_of_itself(tmp_path: Path) -> None:
    """A set that keeps its seeds, or a next release audited against the last one, holds each
    seed again under its own id: that task is the seed, not a copy of it to quarantine."""
    for seed in seeds():
        save_task(seed, tmp_path / "seeds")
    edited = SEED_TEXTS["seed-median"] + " Do not modify the input."
    kept = [seeds()[1], task("seed-median", edited, "stats", "style:formal")]
    copy = task("copy", SEED_TEXTS["seed-mode"], "stats")
    for made in (*kept, copy):
        save_task(made, tmp_path / "set")
    report = run_audit(
        TaskSet.load(tmp_path / "set"),
        LocalSandbox(),
        checks=[],
        seeds=TaskSet.load(tmp_path / "seeds"),
    )
    assert report.diversity is not None
    assert report.diversity.drift is not None
    nearest = {m.task_id: m.seed_id for m in report.diversity.drift.nearest}
    assert nearest == {"seed-median": "seed-median", "seed-mode": "seed-mode", "copy": "seed-mode"}
    decisions = {t.task_id: t.decision for t in report.tasks}
    assert decisions == {
        "seed-median": Decision.ACCEPTED,
        "seed-mode": Decision.ACCEPTED,
        "copy": Decision.QUARANTINED,  # a copy under another id still is one
    }
    # and the count says the same: one copy, not three (the kept seeds counted as their own)
    assert report.diversity.drift.copies == 1
