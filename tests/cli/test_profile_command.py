"""``assay profile`` end to end against a real OpenAI-compatible server on loopback (both modes)
and with the scripted ``mix`` policy; ``assay audit --profile``; bad input to both."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from assay.policies import MixedPolicy
from assay.store import Store
from assay.tasks import TaskSet, save_task
from tests.conftest import BAD_NO_SORT, REFERENCE, make_median_task
from tests.policies.server import Action, ModelServer, Reply, Status, call, serve

Run = Callable[..., Result]
K = 4
PROFILE_KEYS = {"run", "k", "tasks", "histogram", "triage"}
TASK_KEYS = {"task_id", "samples", "passed", "errors", "pass_rate", "pass_at_1", "pass_at_k"}


@pytest.fixture
def tasks_dir(tmp_path: Path) -> Path:
    """Three median tasks told apart by a ticket number in their prompts."""
    root = tmp_path / "tasks"
    for ticket in range(3):
        task = make_median_task(f"median-{ticket}")
        save_task(task.model_copy(update={"prompt": f"{task.prompt}Ticket T{ticket}.\n"}), root)
    return root


class Graded(ModelServer):
    """A model that always solves ticket T0, never T1, and T2 on every other first request;
    in tools mode it writes and submits at once, then says it is done. Ticket T2 can also be
    made to fail on the first ``t2_errors`` of its first requests, with a 404 (which the client
    does not retry: the episode ends in error at once)."""

    t2_errors = 0
    _firsts: Counter[str]

    def next_action(self, body: dict[str, Any]) -> Action:
        with self._lock:
            self.requests.append(body)
            messages = body["messages"]
            ticket = re.search(r"Ticket (T\d)", messages[1]["content"])
            assert ticket is not None
            if len(messages) > 2:  # after the tool results in tools mode
                return Reply(content="Done.")
            firsts = self.__dict__.setdefault("_firsts", Counter())
            firsts[ticket.group(1)] += 1
            seen = firsts[ticket.group(1)]
        if ticket.group(1) == "T2" and seen <= self.t2_errors:
            return Status(404, "no such route")
        good = {"T0": True, "T1": False, "T2": seen % 2 == 0}[ticket.group(1)]
        source = (REFERENCE if good else BAD_NO_SORT).decode()
        if not body.get("tools"):
            return Reply(content=f"```python\n{source}```")
        return Reply(
            tool_calls=(
                call("write_file", path="solution.py", content=source),
                call("submit"),
            )
        )


@pytest.fixture
def graded() -> Iterator[Graded]:
    yield from serve(Graded)


def model_args(server: ModelServer, run: str) -> list[str]:
    return ["--policy", "openai:test-model", "--base-url", server.base_url, "--run", run]


def by_task(profile: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {task["task_id"]: task for task in profile["tasks"]}


@pytest.mark.parametrize("mode", ["single", "tools"])
def test_a_model_profile_over_http_reports_rates_histogram_and_triage(
    run_cli: Run, tasks_dir: Path, graded: Graded, tmp_path: Path, mode: str
) -> None:
    graded.models = ["test-model"]
    out = tmp_path / "profile.json"
    args = [*model_args(graded, "p"), "--k", str(K), "--mode", mode, "--json", str(out)]
    ran = run_cli("profile", str(tasks_dir), *args)
    assert ran.exit_code == 0, ran.output
    profile = json.loads(out.read_text())
    assert set(profile) == PROFILE_KEYS
    assert (profile["run"], profile["k"]) == ("p", K)
    tasks = by_task(profile)
    assert all(set(task) == TASK_KEYS for task in tasks.values())
    assert tasks["median-0"] | {"task_id": ""} == {
        "task_id": "",
        "samples": K,
        "passed": K,
        "errors": 0,
        "pass_rate": 1.0,
        "pass_at_1": 1.0,
        "pass_at_k": 1.0,
    }
    assert (tasks["median-1"]["passed"], tasks["median-1"]["pass_at_k"]) == (0, 0.0)
    half = tasks["median-2"]
    assert (half["passed"], half["pass_rate"], half["pass_at_1"]) == (2, 0.5, 0.5)
    assert half["pass_at_k"] == 1.0  # 2 failures < k: every draw of 4 of 4 holds a pass
    histogram = profile["histogram"]
    assert len(histogram) == 12
    assert [(b["low"], b["high"]) for b in (histogram[0], histogram[-1])] == [(0, 0), (1, 1)]
    assert [b["tasks"] for b in histogram] == [1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    assert profile["triage"] == {"review": ["median-1"], "too_easy": ["median-0"]}
    assert "pass-rate profile of run p (k=4)" in ran.stdout
    assert re.search(r"^\s+50-60%\s+1\s+#+$", ran.stdout, re.MULTILINE)
    assert "review (0%, broken or frontier-hard): 1 tasks\n  median-1" in ran.stdout
    assert "too easy (100%): 1 tasks\n  median-0" in ran.stdout
    assert f"profile: {out}" in ran.output


def test_errors_are_left_out_of_the_rates_and_the_profile_still_comes_with_exit_3(
    run_cli: Run, tasks_dir: Path, graded: Graded
) -> None:
    graded.models = ["test-model"]
    graded.t2_errors = 2
    args = [*model_args(graded, "e"), "--k", str(K), "--mode", "single", "--attempts", "1"]
    ran = run_cli("profile", str(tasks_dir), *args, "--json", "-")
    assert ran.exit_code == 3, ran.output
    assert "2 episodes ended in error (infrastructure, not scored)" in ran.stderr
    profile = json.loads(ran.stdout)
    errored = by_task(profile)["median-2"]
    # the 3rd and 4th first requests of T2 are served: the 3rd fails, the 4th passes
    assert (errored["samples"], errored["errors"], errored["passed"]) == (K, 2, 1)
    assert errored["pass_rate"] == 0.5
    assert errored["pass_at_k"] is None  # 2 scored samples cannot estimate pass@4
    assert sum(bucket["tasks"] for bucket in profile["histogram"]) == 3

    graded.t2_errors = 0
    resumed = run_cli("profile", str(tasks_dir), *args, "--json", "-")
    assert resumed.exit_code == 0, resumed.output
    assert "2 that ended in error or without a score queued again" in resumed.stderr
    errored = by_task(json.loads(resumed.stdout))["median-2"]
    assert (errored["samples"], errored["errors"]) == (K, 0)


def test_profiling_a_finished_run_again_runs_nothing_and_reports_the_same(
    run_cli: Run, tasks_dir: Path, graded: Graded
) -> None:
    graded.models = ["test-model"]
    args = [*model_args(graded, "again"), "--k", "2", "--mode", "single", "--json", "-"]
    first = run_cli("profile", str(tasks_dir), *args)
    asked = len(graded.requests)
    second = run_cli("profile", str(tasks_dir), *args)
    assert second.exit_code == 0, second.output
    assert len(graded.requests) == asked  # no episode ran again
    assert json.loads(second.stdout) == json.loads(first.stdout)
    assert "resuming run again: 6 of 6 episodes kept" in second.stderr


def test_the_mix_policy_profiles_tasks_by_their_drawn_skill(run_cli: Run, tmp_path: Path) -> None:
    root = tmp_path / "many"
    for index in range(12):
        save_task(make_median_task(f"median-{index}"), root)
    ran = run_cli("profile", str(root), "--policy", "mix:7", "--k", "6", "--json", "-")
    assert ran.exit_code == 0, ran.output
    profile = json.loads(ran.stdout)
    policy = MixedPolicy(7)
    tasks = TaskSet.load(root).tasks
    for task in tasks:
        expected = sum(policy.choice(task, sample) == "reference" for sample in range(6))
        assert by_task(profile)[task.id]["passed"] == expected
        if policy.skill(task.id) in (0.0, 1.0):
            assert expected in (0, 6)
    review = {t.id for t in tasks if policy.skill(t.id) == 0.0}
    assert review <= set(profile["triage"]["review"])
    assert len({task["pass_rate"] for task in profile["tasks"]}) >= 3


def test_audit_with_a_profile_quarantines_tasks_no_sample_solved(
    run_cli: Run, tasks_dir: Path, graded: Graded, tmp_path: Path
) -> None:
    graded.models = ["test-model"]
    profiled = run_cli("profile", str(tasks_dir), *model_args(graded, "q"), "--k", "2")
    assert profiled.exit_code == 0, profiled.output
    report_path = tmp_path / "audit.json"
    audited = run_cli("audit", str(tasks_dir), "--profile", "q", "--json", str(report_path))
    assert audited.exit_code == 0, audited.output  # quarantined, listed, none rejected
    assert "2 accepted, 0 rejected, 1 quarantined for review" in audited.stdout
    assert "  median-1: profile: no sample passed (run q, k=2)" in audited.stdout
    report = json.loads(report_path.read_text())
    decisions = {task["task_id"]: task["decision"] for task in report["tasks"]}
    assert decisions == {
        "median-0": "accepted",
        "median-1": "quarantined",
        "median-2": "accepted",
    }
    findings = {
        task["task_id"]: [f for f in task["findings"] if f["check"] == "profile"]
        for task in report["tasks"]
    }
    assert "no sample passed (run q, k=2)" in findings["median-1"][0]["message"]
    assert "every sample passed" in findings["median-0"][0]["message"]
    assert findings["median-2"] == []
    assert "profile" in report["checks"]
    with Store(tmp_path / "store.db") as store:
        [kept] = [run for run in store.audit_runs() if run.run_id == report["run_id"]]
    assert kept.accepted == 2


def test_a_profile_of_another_version_of_a_task_quarantines_nothing(
    run_cli: Run, tasks_dir: Path, graded: Graded
) -> None:
    graded.models = ["test-model"]
    run_cli("profile", str(tasks_dir), *model_args(graded, "old"), "--k", "2")
    prompt = tasks_dir / "median-1" / "prompt.md"
    prompt.write_text(prompt.read_text() + "Sort first.\n")
    audited = run_cli("audit", str(tasks_dir), "--profile", "old", "--json", "-")
    assert audited.exit_code == 0, audited.output
    [median_1] = [t for t in json.loads(audited.stdout)["tasks"] if t["task_id"] == "median-1"]
    assert median_1["decision"] == "accepted"
    assert "another version of this task" in median_1["findings"][-1]["message"]


def one_line_error(result: Result) -> str:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if not line.startswith("run ")]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


def test_bad_input_to_audit_profile_is_one_line_and_exit_2(run_cli: Run, tasks_dir: Path) -> None:
    line = one_line_error(run_cli("audit", str(tasks_dir), "--profile", "nothing"))
    assert "profile: no rollout run 'nothing'" in line
    assert "`assay runs` lists them" in line
    run_cli("audit", str(tasks_dir), "--json", "-")
    [audit_run] = json.loads(run_cli("runs", "--json").stdout)
    line = one_line_error(run_cli("audit", str(tasks_dir), "--profile", audit_run["name"]))
    assert f"profile: an audit run, not a rollout: {audit_run['name']!r}" in line


def test_bad_input_to_profile_is_one_line_and_exit_2_before_any_episode(
    run_cli: Run, tasks_dir: Path, tmp_path: Path
) -> None:
    unwritable = tmp_path / "no-such-dir" / "profile.json"
    line = one_line_error(
        run_cli("profile", str(tasks_dir), "--policy", "reference", "--json", str(unwritable))
    )
    assert str(unwritable.parent) in line
    line = one_line_error(run_cli("profile", str(tasks_dir), "--policy", "mix:seven"))
    assert "policy: 'mix:seven' needs a seed, a whole number" in line
    assert not (tmp_path / "store.db").exists() or Store(tmp_path / "store.db").runs() == []
