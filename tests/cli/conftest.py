"""The command line run in-process, in a directory of the test's own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from assay.cli import cli

Invoke = Callable[..., Result]


@pytest.fixture
def invoke(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    """Run the CLI in-process in ``tmp_path``, with the store there; stderr kept apart."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_DB", str(tmp_path / "store.db"))

    def run(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)

    return run
