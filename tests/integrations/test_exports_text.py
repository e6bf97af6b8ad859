"""Rows whose text no file can hold (a lone surrogate, which a model's JSON can carry as a
``\\ud800`` escape) are refused in one line naming the row and its field, and nothing is left
behind."""

from __future__ import annotations

import json
import os
import stat
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


ROWS = [{"task_id": "median-1"}]


@pytest.mark.parametrize("format", FORMATS)
def test_a_name_the_file_system_takes_is_written_and_one_it_refuses_is_one_line(
    tmp_path: Path,
    format: Format,  # noqa: A002 - as write_rows names it
) -> None:
    longest = tmp_path / ("x" * 255)  # the longest name: the staging name must not grow it
    write_rows(ROWS, longest, format)
    assert longest.exists()
    for refused in (tmp_path / ("y" * 256), Path("/proc/train.jsonl")):
        with pytest.raises(InputError, match="cannot write here: ") as caught:
            write_rows(ROWS, refused, format)
        assert str(caught.value).startswith(f"{refused}: ")
    assert [p.name for p in tmp_path.iterdir()] == [longest.name]


@pytest.mark.parametrize("format", ["jsonl", "parquet"])
def test_a_fifo_at_the_export_path_is_refused_not_replaced(
    tmp_path: Path,
    format: Format,  # noqa: A002 - as write_rows names it
) -> None:
    # A reader waiting on the FIFO would wait forever for a file put in its place.
    fifo = tmp_path / "train.out"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match=r"train\.out: is a FIFO, socket or device"):
        write_rows(ROWS, fifo, format)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["train.out"]


@pytest.mark.parametrize("format", FORMATS)
def test_an_export_through_a_link_replaces_what_it_names_and_keeps_the_link(
    tmp_path: Path,
    format: Format,  # noqa: A002 - as write_rows names it
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    write_rows([{"task_id": "old"}], runs / "dec", format)
    latest = tmp_path / "latest"
    latest.symlink_to(runs / "dec")
    write_rows(ROWS, latest, format)
    assert latest.readlink() == runs / "dec"
    assert _read(runs / "dec", format) == ROWS
    dangling = tmp_path / "next"
    dangling.symlink_to(runs / "jan")
    write_rows(ROWS, dangling, format)
    assert dangling.is_symlink()
    assert _read(runs / "jan", format) == ROWS


@pytest.mark.parametrize("format", FORMATS)
def test_an_export_onto_a_link_that_loops_is_refused_and_the_link_kept(
    tmp_path: Path,
    format: Format,  # noqa: A002 - as write_rows names it
) -> None:
    """A link to itself was replaced by the export (the link lost, nothing said)."""
    link = tmp_path / "train.out"
    link.symlink_to(link)
    with pytest.raises(InputError, match=r"train\.out: is a symbolic link that leads back to"):
        write_rows(ROWS, link, format)
    assert link.readlink() == link
    assert [p.name for p in tmp_path.iterdir()] == ["train.out"]


@pytest.mark.parametrize("format", ["jsonl", "parquet"])
def test_an_export_replacing_a_private_file_stays_private(
    tmp_path: Path,
    format: Format,  # noqa: A002 - as write_rows names it
) -> None:
    """The new file had the umask's mode: a 0600 export became readable by every user."""
    out = tmp_path / f"train.{format}"
    write_rows([{"task_id": "old"}], out, format)
    out.chmod(0o600)
    write_rows(ROWS, out, format)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert _read(out, format) == ROWS


def _read(path: Path, format: Format) -> list[dict[str, object]]:  # noqa: A002
    if format == "jsonl":
        return [json.loads(line) for line in path.read_text().splitlines()]
    if format == "parquet":
        import pyarrow.parquet as pq  # noqa: PLC0415 - an optional extra

        return list(pq.read_table(path).to_pylist())
    import datasets  # noqa: PLC0415 - an optional extra

    return list(datasets.load_from_disk(str(path)).to_list())
