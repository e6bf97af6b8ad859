"""A verdict whose score could not be made (its judge unreachable: the status stands, the score
is a placeholder 0) is exported with no score, never with that 0."""

from __future__ import annotations

from assay.episodes import Budget, Cost, EndReason, Trajectory
from assay.integrations.exports import preference_rows, sft_rows
from assay.policies import PolicyIdentity
from assay.verdicts import Status, Timings, Verdict, Versions


def _episode(episode_id: str, status: Status, score: float, score_error: str | None) -> Trajectory:
    verdict = Verdict(
        task_id="median-1",
        status=status,
        score=score,
        score_error=score_error,
        timings=Timings(wall_s=0.1),
        versions=Versions(task="v", family="code@1", assay="0"),
    )
    return Trajectory(
        episode_id=episode_id,
        task_id="median-1",
        task_version="v",
        family="code@1",
        mode="tools",
        policy=PolicyIdentity(spec="reference", kind="reference"),
        prompt=(),
        budget=Budget(),
        end=EndReason.SUBMITTED,
        verdict=verdict,
        cost=Cost(input_tokens=3, output_tokens=2, sandbox_cpu_s=0.5, wall_s=1.0),
    )


UNREACHABLE = "the judge could not be reached"


def test_an_unscored_verdict_is_exported_without_a_score() -> None:
    passed = _episode("p", Status.PASS, 0.0, UNREACHABLE)
    failed = _episode("f", Status.FAIL, 0.0, UNREACHABLE)
    scored = _episode("s", Status.PASS, 0.75, None)
    assert [row["score"] for row in sft_rows([passed, scored], {})] == [None, 0.75]
    [pair] = preference_rows([passed, failed])
    assert (pair["chosen_score"], pair["rejected_score"]) == (None, None)
    [pair] = preference_rows([scored, _episode("g", Status.FAIL, 0.25, None)])
    assert (pair["chosen_score"], pair["rejected_score"]) == (0.75, 0.25)
