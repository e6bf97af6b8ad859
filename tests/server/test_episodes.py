"""Whole episodes through the HTTP API and the typed client, on a real server and sandbox."""

from __future__ import annotations

import json
import threading

import httpx
import pytest
from websockets.sync.client import connect

from assay.client import EnvServerError
from assay.families import get_family
from assay.families.code.config import Case, cases_json
from assay.sandbox import PoolSandbox
from assay.server import SamplingSpec
from assay.tasks import Limits, Task, TaskSpec
from tests.server.conftest import (
    REFERENCE,
    SECRET,
    WRONG,
    Running,
    make_secret_task,
    running,
)

pytestmark = pytest.mark.sandbox


def test_a_right_solution_passes_with_reward_one(server: Running) -> None:
    with server.client() as client, client.session("median-1") as session:
        tools = [tool["function"]["name"] for tool in session.observation.tools]
        assert tools == ["write_file", "read_file", "run", "submit"]
        assert "median" in session.observation.messages[-1].content
        wrote = session.step("write_file", {"path": "solution.py", "content": REFERENCE.decode()})
        assert wrote.ok
        assert not wrote.done
        ran = session.step(
            "run", {"command": "python -c 'from solution import median; print(median([4, 1, 3]))'"}
        )
        assert ran.ok
        assert "3" in ran.output
        result = session.step("submit")
        assert result.done
        assert result.reward == 1.0
        assert result.verdict is not None
        assert result.verdict.status == "pass"
        assert session.state().done
        again = session.step("read_file", {"path": "solution.py"})
        assert again.done
        assert not again.ok
        assert again.reward == 1.0


def test_a_wrong_solution_fails_without_showing_expected_values(
    server: Running, pool: PoolSandbox
) -> None:
    wrong = "def tag(n):\n    return 'nope'\n"
    full = get_family("code").verify(make_secret_task(), {"solution.py": wrong.encode()}, pool)
    assert SECRET in " ".join(c.evidence for c in full.criteria)  # the evidence names them
    with httpx.Client(base_url=server.url) as http:
        created = http.post("/sessions", json={"task_id": "secret-1"})
        sid = created.json()["session_id"]
        call = {"tool": "write_file", "arguments": {"path": "solution.py", "content": wrong}}
        bodies = [created.text, http.post(f"/sessions/{sid}/step", json=call).text]
        submitted = http.post(f"/sessions/{sid}/step", json={"tool": "submit"})
        bodies += [submitted.text, http.get(f"/sessions/{sid}").text]
        bodies.append(http.post(f"/sessions/{sid}/submit").text)
    verdict = submitted.json()["verdict"]
    assert verdict["status"] == "fail"
    assert submitted.json()["reward"] == 0.0
    assert [c["passed"] for c in verdict["criteria"]] == [False, False, False]
    for body in bodies:
        assert SECRET not in body


def test_submit_judges_the_workspace_as_it_stands(server: Running) -> None:
    with server.client() as client, client.session("median-2") as session:
        session.step("write_file", {"path": "solution.py", "content": WRONG.decode()})
        result = session.submit()
        assert result.done
        assert result.verdict is not None
        assert result.verdict.status == "fail"
        assert 0.0 < (result.reward or 0) < 1.0


def test_reset_starts_over_with_the_task_files(server: Running) -> None:
    with server.client() as client, client.session("median-1") as session:
        session.step("write_file", {"path": "notes.txt", "content": "draft"})
        session.step("submit")
        observation = session.reset()
        assert observation.task_id == "median-1"
        assert not session.state().done
        gone = session.step("read_file", {"path": "notes.txt"})
        assert not gone.ok
        assert "no file" in gone.output
        other = session.reset("median-2")
        assert other.task_id == "median-2"


def test_two_sessions_never_see_each_others_files(server: Running) -> None:
    client = server.client()
    sessions = [client.session("median-1"), client.session("median-1")]
    outputs: dict[int, list[str]] = {}

    def work(index: int, word: str) -> None:
        session = sessions[index]
        session.step("write_file", {"path": "notes.txt", "content": word})
        session.step("write_file", {"path": f"only-{word}.txt", "content": word})
        ran = session.step("run", {"command": "cat notes.txt; ls"})
        read = session.step("read_file", {"path": "notes.txt"})
        outputs[index] = [ran.output, read.output]

    threads = [threading.Thread(target=work, args=(i, w)) for i, w in enumerate(["alpha", "beta"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert "alpha" in outputs[0][0]
    assert "beta" not in outputs[0][0]
    assert "beta" in outputs[1][0]
    assert "alpha" not in outputs[1][0]
    assert outputs[0][1] == "alpha"
    assert outputs[1][1] == "beta"
    foreign = sessions[1].step("read_file", {"path": "only-alpha.txt"})
    assert not foreign.ok
    assert "no file" in foreign.output
    for session in sessions:
        session.close()
    client.close()


def test_a_sampled_session_draws_a_matching_task(server: Running) -> None:
    with server.client() as client:
        spec = SamplingSpec(family="code", tags=("stats",))
        with client.session(sample=spec) as session:
            assert session.task_id == "median-2"
        with pytest.raises(EnvServerError) as refused:
            client.session(sample=SamplingSpec(family="sql"))
        assert refused.value.status == 404
        assert refused.value.code == "no_task"
        ids = {task.task_id for task in client.tasks()}
        assert ids == {"median-1", "median-2", "secret-1"}


def test_an_unknown_tool_or_bad_arguments_are_observations(server: Running) -> None:
    with server.client() as client, client.session("median-1") as session:
        unknown = session.step("rm_rf", {})
        assert not unknown.ok
        assert "unknown tool" in unknown.output
        bad = session.step("write_file", {"path": "../escape.py", "content": "x"})
        assert not bad.ok
        assert "leaves the workspace" in bad.output
        assert not session.state().done


def test_the_openapi_description_matches_the_routes(server: Running) -> None:
    description = httpx.get(f"{server.url}/openapi.json").json()
    assert description["openapi"].startswith("3.")
    paths = description["paths"]
    assert set(paths) == {
        "/health",
        "/tasks",
        "/sessions",
        "/sessions/{session_id}",
        "/sessions/{session_id}/reset",
        "/sessions/{session_id}/step",
        "/sessions/{session_id}/submit",
    }
    schemas = description["components"]["schemas"]
    refs = {
        ref.rsplit("/", 1)[1]
        for ref in _refs(description)
        if isinstance(ref, str) and ref.startswith("#/components/schemas/")
    }
    assert refs <= set(schemas)
    assert {"CreateSession", "ToolCallRequest", "StepResult", "AgentVerdict"} <= refs
    assert "evidence" not in json.dumps(schemas["AgentCriterion"])


def _refs(node: object) -> list[object]:
    if isinstance(node, dict):
        found = [node["$ref"]] if "$ref" in node else []
        return found + [ref for value in node.values() for ref in _refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in _refs(value)]
    return []


def test_many_concurrent_sessions_keep_to_themselves(server: Running) -> None:
    count = 12
    client = server.client()
    sessions = [client.session("median-1") for _ in range(count)]
    seen: dict[int, tuple[str, str]] = {}

    def work(index: int) -> None:
        session = sessions[index]
        session.step("write_file", {"path": f"mine-{index}.txt", "content": f"word-{index}"})
        listing = session.step("run", {"command": "ls; cat mine-*.txt"}).output
        seen[index] = (listing, session.step("read_file", {"path": f"mine-{index}.txt"}).output)

    threads = [threading.Thread(target=work, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seen) == list(range(count))
    for index, (listing, read) in seen.items():
        assert read == f"word-{index}"
        others = {f"mine-{other}.txt" for other in range(count) if other != index}
        assert f"mine-{index}.txt" in listing
        assert not any(name in listing for name in others), listing
    for session in sessions:
        session.close()
    assert client.health().sessions == 0
    client.close()


HIDDEN_ARGUMENT = "okapi-27182818"
"""A hidden case's argument: it enters the sandbox that judges, and no client may see it."""

PRYING = """\
import sys

frame = sys._getframe()
while frame is not None and "job" not in frame.f_locals:
    frame = frame.f_back
raise RuntimeError(repr(frame.f_locals["job"]["cases"]) if frame else "no job found")
"""
"""A solution that, as it is loaded for judging, finds the harness's job (the hidden cases'
arguments) and raises it as its error, which the family's summary quotes."""


def _hidden_argument_task() -> Task:
    cases = [Case(id=f"case-{n}", args=[f"{HIDDEN_ARGUMENT}-{n}"], expected=n) for n in range(2)]
    return Task(
        spec=TaskSpec(
            id="hidden-args-1",
            family="code",
            config={"function": "number"},
            limits=Limits(timeout_s=5, memory_mb=256),
        ),
        prompt="Write `number(tag)` in solution.py: the number a tag ends with.\n",
        hidden={"cases.json": cases_json(cases)},
        solutions={"reference": {"solution.py": b"def number(tag):\n    return int(tag[-1])\n"}},
    )


def test_text_a_solution_prints_while_judged_never_reaches_the_client(pool: PoolSandbox) -> None:
    task = _hidden_argument_task()
    full = get_family("code").verify(task, {"solution.py": PRYING.encode()}, pool)
    assert HIDDEN_ARGUMENT in full.summary  # the family's own summary quotes the solution
    with running([task], pool) as live, httpx.Client(base_url=live.url) as http:
        sid = http.post("/sessions", json={"task_id": task.id}).json()["session_id"]
        call = {"tool": "write_file", "arguments": {"path": "solution.py", "content": PRYING}}
        http.post(f"/sessions/{sid}/step", json=call)
        bodies = [http.post(f"/sessions/{sid}/step", json={"tool": "submit"}).text]
        bodies += [http.get(f"/sessions/{sid}").text, http.post(f"/sessions/{sid}/submit").text]
        with connect(live.ws_url) as ws:
            for message in (
                {"type": "reset", "data": {"task_id": task.id}},
                {"type": "step", "data": call},
                {"type": "step", "data": {"tool": "submit", "arguments": {}}},
                {"type": "state"},
            ):
                ws.send(json.dumps(message))
                bodies.append(str(ws.recv()))
    verdict = json.loads(bodies[0])["verdict"]
    assert verdict["status"] == "fail"
    assert verdict["summary"] == "0/2 checks met"
    assert json.loads(bodies[-2])["data"]["metadata"]["summary"] == "0/2 checks met"
    for body in bodies:
        assert HIDDEN_ARGUMENT not in body
