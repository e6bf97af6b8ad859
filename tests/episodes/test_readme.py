"""The README's episode example runs as written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.tasks import save_task
from tests.conftest import make_median_task

README = Path(__file__).parents[2] / "README.md"


def _example() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Agents in the loop (episodes and policies)", 1)[1].split("\n## ", 1)[0]
    return section.split("```python\n", 1)[1].split("```\n", 1)[0]


def test_the_episode_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save_task(make_median_task("code-parse-duration-8bbedbf0"), tmp_path / "tasks")
    monkeypatch.chdir(tmp_path)
    exec(compile(_example(), "README.md", "exec"), {})  # noqa: S102 - the README's own code
    [line] = (tmp_path / "trajectories.jsonl").read_text().splitlines()
    assert json.loads(line)["verdict"]["status"] == "pass"
