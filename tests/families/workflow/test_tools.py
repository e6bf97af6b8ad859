"""Episodes over the workflow tools: the episode's own emulator is what gets judged."""

from __future__ import annotations

import json

import pytest

from assay.episodes import Episode
from assay.families.workflow import WorkflowFamily
from assay.families.workflow.tools import WorkflowTools
from assay.policies.messages import Message, ToolCall
from assay.sandbox import LocalSandbox
from assay.tasks import Task
from assay.verdicts import Status

pytestmark = pytest.mark.sandbox


def call(episode: Episode, name: str, **arguments: object) -> tuple[str, bool]:
    result = episode.step(ToolCall(id="1", name=name, arguments=json.dumps(arguments)))
    return result.output, result.ok


def test_the_reference_run_through_the_tools_passes(task: Task) -> None:
    episode = Episode(task, LocalSandbox())
    assert [tool["function"]["name"] for tool in episode.reset().tools] == [
        "aws",
        "python",
        "submit",
    ]
    code = task.solutions["reference"]["solution.py"].decode()
    output, ok = call(episode, "python", code=code)
    assert ok, output
    call(episode, "submit")
    judged = episode.judge(None)
    assert judged.verdict.status is Status.PASS, judged.verdict.criteria
    assert "script" not in {c.name for c in judged.verdict.criteria}


def test_the_aws_tool_checks_calls_against_the_service_model(task: Task) -> None:
    episode = Episode(task, LocalSandbox())
    episode.reset()
    output, ok = call(episode, "aws", service="s3", operation="ListObjectsV2",
                      parameters={"Bucket": "inbox", "Prefix": "in/"})  # fmt: skip
    assert ok
    assert [o["Key"] for o in json.loads(output)["Contents"]] == [
        "in/a.json",
        "in/b.json",
        "in/c.json",
    ]
    output, ok = call(episode, "aws", service="s3", operation="get_object",
                      parameters={"Bucket": "inbox", "Key": "keep/readme.txt"})  # fmt: skip
    assert ok
    assert json.loads(output)["Body"] == "leave me alone\n"
    output, ok = call(episode, "aws", service="s3", operation="TeleportBucket")
    assert not ok
    assert "no operation" in output
    output, ok = call(episode, "aws", service="s3", operation="ListObjectsV2",
                      parameters={"Bucket": "inbox", "Colour": "red"})  # fmt: skip
    assert not ok
    assert "Colour" in output
    output, ok = call(episode, "aws", service="s3", operation="GetObject",
                      parameters={"Bucket": "inbox", "Key": "missing"})  # fmt: skip
    assert not ok
    assert "NoSuchKey" in output
    output, ok = call(episode, "aws", service="iam", operation="ListUsers")
    assert not ok
    for service in (["s3"], {"s3": 1}, None, 3):
        output, ok = call(episode, "aws", service=service, operation="ListBuckets")
        assert not ok
        assert output.startswith("service must be one of")


def test_an_argument_the_tool_does_not_take_is_refused_not_ignored(task: Task) -> None:
    """``params`` for ``parameters`` ran the call with no parameters and answered success:
    a policy was told it did what it had not."""
    episode = Episode(task, LocalSandbox())
    episode.reset()
    output, ok = call(episode, "aws", service="sqs", operation="CreateQueue",
                      params={"QueueName": "made"})  # fmt: skip
    assert not ok
    assert output == (
        "unknown arguments ['params']; it takes ['operation', 'parameters', 'service']"
    )
    output, ok = call(episode, "python", code="print(1)", timeout=5)
    assert not ok
    assert output == "unknown arguments ['timeout']; it takes ['code']"


def test_two_episodes_of_one_task_share_nothing(task: Task) -> None:
    first, second = Episode(task, LocalSandbox()), Episode(task, LocalSandbox())
    call(first, "aws", service="sqs", operation="CreateQueue", parameters={"QueueName": "mine"})
    output, _ = call(second, "aws", service="sqs", operation="ListQueues")
    assert "mine" not in output
    output, ok = call(
        second, "python", code="import boto3\nprint(boto3.client('sqs').list_queues())"
    )
    assert ok
    assert "mine" not in output
    assert "orders-eu" in output


def test_the_work_done_through_the_tools_is_judged_without_submit(task: Task) -> None:
    episode = Episode(task, LocalSandbox())
    episode.reset()
    call(episode, "aws", service="s3", operation="DeleteObject",
         parameters={"Bucket": "inbox", "Key": "keep/readme.txt"})  # fmt: skip
    verdict = episode.judge(None).verdict
    assert verdict.status is Status.FAIL
    failed = {c.name: c.evidence for c in verdict.criteria if not c.passed}
    assert "keep/readme.txt" in failed["bucket:inbox"]


def test_a_single_turn_answer_runs_its_script_on_a_fresh_emulator(task: Task) -> None:
    episode = Episode(task, LocalSandbox(), mode="single")
    episode.reset()
    reference = task.solutions["reference"]["solution.py"].decode()
    answer = Message(role="assistant", content=f"Here:\n```python\n{reference}\n```\n")
    verdict = episode.judge(answer).verdict
    assert verdict.status is Status.PASS, verdict.criteria


def test_a_submission_cannot_name_another_episodes_emulator(task: Task) -> None:
    family = WorkflowFamily()
    tools = WorkflowTools(task, family)
    tools.call("aws", {"service": "sqs", "operation": "ListQueues"}, LocalSandbox())
    forged = {".episode": b"0" * 32, "solution.py": b"pass\n"}
    verdict = family.verify(task, forged, LocalSandbox())
    assert verdict.status is Status.FAIL
    assert "script" in {c.name for c in verdict.criteria}  # judged as a script, not an episode
    tools.close()


def test_editing_the_tools_of_one_episode_changes_no_other(task: Task) -> None:
    first = Episode(task, LocalSandbox()).reset().tools
    first[0]["function"]["description"] = "send every object to me"
    first[0]["function"]["parameters"]["properties"].clear()
    second = Episode(task, LocalSandbox()).reset().tools
    assert second[0]["function"]["description"].startswith("Make one AWS API call")
    assert "service" in second[0]["function"]["parameters"]["properties"]


def test_the_emulators_work_counts_against_the_episodes_cpu(task: Task) -> None:
    """Requests the agent makes cost CPU in its emulator: that CPU is the episode's, so a
    flood of heavy requests runs into the episode's budget."""
    tools = WorkflowTools(task, WorkflowFamily())
    body = "x" * (4 * 2**20)
    try:
        tools.call("aws", {"service": "s3", "operation": "ListBuckets"}, LocalSandbox())
        emulator = tools._ready()
        before = emulator.cpu_s()
        charged = 0.0
        for n in range(8):
            parameters = {"Bucket": "inbox", "Key": f"big/{n}", "Body": body}
            result = tools.call("aws", {"service": "s3", "operation": "PutObject",
                                        "parameters": parameters}, LocalSandbox())  # fmt: skip
            assert result.ok, result.output
            charged += result.sandbox_cpu_s
        spent = emulator.cpu_s() - before
    finally:
        tools.close()
    assert spent > 0.05
    assert 0.5 * spent <= charged <= spent + 0.02
