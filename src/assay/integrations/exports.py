"""Training data out of assay: task sets for trainers, and trajectories as supervised examples
and preference pairs.

What leaves is what an agent may see and nothing more: the prompt as an episode sends it, the
tools, the files the workspace starts with, and metadata. Never ``hidden/``, never a solution,
never the family's verifier settings. Only tasks that may train anything are exported:

- not the ``frozen`` split (evaluation only, whatever is asked);
- only tasks the latest audit of their current content accepted: quarantined, rejected and
  never-audited tasks (or tasks changed since their audit) are left out, each with its reason;
- only tasks an episode can attempt: a family that gives agents no tools (an imported
  Terminal-Bench task) has no answer an episode or a reward function could judge.

Rows are plain: strings, lists of strings, and messages as ``{"role", "content", "tool_calls",
"tool_call_id"}`` (the chat format trainers' templates take; ``tool_calls`` always a list, so
that every row has one shape); anything nested deeper (tool schemas, the workspace, limits) is
JSON text. Three formats: JSON Lines, Parquet, and a Hugging Face dataset directory
(``datasets.load_from_disk``); the last two need the ``export`` extra.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import stat
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from assay._output import mode_for, written_path
from assay.episodes.prompts import prompt_messages
from assay.episodes.records import Trajectory
from assay.errors import InputError
from assay.families import family_of, version_label
from assay.families.base import gives_tools, no_episodes
from assay.policies.messages import Message
from assay.tasks.model import Task
from assay.tasks.spec import Split
from assay.verdicts import Status

Format = Literal["jsonl", "parquet", "hf"]
FORMATS: tuple[Format, ...] = ("jsonl", "parquet", "hf")
TrajectoryKind = Literal["sft", "preference"]
Row = dict[str, Any]
EXTRA_HINT = "install the export extra: pip install 'assay[export]'"


@dataclass(frozen=True)
class Exclusion:
    """A task left out of an export, and why."""

    task_id: str
    reason: str


@dataclass(frozen=True)
class Chosen:
    """The tasks an export may use, and those it left out."""

    tasks: tuple[Task, ...]
    excluded: tuple[Exclusion, ...]


def exportable(
    tasks: Iterable[Task], decisions: Mapping[tuple[str, str], str], split: Split = Split.TRAIN
) -> Chosen:
    """The tasks of ``split`` that their latest audit accepted, or quarantined and a person
    cleared (``decisions`` as :meth:`assay.store.Store.audit_decisions` gives them), of
    families that give agents tools. Raises :class:`InputError` for the frozen split."""
    if split is Split.FROZEN:
        raise InputError(
            "the frozen split is never exported",
            field="split",
            fix="it is for evaluation only; export train, dev or test",
        )
    audited = {task_id for task_id, _ in decisions}
    chosen: list[Task] = []
    excluded: list[Exclusion] = []
    for task in sorted(tasks, key=lambda t: t.id):
        if task.spec.split is not split:
            if task.spec.split is Split.FROZEN:
                excluded.append(Exclusion(task.id, "frozen: evaluation only"))
            continue
        family = family_of(task)
        version = task.content_version(version_label(family))
        if not gives_tools(family):
            excluded.append(Exclusion(task.id, no_episodes(family, task)))
            continue
        decision = decisions.get((task.id, version))
        if decision is None:
            reason = "changed since its audit" if task.id in audited else "never audited"
            excluded.append(Exclusion(task.id, f"{reason}: run `assay audit` on it first"))
        elif decision == "unproven":
            excluded.append(
                Exclusion(task.id, "audited without the reference and known-bad checks: run them")
            )
        elif decision not in ("accepted", "cleared"):
            after = (
                ": `assay clear` it once a person has looked" if decision == "quarantined" else ""
            )
            excluded.append(Exclusion(task.id, f"{decision} by its latest audit{after}"))
        else:
            chosen.append(task)
    return Chosen(tasks=tuple(chosen), excluded=tuple(excluded))


def tool_schemas(task: Task) -> str:
    """The JSON text of the tools an episode of ``task`` offers (``[]`` for none)."""
    family = family_of(task)
    schemas = family.tools(task).schemas() if gives_tools(family) else []
    return json.dumps(schemas, sort_keys=True)


def task_row(task: Task) -> Row:
    """What a trainer needs of one task, and nothing an agent may not see."""
    family = family_of(task)
    toolset = family.tools(task) if gives_tools(family) else None
    fence = toolset.fence if toolset is not None else "text"
    spec = task.spec
    return {
        "task_id": task.id,
        "task_version": task.content_version(version_label(family)),
        "family": spec.family,
        "split": spec.split.value,
        "prompt": [_message(m) for m in prompt_messages(task, single=True, fence=fence)],
        "tools_prompt": [_message(m) for m in prompt_messages(task, single=False, fence=fence)],
        "instructions": task.prompt,
        "tools": json.dumps(toolset.schemas() if toolset is not None else [], sort_keys=True),
        "answer_fence": fence,
        "workspace": json.dumps(_workspace(task.workspace), sort_keys=True),
        "tags": list(spec.tags),
        "locale": spec.locale or "",
        "difficulty": spec.difficulty or "",
        "limits": spec.limits.model_dump_json(),
    }


def usable_trajectories(
    trajectories: Sequence[Trajectory], chosen: Chosen
) -> tuple[list[Trajectory], int]:
    """The episodes of tasks ``chosen`` allows, at the content version they have now; and how
    many others were left out (a task excluded, or changed since the episode)."""
    versions = {
        task.id: task.content_version(version_label(family_of(task))) for task in chosen.tasks
    }
    kept = [t for t in trajectories if versions.get(t.task_id) == t.task_version]
    return kept, len(trajectories) - len(kept)


def sft_rows(trajectories: Iterable[Trajectory], tools: Mapping[str, str]) -> list[Row]:
    """One supervised example per passing episode: its whole conversation, with the tool
    schemas (``tools``: task id to the JSON text of its schemas) where it used tools."""
    return [
        {
            "task_id": t.task_id,
            "task_version": t.task_version,
            "episode_id": t.episode_id,
            "mode": t.mode,
            "messages": [_message(m) for m in (*t.prompt, *_completion(t))],
            "tools": tools.get(t.task_id, "[]") if t.mode == "tools" else "[]",
            "score": _score(t),
        }
        for t in trajectories
        if t.verdict.status is Status.PASS
    ]


def preference_rows(trajectories: Iterable[Trajectory]) -> list[Row]:
    """Pairs of a passing and a failing attempt at the same task from the same prompt, in the
    order the episodes were kept; each attempt is used once. Errors are neither."""
    passed: dict[tuple[str, str], list[Trajectory]] = defaultdict(list)
    failed: dict[tuple[str, str], list[Trajectory]] = defaultdict(list)
    for t in trajectories:
        key = (t.task_id, json.dumps([m.model_dump(mode="json") for m in t.prompt]))
        if t.verdict.status is Status.PASS:
            passed[key].append(t)
        elif t.verdict.status is Status.FAIL:
            failed[key].append(t)
    rows = []
    for key in sorted(passed.keys() & failed.keys()):
        for chosen, rejected in zip(passed[key], failed[key], strict=False):
            rows.append(
                {
                    "task_id": chosen.task_id,
                    "task_version": chosen.task_version,
                    "prompt": [_message(m) for m in chosen.prompt],
                    "chosen": [_message(m) for m in _completion(chosen)],
                    "rejected": [_message(m) for m in _completion(rejected)],
                    "chosen_score": _score(chosen),
                    "rejected_score": _score(rejected),
                    "chosen_episode": chosen.episode_id,
                    "rejected_episode": rejected.episode_id,
                }
            )
    return rows


def write_rows(rows: Sequence[Row], path: Path, format: Format) -> None:  # noqa: A002
    """Write ``rows`` to ``path`` in ``format``, whole or not at all: a file (or, for ``hf``,
    a directory) appears only once complete, replacing one that was there (or, where ``path``
    is a symbolic link, the one it leads to). Anything else is :class:`InputError`, in one line:
    see :func:`_written_path`."""
    writers: dict[str, Callable[[Sequence[Row], Path], None]] = {
        "jsonl": _write_jsonl,
        "parquet": _write_parquet,
        "hf": _write_dataset,
    }
    if format not in writers:
        raise InputError(
            f"unknown format {format!r}", field="format", fix="use " + ", ".join(FORMATS)
        )
    try:
        written = _written_path(path, format)
        staging = Path(tempfile.mkdtemp(dir=written.parent, prefix=".assay-export."))
    except OSError as exc:
        raise InputError(
            f"cannot write here: {exc.strerror or exc}",
            path=path,
            fix="choose a writable directory, and a name its file system takes",
        ) from None
    try:
        target = staging / "out"
        writers[format](rows, target)
        _put(target, written, staging / "earlier")
    except OSError as exc:
        raise InputError(f"cannot write it: {exc.strerror or exc}", path=path) from None
    except UnicodeEncodeError:
        raise InputError(
            f"{_not_text(rows)} holds a lone surrogate (an unpaired \\ud800-\\udfff), which no "
            "file can hold as text; nothing was written",
            path=path,
            fix="replace it in the text, e.g. with U+FFFD",
        ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _written_path(path: Path, format: Format) -> Path:  # noqa: A002
    """Where an export to ``path`` goes: ``path``, or the file or directory a symbolic link
    there leads to (the link is kept, and what it names is replaced). Raises
    :class:`InputError` for what no export may replace (a directory where a file is asked, a
    file or another directory where a dataset is, a FIFO, socket or device); :class:`OSError`
    when the system cannot look (a name too long)."""
    written = written_path(path)
    parent = written.parent
    if not parent.is_dir():
        raise InputError(
            f"cannot write here: no directory {parent}",
            path=path,
            fix="create the directory first, or write somewhere else",
        )
    if not written.exists():
        return written
    mode = written.stat().st_mode
    if format != "hf" and stat.S_ISDIR(mode):
        raise InputError("is a directory", path=path, fix="name a file to write")
    if format == "hf" and not stat.S_ISDIR(mode):
        raise InputError(
            "is a file; a dataset is a directory", path=path, fix="name a directory to write"
        )
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise InputError(
            "is a FIFO, socket or device: an export is a file, written whole and then put in "
            "its place",
            path=path,
            fix="name a regular file to write",
        )
    if format == "hf" and not _is_dataset(written):
        raise InputError(
            "is a directory holding other files than a dataset; it is replaced only when it "
            "holds an earlier export",
            path=path,
            fix="name a new directory",
        )
    return written


def _put(target: Path, path: Path, aside: Path) -> None:
    """Move ``target`` to ``path``; an earlier dataset directory there is moved ``aside`` (to be
    removed with the staging directory) and put back if the move fails, never deleted first."""
    if not path.is_dir():
        if target.is_file():
            target.chmod(mode_for(path))  # what was private stays so
        target.replace(path)  # a file is replaced at once
        return
    path.rename(aside)
    try:
        target.rename(path)
    except OSError:
        aside.rename(path)
        raise


def _not_text(rows: Sequence[Row]) -> str:
    """Where the first text that UTF-8 cannot encode is (a lone surrogate: a JSON ``\\ud800``
    escape, decoded): a row and its field."""
    for index, row in enumerate(rows):
        for key, value in row.items():
            try:
                json.dumps(value, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                return f"row {index}'s {key}"
    return "a row"


_DATASET_FILE = re.compile(r"data-\d+-of-\d+\.arrow|dataset_info\.json|state\.json")


def _is_dataset(path: Path) -> bool:
    """Whether directory ``path`` is empty or holds only what ``save_to_disk`` writes, so
    that replacing it loses nothing but an earlier export."""
    try:
        entries = list(path.iterdir())
    except OSError:
        return False
    return all(e.is_file() and _DATASET_FILE.fullmatch(e.name) for e in entries)


def _write_jsonl(rows: Sequence[Row], target: Path) -> None:
    with target.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False, sort_keys=True))
            out.write("\n")


def _write_parquet(rows: Sequence[Row], target: Path) -> None:
    try:
        import pyarrow as pa  # noqa: PLC0415 - an optional extra
        import pyarrow.parquet as pq  # noqa: PLC0415
    except ImportError:
        raise InputError("Parquet needs pyarrow", field="format", fix=EXTRA_HINT) from None
    pq.write_table(pa.Table.from_pylist(list(rows)), target)


def _write_dataset(rows: Sequence[Row], target: Path) -> None:
    try:
        import datasets  # noqa: PLC0415 - an optional extra
    except ImportError:
        raise InputError(
            "a Hugging Face dataset needs the datasets package", field="format", fix=EXTRA_HINT
        ) from None
    datasets.disable_progress_bars()
    datasets.Dataset.from_list(list(rows)).save_to_disk(str(target))


def _message(message: Message) -> Row:
    return {
        "role": message.role,
        "content": message.content or "",
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in message.tool_calls
        ],
        "tool_call_id": message.tool_call_id or "",
    }


def _score(trajectory: Trajectory) -> float | None:
    """The verdict's score, or None when it could not be made (a judge unreachable: the status
    stands, the score is a placeholder 0 that a trainer weighting by it would take for one)."""
    verdict = trajectory.verdict
    return verdict.score if verdict.scored else None


def _completion(trajectory: Trajectory) -> list[Message]:
    """What the policy said after the prompt, with the tools' answers between its turns."""
    messages: list[Message] = []
    for step in trajectory.steps:
        messages.append(step.message)
        messages.extend(
            Message(role="tool", tool_call_id=tool.call.id, content=tool.result.output)
            for tool in step.tools
        )
    return messages


def _workspace(files: Mapping[str, bytes]) -> list[Row]:
    """The starting files: UTF-8 as text, anything else as base64."""
    entries = []
    for name in sorted(files):
        data = files[name]
        try:
            entries.append({"path": name, "text": data.decode("utf-8")})
        except UnicodeDecodeError:
            entries.append({"path": name, "base64": base64.b64encode(data).decode("ascii")})
    return entries


__all__ = [
    "FORMATS",
    "Chosen",
    "Exclusion",
    "Format",
    "TrajectoryKind",
    "exportable",
    "preference_rows",
    "sft_rows",
    "task_row",
    "tool_schemas",
    "usable_trajectories",
    "write_rows",
]
