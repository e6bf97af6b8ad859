"""Run names: letters, digits, '.', '_' and '-', the whole name; nothing that could end a line."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import InputError
from assay.runs import RunSpec, start_run
from assay.store import Store
from tests.runs.conftest import median_tasks


@pytest.mark.parametrize("name", ["smoke\n", "smoke\r\n", "a/b", "../x", "x'y", "\x1b[2J"])
def test_a_name_with_a_line_end_or_a_separator_is_refused_and_nothing_is_made(
    tmp_path: Path, name: str
) -> None:
    spec = RunSpec.of(median_tasks(1), root="t", policy="reference", k=1, mode="tools")
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(InputError, match="is not a run name"):
            start_run(store, name, spec)
        assert store.runs() == []


def test_a_name_too_long_is_refused_in_a_short_line(tmp_path: Path) -> None:
    """The whole name was repeated in the error, 5,000 characters on one line."""
    spec = RunSpec.of(median_tasks(1), root="t", policy="reference", k=1, mode="tools")
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(InputError, match="is not a run name") as refused:
            start_run(store, "n" * 5000, spec)
        assert len(str(refused.value)) < 300
        assert store.runs() == []
