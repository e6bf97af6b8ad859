"""Rows whose text no file can hold (a lone surrogate, which a model's JSON can carry as a
``\\ud800`` escape) are refused in one line naming the row and its field, and nothing is left
behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import InputError
from assay.integrations.exports import FORMATS, Format, write_rows


@pytest.mark.parametrize("format", FORMATS)
def test_a_row_that_is_not_unicode_text_is_refused_naming_it(
    tmp_path: Path,
    format: Format,  # noqa: A002 - as write_rows names it
) -> None:
    rows = [
        {"task_id": "median-1", "messages": [{"role": "assistant", "content": "fine"}]},
        {"task_id": "median-2", "messages": [{"role": "assistant", "content": "half \ud800"}]},
    ]
    out = tmp_path / f"rows.{format}"
    with pytest.raises(InputError) as refused:
        write_rows(rows, out, format)
    assert str(refused.value).startswith(
        f"{out}: row 1's messages holds a lone surrogate (an unpaired \\ud800-\\udfff)"
    )
    assert list(tmp_path.iterdir()) == []  # neither the file nor its staging directory


def test_an_earlier_dataset_is_kept_when_its_replacement_cannot_be_moved_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "dataset"
    write_rows([{"task_id": "median-1"}], out, "hf")
    earlier = sorted(p.name for p in out.iterdir())
    moved = Path.rename

    def failing(self: Path, target: Path) -> Path:
        if self.name == "out":  # the finished export, moved into place
            raise OSError(28, "No space left on device")
        return moved(self, target)

    monkeypatch.setattr(Path, "rename", failing)
    monkeypatch.setattr(Path, "replace", failing)
    with pytest.raises(InputError, match="cannot write it: No space left on device"):
        write_rows([{"task_id": "median-2"}], out, "hf")
    monkeypatch.undo()
    assert sorted(p.name for p in out.iterdir()) == earlier
    assert [p.name for p in tmp_path.iterdir()] == ["dataset"]
