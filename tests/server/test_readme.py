"""The README's server examples run as written, against a real server."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from assay.sandbox import PoolSandbox
from assay.tasks import save_task
from tests.conftest import make_median_task
from tests.server.conftest import running

pytestmark = pytest.mark.sandbox
README = Path(__file__).parents[2] / "README.md"
URL = "http://127.0.0.1:8400"
TASK = "code-parse-duration-8bbedbf0"


def _examples() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("## The environment server (`assay serve`)", 1)[1].split("\n## ", 1)[0]
    return [block.split("```", 1)[0] for block in section.split("```python\n")[1:]]


def test_the_server_examples_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pool: PoolSandbox
) -> None:
    task = make_median_task(TASK)
    save_task(task, tmp_path / "tasks")
    monkeypatch.chdir(tmp_path)
    client_example, openenv_example = _examples()
    assert URL in client_example
    assert URL in openenv_example
    printed = io.StringIO()
    with running([task], pool) as live, contextlib.redirect_stdout(printed):
        scope: dict[str, object] = {}
        for example in (client_example, openenv_example):
            code = compile(example.replace(URL, live.url), "README.md", "exec")
            exec(code, scope)  # noqa: S102 - the README's own code
    lines = printed.getvalue().splitlines()
    assert lines[-3:] == ["pass 1.0", "404 no_task", "True 1.0 pass"]
