"""Completions to rewards, for trainers: each completion judged as a single-turn answer to its
task, in the sandbox pool, many at once.

An ``error`` verdict (the sandbox or the verifier failed, not the completion: a verify that
raises is one, as in a run), or one whose score could not be made (a criterion could not be
judged), is retried; one that persists is no reward. A trainer cannot be handed "no reward" for
one completion of a batch, so :func:`neutral_scores` gives it the mean of the scores judged in
its group (the completions of the same task in the batch): under GRPO's group-relative advantage
that completion's advantage is zero, so it pushes the policy neither way, where a 0 would punish
the model for the machine's failure. A group with no judged completion gets 0 for all: equal
rewards, zero advantages. Each integration counts its errors where its trainer logs.

A task set read from a directory is watched for the length of a run: a release of the set
written in place, or a task edited, is what the next batch is judged against (see
:meth:`Judge.judge`), never the tasks as they were when training started.

A task of the frozen split gives no reward for training: a batch naming one is refused, unless
the judge was made for an evaluation (``frozen=True``).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from assay.episodes.episode import Episode
from assay.episodes.loop import described
from assay.errors import InputError, SandboxError
from assay.families import family_of
from assay.families.base import gives_tools, no_episodes
from assay.integrations._pool import shared_sandbox
from assay.policies.messages import Message
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Task
from assay.tasks.spec import Split
from assay.verdicts import Verdict

RETRIES = 2
"""Further attempts at a completion whose verdict was an error or had no score."""
RECHECK_S = 1.0
"""Seconds a look at a task directory stands: a batch judged later looks again. Looking stats
every file of the set (a tenth of a second for a thousand tasks), which a reward called once a
response, from many threads, would otherwise pay on every call."""


@dataclass(frozen=True)
class Judgement:
    """One completion's verdict, or why there is none."""

    task_id: str
    verdict: Verdict | None
    attempts: int
    error: str = ""

    @property
    def score(self) -> float | None:
        """The verdict's score; None when it could not be judged, or its score could not be
        made (a rubric's judge unreachable: the status stands, the score is a placeholder 0)."""
        if self.verdict is None or not self.verdict.scored:
            return None
        return float(self.verdict.score)


class Judge:
    """Judges completions against a task set (``tasks``: a directory, a sequence of tasks, or
    None for the directory in ``ASSAY_TASKS``) in ``sandbox`` (default: the process's shared
    pool). A directory is loaded again when its files change; see :meth:`judge`."""

    def __init__(
        self,
        tasks: str | Path | Sequence[Task] | None = None,
        *,
        sandbox: Sandbox | None = None,
        retries: int = RETRIES,
        workers: int | None = None,
        frozen: bool = False,
    ) -> None:
        _check_count("retries", retries, least=0)
        if not isinstance(frozen, bool):
            raise InputError(f"frozen is {frozen!r}", field="frozen", fix="give True or False")
        self.frozen = frozen
        """Whether tasks of the frozen split are judged (an evaluation); else they are refused."""
        if workers is not None:
            _check_count("workers", workers, least=1)
        self._root: Path | None = None
        self.tasks: dict[str, Task]
        """The tasks by id, as the last batch was judged against them."""
        if tasks is None or isinstance(tasks, str | Path):
            self._root = _directory(tasks).absolute()  # the same set after a chdir
            self.tasks, self._seen = _settled_load(self._root, _fingerprint(self._root))
        else:
            self.tasks, self._seen = _by_id(load_tasks(tasks)), b""
        self._checked = time.monotonic()
        self._checking = threading.Lock()
        self._sandbox = sandbox
        self.retries = retries
        self.workers = workers or 2 * (os.cpu_count() or 1)

    def judge(self, task_ids: Sequence[str], completions: Sequence[str]) -> list[Judgement]:
        """Each completion judged as the single-turn answer to its task, concurrently.

        A task set read from a directory is first looked at again (at most every
        :data:`RECHECK_S` seconds, by the files' sizes, times and inodes): if a file of it
        changed, or a task came or went, the set is loaded again and this batch is judged against
        it; a directory that is gone or unusable raises :class:`InputError`. A batch judged while
        another thread loads the set is judged against the set as it was."""
        tasks = self._current()
        if len(task_ids) != len(completions):
            raise InputError(
                f"{len(task_ids)} task ids for {len(completions)} completions",
                field="task_id",
                fix="give one task id per completion",
            )
        unknown = sorted({t for t in task_ids if t not in tasks})
        if unknown:
            raise InputError(
                f"no task {unknown[0]!r:.100} in the task set ({len(unknown)} unknown)",
                field="task_id",
                fix="export the dataset from the same task set the rewards read",
            )
        held_out = sorted({t for t in task_ids if tasks[t].spec.split is Split.FROZEN})
        if held_out and not self.frozen:
            raise InputError(
                f"task {held_out[0]!r:.100} is of the frozen split, which is for evaluation "
                f"only: no reward for training is given on it ({len(held_out)} such tasks)",
                field="task_id",
                fix="train on `assay export tasks` output, which leaves the frozen split out; "
                "to evaluate on it, pass frozen=True",
            )
        toolless = sorted({t for t in task_ids if not gives_tools(family_of(tasks[t]))})
        if toolless:
            task = tasks[toolless[0]]
            raise InputError(
                f"task {task.id!r:.100} cannot be judged here: "
                f"{no_episodes(family_of(task), task)}",
                field="task_id",
                fix="train on `assay export tasks` output, which leaves such tasks out",
            )
        with ThreadPoolExecutor(min(self.workers, max(1, len(completions)))) as threads:
            return list(threads.map(self._one, [tasks[t] for t in task_ids], completions))

    def _current(self) -> dict[str, Task]:
        """The tasks, loaded again first if their directory changed; see :meth:`judge`."""
        root = self._root
        if root is None or time.monotonic() - self._checked < RECHECK_S:
            return self.tasks
        if not self._checking.acquire(blocking=False):  # another thread is looking
            return self.tasks
        try:
            seen = _fingerprint(root)
            if seen != self._seen:
                self.tasks, self._seen = _settled_load(root, seen)
            self._checked = time.monotonic()
        finally:
            self._checking.release()
        return self.tasks

    def _one(self, task: Task, completion: str) -> Judgement:
        task_id = task.id
        error = ""
        for attempt in range(1, self.retries + 2):
            episode = Episode(task, self._box(), mode="single")
            try:
                verdict = episode.judge(Message(role="assistant", content=completion)).verdict
            except SandboxError as exc:
                error = str(exc)
                continue
            except InputError:  # the task set is wrong: no retry mends it
                raise
            except Exception as exc:  # noqa: BLE001 - a verifier that crashed judged nothing
                error = f"the family's verify raised {described(exc)}"
                continue
            if verdict.scored:
                return Judgement(task_id, verdict, attempt)
            error = verdict.summary
        return Judgement(task_id, None, self.retries + 1, error or "the verifier failed")

    def _box(self) -> Sandbox:
        if self._sandbox is None:
            self._sandbox = shared_sandbox()
        return self._sandbox


def _check_count(name: str, value: object, *, least: int) -> None:
    """Refuse a count below ``least`` or not a whole number: fewer than no retries would judge
    nothing, and every completion would be an unjudged one, scored without a verdict."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise InputError(
            f"{name} is {value!r}", field=name, fix=f"give a whole number, {least} or more"
        )


def neutral_scores(judgements: Sequence[Judgement], groups: Sequence[object]) -> list[float]:
    """Every judgement's score, an unjudged one replaced by the mean of the judged scores of its
    group (``groups[i]``: the group of ``judgements[i]``), or 0 where none of its group was
    judged; see the module's docstring."""
    judged: dict[object, list[float]] = defaultdict(list)
    for judgement, group in zip(judgements, groups, strict=True):
        if judgement.score is not None:
            judged[group].append(judgement.score)
    scores = []
    for judgement, group in zip(judgements, groups, strict=True):
        if judgement.score is not None:
            scores.append(judgement.score)
        else:
            peers = judged.get(group, [])
            scores.append(sum(peers) / len(peers) if peers else 0.0)
    return scores


def load_tasks(tasks: str | Path | Sequence[Task] | None) -> list[Task]:
    """The tasks rewards are computed against; see :class:`Judge`. Given, they must be tasks:
    a task alone (iterated, it gives its fields) or a list of anything else (paths, names) is
    refused in one line."""
    if tasks is not None and not isinstance(tasks, str | Path):
        fix = "pass a task directory, or a list of tasks: TaskSet.load(DIR).tasks"
        if isinstance(tasks, Task) or not isinstance(tasks, Iterable):
            raise InputError(f"tasks is one {type(tasks).__name__}", field="tasks", fix=fix)
        given = list(tasks)
        wrong = [t for t in given if not isinstance(t, Task)]
        if wrong:
            shown = type(wrong[0]).__name__
            raise InputError(f"tasks holds a {shown}, not a Task", field="tasks", fix=fix)
        return given
    from assay.tasks import TaskSet  # noqa: PLC0415

    return list(TaskSet.load(_directory(tasks)).tasks)


def _directory(tasks: str | Path | None) -> Path:
    """The directory ``tasks`` names, or for None the one in ``ASSAY_TASKS``."""
    if tasks is None:
        where = os.environ.get("ASSAY_TASKS")
        if not where:
            raise InputError(
                "no task set: none given and ASSAY_TASKS is not set",
                field="tasks",
                fix="pass tasks=DIR or set ASSAY_TASKS to the directory the dataset came from",
            )
        return Path(where)
    return Path(tasks)


def _by_id(tasks: Sequence[Task]) -> dict[str, Task]:
    return {task.id: task for task in tasks}


def _settled_load(root: Path, seen: bytes) -> tuple[dict[str, Task], bytes]:
    """The set under ``root`` as it is on disk, and what it looked like (``seen``) as it was
    loaded. A set still being written (a task saved is renamed into place, the one it replaces
    renamed away first) is loaded again once it settles; one that never does is loaded again by
    the next batch, its look left blank."""
    for _ in range(3):
        tasks = _by_id(load_tasks(root))
        settled = _fingerprint(root)
        if settled == seen:
            return tasks, seen
        seen = settled
    return tasks, b""


def _fingerprint(root: Path) -> bytes:
    """What changes when anything in the task set under ``root`` does: every entry's path,
    inode, size, and modification and change times, by stat alone (reading the files would cost
    what loading them does). Hidden entries of ``root`` itself (a task being saved is staged in
    one) are left out, as :class:`assay.tasks.TaskSet` leaves them out."""
    digest = hashlib.blake2b(digest_size=16)
    pending = [root]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as listed:
                entries = sorted(listed, key=lambda entry: entry.name)
            for entry in entries:
                if directory == root and entry.name.startswith("."):
                    continue
                found = entry.stat(follow_symlinks=False)
                digest.update(
                    f"{entry.path}\0{found.st_ino}\0{found.st_size}\0{found.st_mtime_ns}"
                    f"\0{found.st_ctime_ns}\n".encode(errors="surrogateescape")
                )
                if entry.is_dir(follow_symlinks=False):
                    pending.append(Path(entry.path))
        except OSError as exc:  # gone meanwhile, or unreadable: loading says which
            digest.update(f"{directory}\0{exc.errno}\n".encode(errors="surrogateescape"))
    return digest.digest()


_judges: dict[tuple[str, bool], Judge] = {}
_judges_lock = threading.Lock()


def judge_for(tasks_dir: str | Path, *, frozen: bool = False) -> Judge:
    """One :class:`Judge` per task directory (and ``frozen``) for the process (reward functions
    are called once per batch, and loading a set every time would cost more than judging it);
    it loads the directory again when it changes (see :meth:`Judge.judge`)."""
    key = (os.path.realpath(tasks_dir), frozen)
    with _judges_lock:
        if key not in _judges:
            _judges[key] = Judge(Path(tasks_dir), frozen=frozen)
        return _judges[key]


__all__ = [
    "RECHECK_S",
    "RETRIES",
    "Judge",
    "Judgement",
    "judge_for",
    "load_tasks",
    "neutral_scores",
]
