"""openai:MODEL episodes against a real OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.episodes import Budget, EndReason, read_jsonl, write_jsonl
from assay.policies import Price, PriceTable
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from assay.verdicts import Status
from tests.conftest import BAD_NO_SORT, REFERENCE
from tests.episodes.conftest import drive, model_policy
from tests.policies.server import VLLM_NO_TOOLS, ModelServer, Reply, call
from tests.policies.server import Status as HTTPStatus

WRITE = Reply(tool_calls=(call("write_file", path="solution.py", content=REFERENCE.decode()),))
RUN = Reply(
    tool_calls=(
        call("run", command="python -c 'from solution import median; print(median([3, 1, 2]))'"),
    )
)
SUBMIT = Reply(content="done", tool_calls=(call("submit"),))


def test_a_model_writes_runs_submits_and_passes(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox
) -> None:
    model_server.play(WRITE, RUN, SUBMIT)
    prices = PriceTable(prices={"served-model-v1": Price(input_per_mtok=1.0, output_per_mtok=4.0)})
    trajectory = drive(median_task, model_policy(model_server), pool, prices=prices)
    assert trajectory.verdict.status is Status.PASS
    assert trajectory.end is EndReason.SUBMITTED
    assert [step.tools[0].call.name for step in trajectory.steps] == ["write_file", "run", "submit"]
    ran = trajectory.steps[1].tools[0].result
    assert ran.ok
    assert ran.output == "exit code 0\n2\n"
    assert ran.sandbox_cpu_s > 0
    assert (trajectory.cost.input_tokens, trajectory.cost.output_tokens) == (300, 60)
    assert trajectory.cost.usd == pytest.approx((300 * 1.0 + 60 * 4.0) / 1e6)
    assert trajectory.policy.served_model == "served-model-v1"
    assert trajectory.policy.model == "test-model"
    # the model saw each tool's result, answering its call by id
    last = model_server.requests[-1]["messages"]
    assert [m["role"] for m in last] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert last[-1] == {"role": "tool", "content": "exit code 0\n2\n", "tool_call_id": "call_0"}
    assert model_server.requests[0]["tools"][0]["function"]["name"] == "write_file"


def test_500s_then_success_are_retried(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox
) -> None:
    model_server.play(HTTPStatus(500), HTTPStatus(502), WRITE, SUBMIT)
    trajectory = drive(median_task, model_policy(model_server), pool)
    assert trajectory.verdict.status is Status.PASS
    assert trajectory.steps[0].retries == 2


def test_persistent_500_is_an_error_never_a_score(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox
) -> None:
    model_server.play(WRITE, HTTPStatus(500, "engine down"))
    trajectory = drive(median_task, model_policy(model_server, retries=2), pool)
    assert trajectory.verdict.status is Status.ERROR
    assert trajectory.verdict.score == 0.0
    assert trajectory.end is EndReason.INFRASTRUCTURE
    assert "answered 500: engine down after 3 attempts" in trajectory.end_detail
    assert len(trajectory.steps) == 1  # the first turn is kept


def test_malformed_tool_call_json_is_an_observation(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox
) -> None:
    broken = Reply(tool_calls=(("write_file", '{"path": "solution.py", "content": '),))
    model_server.play(broken, WRITE, SUBMIT)
    trajectory = drive(median_task, model_policy(model_server), pool)
    assert trajectory.verdict.status is Status.PASS
    assert trajectory.failed_tool_calls == 1
    first = trajectory.steps[0].tools[0].result
    assert not first.ok
    assert first.output.startswith("the arguments are not valid JSON")
    assert model_server.requests[1]["messages"][-1]["content"] == first.output


def test_arguments_escaping_a_lone_surrogate_are_an_observation(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox
) -> None:
    """Pure-ASCII JSON can decode to text no file can hold (``\\ud800``): the call is refused
    as an observation, never a crash of the run."""
    hostile = ("write_file", '{"path": "solution.py", "content": "x = 1  # \\ud800"}')
    keyed = ("run", '{"\\udfff": 1, "command": "true"}')
    model_server.play(Reply(tool_calls=(hostile, keyed)), WRITE, SUBMIT)
    trajectory = drive(median_task, model_policy(model_server), pool)
    outputs = [tool.result.output for tool in trajectory.steps[0].tools]
    assert (
        outputs
        == ["the arguments hold a lone surrogate (an unpaired \\ud800-\\udfff), not text"] * 2
    )
    assert trajectory.verdict.status is Status.PASS


def test_failing_calls_are_counted_and_the_episode_goes_on(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox
) -> None:
    model_server.play(
        Reply(tool_calls=(("delete_everything", "{}"), ("run", "[1, 2]"))),
        Reply(tool_calls=(call("run", command="python -c 'raise SystemExit(3)'"),)),
        Reply(tool_calls=(call("run", command="python -c 'import os; os.kill(os.getpid(), 9)'"),)),
        WRITE,
        SUBMIT,
    )
    trajectory = drive(median_task, model_policy(model_server), pool)
    outputs = [tool.result.output for step in trajectory.steps for tool in step.tools]
    assert outputs[0].startswith("unknown tool 'delete_everything'; the tools are write_file")
    assert outputs[1] == "the arguments must be one JSON object"
    assert outputs[2] == "exit code 3"
    assert outputs[3].startswith("exit code 137")  # the shell reports the SIGKILL
    assert trajectory.failed_tool_calls == 4
    assert trajectory.verdict.status is Status.PASS


@pytest.mark.parametrize(
    ("budget", "script", "detail"),
    [
        (Budget(max_turns=3), [Reply(tool_calls=(call("read_file", path="x.py"),))], "turn budget"),
        (
            Budget(max_tokens=250),
            [Reply(tool_calls=(call("read_file", path="x.py"),))],
            "token budget spent (360 of 250 tokens)",
        ),
        (
            Budget(max_sandbox_cpu_s=0.3),
            [Reply(tool_calls=(call("run", command="python -c 'while True: pass'"),))],
            "sandbox CPU budget",
        ),
        (
            Budget(max_wall_s=0.5),
            [Reply(delay_s=0.3, tool_calls=(call("read_file", path="x.py"),))],
            "wall-time budget",
        ),
    ],
)
def test_a_spent_budget_ends_the_episode_as_fail(
    model_server: ModelServer,
    *,
    median_task: Task,
    pool: PoolSandbox,
    budget: Budget,
    script: list[Reply],
    detail: str,
) -> None:
    model_server.play(WRITE, *script)  # the reference is written: the budget still fails it
    trajectory = drive(median_task, model_policy(model_server), pool, budget=budget)
    assert trajectory.verdict.status is Status.FAIL
    assert trajectory.end is EndReason.BUDGET
    assert detail in trajectory.end_detail
    assert trajectory.verdict.summary == trajectory.end_detail


def test_one_turn_cannot_spend_past_the_cpu_budget_and_still_submit(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox
) -> None:
    """A model may send many calls in one turn: the budget is checked between them, so burning
    CPU and then submitting the reference in the same turn ends as a budget fail."""
    burn = call("run", command="python -c 'while True: pass'")
    write = call("write_file", path="solution.py", content=REFERENCE.decode())
    model_server.play(Reply(tool_calls=(burn, burn, burn, write, call("submit"))))
    budget = Budget(max_sandbox_cpu_s=0.3)
    trajectory = drive(median_task, model_policy(model_server), pool, budget=budget)
    assert trajectory.verdict.status is Status.FAIL
    assert trajectory.end is EndReason.BUDGET
    assert "sandbox CPU budget spent" in trajectory.end_detail
    assert [tool.call.name for tool in trajectory.steps[0].tools] == ["run"]


def test_the_models_own_failure_ends_as_fail(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox
) -> None:
    model_server.play(WRITE, HTTPStatus(400, "maximum context length exceeded"))
    trajectory = drive(median_task, model_policy(model_server), pool)
    assert trajectory.verdict.status is Status.FAIL
    assert trajectory.end is EndReason.POLICY_FAILED
    assert trajectory.end_detail == (
        "the endpoint refused the conversation (400): maximum context length exceeded"
    )


def test_stopping_without_submit_judges_the_workspace(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox
) -> None:
    model_server.play(WRITE, Reply(content="I think that is it."))
    trajectory = drive(median_task, model_policy(model_server), pool)
    assert trajectory.end is EndReason.STOPPED
    assert trajectory.verdict.status is Status.PASS


def test_a_fenced_answer_counts_when_nothing_was_submitted(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox
) -> None:
    bad = Reply(tool_calls=(call("write_file", path="solution.py", content=BAD_NO_SORT.decode()),))
    answer = f"Final:\n```python\n{REFERENCE.decode()}\n```\n"
    model_server.play(bad, Reply(content=answer))
    trajectory = drive(median_task, model_policy(model_server), pool)
    assert trajectory.end is EndReason.ANSWERED
    assert trajectory.verdict.status is Status.PASS
    assert trajectory.submission["solution.py"].strip() == REFERENCE.decode().strip()


@pytest.mark.parametrize(
    ("order", "status"), [("bad-last", Status.FAIL), ("ref-last", Status.PASS)]
)
def test_single_turn_judges_the_last_python_block(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox, order: str, status: Status
) -> None:
    blocks = [REFERENCE.decode(), BAD_NO_SORT.decode()]
    if order == "ref-last":
        blocks.reverse()
    answer = "\n".join(f"Try:\n```python\n{code}```\n```text\nnot code\n```" for code in blocks)
    model_server.play(Reply(content=answer))
    trajectory = drive(median_task, model_policy(model_server), pool, mode="single")
    assert trajectory.end is EndReason.ANSWERED
    assert trajectory.verdict.status is status
    assert "tools" not in model_server.requests[0]
    assert len(model_server.requests) == 1


def test_single_turn_without_a_block_fails(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox
) -> None:
    model_server.play(Reply(content="def median(v): return 1"))
    trajectory = drive(median_task, model_policy(model_server), pool, mode="single")
    assert trajectory.verdict.status is Status.FAIL
    assert trajectory.verdict.summary == "the answer holds no ```python block"
    assert json.loads(trajectory.model_dump_json())["end"] == "answered"


def test_a_trajectory_whose_messages_hold_unicode_line_separators_reads_back(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox, tmp_path: Path
) -> None:
    """JSON Lines end at \\n only: U+2028 in a model's message is text, not a row's end."""
    said = "first\u2028second\u2029third\x85"
    model_server.play(WRITE, Reply(content=said, tool_calls=(call("submit"),)))
    trajectory = drive(median_task, model_policy(model_server), pool)
    path = tmp_path / "t.jsonl"
    write_jsonl([trajectory], path)
    [back] = read_jsonl(path)
    assert back.steps[-1].message.content == said
    assert back == trajectory


def test_a_server_refusing_tool_calls_is_an_error_never_the_models_fail(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox
) -> None:
    model_server.tools_refused = VLLM_NO_TOOLS
    trajectory = drive(median_task, model_policy(model_server), pool)
    assert trajectory.verdict.status is Status.ERROR
    assert trajectory.end is EndReason.INFRASTRUCTURE
    assert "does not take tool calls" in trajectory.end_detail
    assert len(model_server.requests) == 1


@pytest.mark.parametrize("arguments", ['{"path": "solution.py", "content": ', "[1, 2]", "7"])
def test_a_malformed_call_stays_an_observation_on_a_server_that_renders_the_arguments(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox, arguments: str
) -> None:
    """A server that parses the conversation's tool calls to render them refuses a request
    holding one that is no JSON object: such a call is sent back as ``{}``, so that the model
    reads why it was refused rather than its episode ending as a fail at the next turn."""
    model_server.parses_arguments = True
    model_server.play(Reply(tool_calls=(("write_file", arguments),)), WRITE, SUBMIT)
    trajectory = drive(median_task, model_policy(model_server), pool)
    assert trajectory.verdict.status is Status.PASS
    assert trajectory.failed_tool_calls == 1
    assert trajectory.steps[0].message.tool_calls[0].arguments == arguments  # kept as sent
    sent = model_server.requests[1]["messages"][2]["tool_calls"][0]["function"]["arguments"]
    assert sent == "{}"


def test_calls_past_the_most_a_turn_takes_are_recorded_and_the_model_told(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox
) -> None:
    """70 calls in one answer: the first 64 run; the 6 others are not lost without a word."""
    model_server.play(Reply(tool_calls=WRITE.tool_calls * 70), SUBMIT)
    trajectory = drive(median_task, model_policy(model_server), pool)
    first = trajectory.steps[0]
    assert (len(first.message.tool_calls), len(first.tools)) == (64, 64)
    assert first.dropped_tool_calls == 6
    assert trajectory.failed_tool_calls == 6
    note = "[6 more tool calls were not run: a turn takes at most its first 64 calls"
    assert note in first.tools[-1].result.output
    assert note not in first.tools[-2].result.output
    told = model_server.requests[1]["messages"][-1]
    assert told["role"] == "tool"
    assert note in told["content"]
    assert trajectory.verdict.status is Status.PASS
    assert trajectory.steps[1].dropped_tool_calls == 0
