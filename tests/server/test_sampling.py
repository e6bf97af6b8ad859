"""Drawing tasks: filters, mixture weights, the curriculum band, pass rates from a profile."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from pydantic import ValidationError

from assay.errors import InputError
from assay.families import get_family, version_label
from assay.profiles import RunProfile, Sample, build_profile
from assay.server import SamplingSpec, current_pass_rates, draw
from assay.server.models import CreateSession, Curriculum
from assay.tasks import Split, Task
from tests.conftest import make_median_task


def _task(task_id: str, family: str = "code", split: Split = Split.TRAIN, **spec: object) -> Task:
    task = make_median_task(task_id, split=split, **spec)
    return task.model_copy(update={"spec": task.spec.model_copy(update={"family": family})})


TASKS = [
    _task("code-a", tags=("easy",)),
    _task("code-b", tags=("easy", "lists")),
    _task("sql-a", family="sql"),
    _task("sql-b", family="sql", split=Split.DEV),
    _task("code-frozen", split=Split.FROZEN),
]


def _draws(spec: SamplingSpec, n: int = 400, rates: dict[str, float] | None = None) -> Counter[str]:
    rng = random.Random(5)
    return Counter(draw(TASKS, spec, rates or {}, rng).id for _ in range(n))


def test_filters_choose_among_matching_tasks_and_never_frozen_unasked() -> None:
    assert set(_draws(SamplingSpec())) == {"code-a", "code-b", "sql-a", "sql-b"}
    assert set(_draws(SamplingSpec(tags=("easy", "lists")))) == {"code-b"}
    assert set(_draws(SamplingSpec(split="dev"))) == {"sql-b"}
    assert set(_draws(SamplingSpec(split="frozen"))) == {"code-frozen"}
    with pytest.raises(InputError, match="no task matches"):
        draw(TASKS, SamplingSpec(family="config"), {})


def test_mixture_weights_draw_the_family_first() -> None:
    counts = _draws(SamplingSpec(weights={"code": 3, "sql": 1}), n=2000)
    code = counts["code-a"] + counts["code-b"]
    assert 0.70 < code / 2000 < 0.80
    assert set(_draws(SamplingSpec(weights={"sql": 1, "code": 0}))) == {"sql-a", "sql-b"}


def test_the_curriculum_prefers_the_band_and_falls_back_to_any() -> None:
    rates = {"code-a": 0.0, "code-b": 0.5, "sql-a": 1.0}
    band = Curriculum(low=0.1, high=0.9)
    assert set(_draws(SamplingSpec(curriculum=band), rates=rates)) == {"code-b"}
    assert set(_draws(SamplingSpec(family="sql", curriculum=band), rates=rates)) == {
        "sql-a",
        "sql-b",
    }


def test_a_negative_seed_is_a_draw_of_its_own() -> None:
    """``random.Random`` takes -n for n; a sampling seed must not."""
    positive = [draw(TASKS, SamplingSpec(seed=seed), {}).id for seed in range(1, 41)]
    negative = [draw(TASKS, SamplingSpec(seed=-seed), {}).id for seed in range(1, 41)]
    assert positive != negative


def test_a_seed_repeats_the_draw() -> None:
    firsts = {draw(TASKS, SamplingSpec(seed=11), {}).id for _ in range(20)}
    assert len(firsts) == 1


def test_bad_specs_are_refused() -> None:
    with pytest.raises(ValidationError):
        SamplingSpec(weights={"code": -1})
    with pytest.raises(ValidationError):
        SamplingSpec(weights={"code": 0})
    for weight in (math.inf, math.nan):
        with pytest.raises(ValidationError, match="finite number"):
            SamplingSpec(weights={"code": weight, "sql": 1})
    with pytest.raises(ValidationError, match="sum must be finite"):
        SamplingSpec(weights={"code": 1e308, "sql": 1e308})
    with pytest.raises(ValidationError):
        Curriculum(low=0.8, high=0.2)
    with pytest.raises(ValidationError):
        CreateSession(task_id="a", sample=SamplingSpec())
    with pytest.raises(ValidationError):
        CreateSession()


def test_pass_rates_come_from_a_profile_of_the_same_versions() -> None:
    samples = [Sample("code-a", 0, "pass"), Sample("code-a", 1, "fail")]
    samples += [Sample("code-b", 0, "pass"), Sample("sql-a", 0, "error")]
    label = version_label(get_family("code"))
    versions = {
        "code-a": TASKS[0].content_version(label),
        "code-b": "an-older-version",
        "sql-a": "whatever",
    }
    profiled = RunProfile(profile=build_profile("r", 2, samples), versions=versions)
    assert current_pass_rates(profiled, TASKS[:2]) == {"code-a": 0.5}
