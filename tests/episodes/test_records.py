"""Fenced answers, bad trajectory files, families without tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay import families
from assay.episodes import Episode, last_fenced_block, read_jsonl
from assay.errors import InputError
from assay.families import get_family
from assay.sandbox import PoolSandbox
from assay.tasks import Task, TaskSpec


@pytest.mark.parametrize(
    ("text", "block"),
    [
        ("```python\na = 1\n```\n```python\nb = 2\n```", "b = 2\n"),
        ("```Python \nx\n```", "x\n"),
        ("```python\na = 1\n```\n```python\nunclosed", "a = 1\n"),
        ("```py\nx\n```", None),
        ("```\nx\n```", None),
        ("no code", None),
        ("", None),
        (None, None),
        ("text ```python\nx\n``` inline", None),
        ("  ```python\n  indented\n  ```\n", "  indented\n"),
        ("```python\n```", "\n"),
        # only Python's own line ends end a line: U+2028 or a form feed in code stays code
        ('```python\ns = "a\u2028b"\n```', 's = "a\u2028b"\n'),
        ("```python\n\x0cdef f(): pass  # \x1c\x85\n```", "\x0cdef f(): pass  # \x1c\x85\n"),
        ("```python\r\na = 1\r\n```\r\n", "a = 1\n"),
        ("```python\ra = 1\r```", "a = 1\n"),
        ("```python\u2028a = 1\u2028```", None),
    ],
)
def test_the_last_closed_python_block_is_the_answer(text: str | None, block: str | None) -> None:
    assert last_fenced_block(text, "python") == block


def test_many_unclosed_fences_take_linear_time() -> None:
    assert last_fenced_block("```python\n" * 100_000, "python") is None


def test_a_file_that_is_not_trajectories_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('\n{"format": 1}\n')
    with pytest.raises(InputError) as caught:
        read_jsonl(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: line 2: not a trajectory: episode_id: Field required")
    with pytest.raises(InputError, match="cannot read it"):
        read_jsonl(tmp_path / "missing.jsonl")


class _NoTools:
    name = "no-tools"
    version = "1"
    trusted_code = ()


def test_a_family_without_tools_cannot_hold_episodes(
    pool: PoolSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    get_family("code")  # discovery first, so that the registry is complete before the patch
    monkeypatch.setitem(families._registry, "no-tools", _NoTools())
    task = Task(spec=TaskSpec(id="t", family="no-tools"), prompt="p")
    with pytest.raises(InputError) as caught:
        Episode(task, pool)
    assert str(caught.value) == (
        "family: family 'no-tools' gives agents no tools, so no episode can be run on it (run "
        "episodes on tasks of a family with tools, such as code)"
    )
    with pytest.raises(InputError, match="unknown mode 'multi'"):
        Episode(task, pool, mode="multi")  # type: ignore[arg-type]
