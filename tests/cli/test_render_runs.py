"""``assay show``'s text of one episode."""

from __future__ import annotations

from rich.console import Console

from assay._render_runs import episode_text
from assay.episodes import Budget, Cost, EndReason, Step, ToolStep, Trajectory
from assay.families.base import ToolResult
from assay.policies import Message, PolicyIdentity, ToolCall
from assay.store import StoredEpisode
from assay.verdicts import Status, Timings, Verdict, Versions


def shown(text: object) -> str:
    console = Console(width=400, record=True, color_system=None, soft_wrap=True)
    console.print(text)
    return console.export_text()


def episode(*steps: Step) -> StoredEpisode:
    verdict = Verdict(
        task_id="t",
        status=Status.FAIL,
        score=0.0,
        timings=Timings(wall_s=0.1),
        versions=Versions(task="v", family="code@1", assay="0"),
    )
    trajectory = Trajectory(
        episode_id="e",
        task_id="t",
        task_version="v",
        family="code@1",
        mode="tools",
        policy=PolicyIdentity(spec="openai:m", kind="openai", model="m"),
        prompt=(),
        budget=Budget(),
        steps=steps,
        end=EndReason.STOPPED,
        verdict=verdict,
        cost=Cost(),
    )
    return StoredEpisode(run_name="r", sample=0, trajectory=trajectory)


def turn(index: int, dropped: int) -> Step:
    call = ToolCall(id=f"c{index}", name="read_file", arguments='{"path": "a.py"}')
    message = Message(role="assistant", tool_calls=(call,))
    tool = ToolStep(call=call, result=ToolResult(output="x = 1\n" * 2000, ok=True))
    return Step(index=index, message=message, tools=(tool,), dropped_tool_calls=dropped)


def test_a_turn_that_dropped_tool_calls_says_how_many_under_its_calls() -> None:
    text = shown(episode_text(episode(turn(0, 0), turn(1, 1), turn(2, 936))))
    second, third = text.split("[assistant, turn 2]")[1].split("[assistant, turn 3]")
    assert "dropped" not in text.split("[assistant, turn 2]")[0]
    assert "→ 1 more tool call dropped, never run" in second
    assert "→ 936 more tool calls dropped, never run" in third
    assert third.index("read_file") < third.index("936 more")
