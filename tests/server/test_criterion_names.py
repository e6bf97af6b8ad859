"""A verdict tells the client which criteria were met, never what they check: the verifier's
own names for them are hidden data (a config check named "the web pods reach 8025" gives away
the ports probed, so that a policy opening those three alone, not the range asked for, passes)."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import httpx
import pytest

from assay.families import get_family
from assay.families.base import ToolFamily
from assay.families.code.config import Case, cases_json
from assay.sandbox import PoolSandbox
from assay.tasks import Limits, Task, TaskSpec
from assay.tasks.taskdir import load_task
from tests.server.conftest import running

pytestmark = pytest.mark.sandbox
FIXTURES = Path(__file__).parents[1] / "families"
CONFIG = FIXTURES / "config" / "fixtures"
WORKFLOW = FIXTURES / "workflow" / "fixtures"
HIDDEN_NAMES = ("probe-input-8025", "empty-list-gives-none", "tag-of-record-2")


def _named_cases_task() -> Task:
    cases = [Case(id=name, args=[n], expected=f"t{n}") for n, name in enumerate(HIDDEN_NAMES)]
    return Task(
        spec=TaskSpec(
            id="named-1",
            family="code",
            config={"function": "tag"},
            limits=Limits(timeout_s=5, memory_mb=256),
        ),
        prompt="Write `tag(n)` in solution.py: the tag of record n.\n",
        hidden={"cases.json": cases_json(cases)},
        solutions={"reference": {"solution.py": b"def tag(n):\n    return f't{n}'\n"}},
    )


def test_criteria_are_named_by_kind_and_place_not_by_the_verifiers_names(
    pool: PoolSandbox,
) -> None:
    config = load_task(CONFIG / "netpol-only-api-reaches-db")
    bad = config.solutions["bad-any-namespace"]
    [yaml_text] = bad.values()
    with (
        running([_named_cases_task(), config], pool) as live,
        httpx.Client(base_url=live.url) as http,
    ):
        code = _submit(http, "named-1", "write_file", {"path": "solution.py", "content": "x = 1\n"})
        netpol = _submit(http, config.id, "submit", {"yaml": yaml_text.decode()})
    names = [c["name"] for c in code.json()["verdict"]["criteria"]]
    assert names == ["case-01", "case-02", "case-03"]
    for name in HIDDEN_NAMES:
        assert name not in code.text
    hidden = config.hidden["expected.toml"].decode()
    for criterion in netpol.json()["verdict"]["criteria"]:
        assert criterion["name"] not in hidden
        assert criterion["name"].startswith(criterion["kind"] + "-")
    for line in hidden.splitlines():
        if line.startswith("name = "):
            assert line.removeprefix("name = ").strip('"') not in netpol.text


def _submit(
    http: httpx.Client, task_id: str, tool: str, arguments: dict[str, str]
) -> httpx.Response:
    sid = http.post("/sessions", json={"task_id": task_id}).json()["session_id"]
    if tool != "submit":
        http.post(f"/sessions/{sid}/step", json={"tool": tool, "arguments": arguments})
        arguments = {}
    answer = http.post(f"/sessions/{sid}/step", json={"tool": "submit", "arguments": arguments})
    assert answer.json()["done"], answer.text
    return answer


def test_a_summary_names_none_of_the_criteria(pool: PoolSandbox) -> None:
    task = load_task(WORKFLOW / "invoice-router")
    bad = task.solutions["bad-wrong-routing"]
    full = get_family("workflow").verify(task, bad, pool)
    failed = [criterion.name for criterion in full.criteria if not criterion.passed]
    assert any(name in full.summary for name in failed)  # the family's summary names them
    family = cast(ToolFamily, get_family("workflow"))
    with running([task], pool) as live, live.client() as client, client.session(task.id) as run:
        for name, call in family.tools(task).script(bad):
            result = run.step(name, call)
    assert result.verdict is not None
    assert result.verdict.status == "fail"
    for name in failed:
        assert name not in result.model_dump_json()
