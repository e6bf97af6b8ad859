"""``assay export tasks`` and ``assay export trajectories``: what a trainer gets, and what never
leaves (hidden files, solutions, the frozen split, tasks the audit did not accept)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from assay.episodes import read_jsonl
from assay.integrations.exports import Exclusion, exportable, preference_rows, task_row
from assay.tasks import Split, Task, save_task
from assay.verdicts import Status
from tests.conftest import BAD_NO_SORT, REFERENCE, make_median_task

Run = Callable[..., Result]


def _broken(task_id: str) -> Task:
    task = make_median_task(task_id)
    solutions = {**task.solutions, "reference": {"solution.py": BAD_NO_SORT}}
    return task.model_copy(update={"solutions": solutions})


@pytest.fixture
def audited(run_cli: Run, tmp_path: Path) -> Path:
    """A set audited once (accepted, rejected, frozen, dev), then changed: one task edited, one
    added."""
    root = tmp_path / "tasks"
    for task in (
        make_median_task("median-a"),
        make_median_task("median-b"),
        _broken("broken"),
        make_median_task("held-out", split=Split.FROZEN),
        make_median_task("dev-1", split=Split.DEV),
        make_median_task("edited"),
    ):
        save_task(task, root)
    audit = run_cli("audit", str(root), "--checks", "reference,known-bad")
    assert audit.exit_code == 1, audit.output  # the broken one is rejected
    edited = make_median_task("edited")
    save_task(
        edited.model_copy(update={"prompt": edited.prompt + "Be quick.\n"}), root, replace=True
    )
    save_task(make_median_task("added"), root)
    return root


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_only_accepted_train_tasks_leave_and_each_left_out_says_why(
    run_cli: Run, audited: Path, tmp_path: Path
) -> None:
    out = tmp_path / "train.jsonl"
    result = run_cli("export", "tasks", str(audited), "--out", str(out))
    assert result.exit_code == 0, result.output
    rows = _rows(out)
    assert [r["task_id"] for r in rows] == ["median-a", "median-b"]
    left = result.stderr
    assert "left out broken: rejected by its latest audit" in left
    assert "left out held-out: frozen" in left
    assert "left out edited: changed since its audit" in left
    assert "left out added: never audited" in left
    assert "dev-1" not in left  # another split is not "left out", just not asked for


def test_a_row_holds_what_the_agent_sees_and_nothing_it_must_not(
    run_cli: Run, audited: Path, tmp_path: Path
) -> None:
    out = tmp_path / "train.jsonl"
    assert run_cli("export", "tasks", str(audited), "--out", str(out)).exit_code == 0
    row = _rows(out)[0]
    task = make_median_task("median-a")
    assert row["instructions"] == task.prompt
    assert row["family"] == "code"
    assert row["split"] == "train"
    prompt = row["prompt"]
    assert isinstance(prompt, list)
    assert [m["role"] for m in prompt] == ["system", "user"]
    assert prompt[1]["content"] == task.prompt
    assert "```python" in prompt[0]["content"]
    tools = json.loads(str(row["tools"]))
    assert {t["function"]["name"] for t in tools} >= {"write_file", "run", "submit"}
    text = out.read_text()
    assert "sorted(" in REFERENCE.decode()
    assert "sorted(" not in text  # no solution
    assert "cases.json" not in text  # no hidden file
    assert "case-3" not in text
    assert json.loads(str(row["limits"]))["timeout_s"] == 5


def test_parquet_and_a_hugging_face_dataset_read_back_the_same_rows(
    run_cli: Run, audited: Path, tmp_path: Path
) -> None:
    import datasets  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    jsonl, parquet, dataset = tmp_path / "t.jsonl", tmp_path / "t.parquet", tmp_path / "ds"
    for out, extra in ((jsonl, []), (parquet, []), (dataset, ["--format", "hf"])):
        result = run_cli("export", "tasks", str(audited), "--out", str(out), *extra)
        assert result.exit_code == 0, result.output
    expected = _rows(jsonl)
    assert pq.read_table(parquet).to_pylist() == expected
    loaded = datasets.load_from_disk(str(dataset))
    assert set(loaded.column_names) == set(expected[0])
    assert [dict(row) for row in loaded] == expected


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--split", "frozen"], "split: the frozen split is never exported"),
        (["--split", "test"], "no task of the test split may be exported"),
        (["--out", "DIR/no/such/x.jsonl"], "cannot write here: no directory"),
        (["--out", "DIR", "--format", "jsonl"], "is a directory"),
    ],
)
def test_bad_export_requests_are_one_line(
    run_cli: Run, audited: Path, tmp_path: Path, args: list[str], said: str
) -> None:
    out = ["--out", str(tmp_path / "x.jsonl")] if "--out" not in args else []
    argv = [a.replace("DIR", str(tmp_path)) for a in args]
    result = run_cli("export", "tasks", str(audited), *out, *argv)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert said in lines[0]
    assert not (tmp_path / "x.jsonl").exists()


def test_an_existing_export_is_replaced_whole_or_kept(
    run_cli: Run, audited: Path, tmp_path: Path
) -> None:
    out = tmp_path / "train.jsonl"
    out.write_text("kept\n")
    assert run_cli("export", "tasks", str(audited), "--out", str(out), "--split", "test").exit_code
    assert out.read_text() == "kept\n"  # a refused export leaves what was there
    assert run_cli("export", "tasks", str(audited), "--out", str(out)).exit_code == 0
    assert len(_rows(out)) == 2


def test_a_dataset_export_replaces_only_an_earlier_dataset(
    run_cli: Run, audited: Path, tmp_path: Path
) -> None:
    """``--format hf`` writes a directory: one that holds anything but an earlier export (the
    task set itself, a directory of notes, the working directory with the store) is refused."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "n.txt").write_text("mine\n")
    for out in (notes, audited, tmp_path):
        refused = run_cli("export", "tasks", str(audited), "--format", "hf", "--out", str(out))
        assert refused.exit_code == 2, refused.output
        assert "holding other files than a dataset" in refused.stderr
    assert (notes / "n.txt").read_text() == "mine\n"
    assert (audited / "median-a" / "task.toml").is_file()
    dataset = tmp_path / "ds"
    for _ in range(2):  # the second replaces the first
        made = run_cli("export", "tasks", str(audited), "--format", "hf", "--out", str(dataset))
        assert made.exit_code == 0, made.output


def test_trajectories_are_never_written_over_the_store(
    run_cli: Run, audited: Path, tmp_path: Path
) -> None:
    assert run_cli("run", str(audited), "--policy", "reference", "--run", "good").exit_code == 0
    db = tmp_path / "store.db"
    kept = db.read_bytes()
    for kind in ("sft", "preference", "full"):
        refused = run_cli("export", "trajectories", "good", "--kind", kind, "--out", str(db))
        assert refused.exit_code == 2, refused.output
        assert "is the results database" in refused.stderr
    assert db.read_bytes() == kept


def test_without_a_store_there_is_nothing_to_vouch_for_the_tasks(
    run_cli: Run, tmp_path: Path
) -> None:
    root = tmp_path / "tasks"
    save_task(make_median_task("median-a"), root)
    result = run_cli("export", "tasks", str(root), "--out", str(tmp_path / "x.jsonl"))
    assert result.exit_code == 2
    assert "no results database here" in result.stderr


def test_exportable_refuses_the_frozen_split_and_tells_quarantine() -> None:
    task = make_median_task("median-a")
    with pytest.raises(ValueError, match="frozen split is never exported"):
        exportable([task], {}, Split.FROZEN)
    version = task_row(task)["task_version"]
    chosen = exportable([task], {("median-a", str(version)): "quarantined"})
    assert chosen.tasks == ()
    assert chosen.excluded == (
        Exclusion(
            "median-a",
            "quarantined by its latest audit: `assay clear` it once a person has looked",
        ),
    )
    cleared = exportable([task], {("median-a", str(version)): "cleared"})
    assert cleared.tasks == (task,)


def test_trajectories_become_sft_rows_and_preference_pairs_across_runs(
    run_cli: Run, audited: Path, tmp_path: Path
) -> None:
    for name, policy in (("good", "reference"), ("weak", "bad:unsorted")):
        ran = run_cli("run", str(audited), "--policy", policy, "--run", name)
        assert ran.exit_code == 0, ran.output
    sft = tmp_path / "sft.jsonl"
    result = run_cli("export", "trajectories", "good", "weak", "--out", str(sft))
    assert result.exit_code == 0, result.output
    rows = _rows(sft)
    assert sorted(r["task_id"] for r in rows) == ["median-a", "median-b"]  # passing, accepted
    messages = rows[0]["messages"]
    assert isinstance(messages, list)
    roles = [m["role"] for m in messages]
    assert roles[:3] == ["system", "user", "assistant"]
    assert "tool" in roles
    assert any(c["function"]["name"] == "submit" for m in messages for c in m["tool_calls"])
    assert "write_file" in str(rows[0]["tools"])

    pairs = tmp_path / "pairs.jsonl"
    made = run_cli(
        "export", "trajectories", "good", "weak", "--kind", "preference", "--out", str(pairs)
    )
    assert made.exit_code == 0, made.output
    pair_rows = _rows(pairs)
    assert sorted(r["task_id"] for r in pair_rows) == ["median-a", "median-b"]
    pair = pair_rows[0]
    chosen_code = json.dumps(pair["chosen"])
    rejected_code = json.dumps(pair["rejected"])
    assert "sorted(values)" in chosen_code
    assert "sorted(values)" not in rejected_code
    assert pair["chosen_score"] == 1.0
    assert float(str(pair["rejected_score"])) < 1.0

    only_good = run_cli(
        "export", "trajectories", "good", "--kind", "preference", "--out", str(pairs)
    )
    assert only_good.exit_code == 2
    assert "no preference rows" in only_good.stderr
    full = tmp_path / "full.jsonl"
    whole = run_cli("export", "trajectories", "good", "--kind", "full", "--out", str(full))
    assert whole.exit_code == 0
    assert len(_rows(full)) == 7  # every episode, as kept, frozen and rejected tasks too

    # each attempt is used once, and an error is never a rejected answer
    good = [t for t in read_jsonl(full) if t.task_id == "median-a"]
    weak = run_cli("export", "trajectories", "weak", "--kind", "full", "--out", str(full))
    assert weak.exit_code == 0
    [failing] = [t for t in read_jsonl(full) if t.task_id == "median-a"]
    errored = failing.model_copy(
        update={"verdict": failing.verdict.model_copy(update={"status": Status.ERROR})}
    )
    assert len(preference_rows([*good, *good, failing])) == 1
    assert preference_rows([*good, errored]) == []
