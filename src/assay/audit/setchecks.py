"""Checks over a whole task set rather than one task: near duplicates and contamination.

A set check returns findings per task id; the audit adds them to the tasks' audits after the
per-task checks ran. An error finding rejects the task; a finding that needs a person
(``review``) quarantines an accepted task until a person reviews it, as a 0% pass rate does.

- ``duplicates``: near-duplicate tasks inside the set (MinHash with LSH over word 3-grams of the
  prompts, then the exact Jaccard similarity, each prompt against the earlier ones that are no
  copies themselves: :func:`assay.tasks.similarity.first_copies`), or tasks judged by the
  same verifier data (:mod:`assay.audit.verifier_copies`: most of the same hidden cases, or
  for a task with too few, the same reference up to renaming; however the prompt is worded):
  the second of each pair by id (of a pair across the frozen split, the one outside it) is
  quarantined; training twice on one task weighs it double, and a duplicate across splits
  leaks.
- ``contamination``: a task of the ``frozen`` split whose word 8-grams are mostly found in a task
  of another split, or most of whose verifier data a task of another split shares, has been
  copied out of the held-out set: the copy is an error (it trains on the test), whatever the
  frozen task's own audit found (the runner gives this check every frozen task). With a corpus
  (``assay audit --corpus PATH``: a file or a directory of text files, such as a benchmark's dump
  or a crawl sample), any task whose 8-grams are mostly in the corpus is quarantined: a model
  may have seen it. The finding names the corpus, so that a person's clearance of a task found
  in one corpus (a public dump) does not clear it when another (a held-out set's) holds it too.
  An audit kept in a store records a print of each frozen task it saw (:func:`frozen_print`:
  hashes of its prompt's n-grams and its verifier fingerprints); a later audit against the same
  store compares its tasks with the frozen tasks recorded and not in its own set, in the same
  way, so a frozen set audited apart from a train set, or a copy audited again without the
  frozen task beside it, is still caught.
"""

from __future__ import annotations

import codecs
import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from assay.audit.report import AuditReport, TaskAudit
from assay.audit.verifier_copies import (
    SharedVerifier,
    case_fingerprints,
    held_first,
    judged_alike,
    needed_cases,
    shared_verifiers,
    verifier_fingerprints,
)
from assay.errors import InputError
from assay.findings import Decision, Finding, Severity
from assay.tasks.model import Task
from assay.tasks.similarity import DUPLICATE_SIMILARITY, first_copies, ngrams, words
from assay.tasks.spec import Split

if TYPE_CHECKING:
    from assay.store.records import FrozenPrint

CONTAMINATION_WORDS = 8
"""Words in the n-grams compared for contamination."""
CONTAMINATION_SHARE = 0.5
"""Share of a task's n-grams found elsewhere from which it counts as copied."""
_NAMED = 4
"""Near duplicates of a task its note names; the others are counted."""
CORPUS_MAX_BYTES = 512 * 1024 * 1024
"""A corpus larger than this is refused: it is read through, a chunk at a time, by every audit."""


@runtime_checkable
class SetCheck(Protocol):
    """A check over the whole task set."""

    name: str

    def run_set(self, tasks: Sequence[Task]) -> dict[str, list[Finding]]:
        """Findings by task id; tasks without any are left out."""
        ...


def task_text(task: Task) -> str:
    """What the set checks compare: the prompt, what a model sees. (Two wordings of one problem
    share most of their reference, so comparing references would call them duplicates.)"""
    return task.prompt


@dataclass
class _Copy:
    """Why one task of a pair counts as a copy of the other, as the findings say it."""

    reasons: list[str] = field(default_factory=list)
    shared: str = ""
    """The verifier fingerprints both tasks have, as the evidence shows them; empty if none."""

    def add_verifier(self, shared: SharedVerifier) -> None:
        if shared.reason not in self.reasons:
            self.reasons.append(shared.reason)
        self.shared = f": {shared.evidence}"


class DuplicatesCheck:
    """No two tasks of the set are near duplicates, in their prompts or in their verifiers."""

    name = "duplicates"

    def run_set(self, tasks: Sequence[Task]) -> dict[str, list[Finding]]:
        """Quarantine the second task of each near-duplicate pair; note the first. A prompt is
        compared with the earlier ones (:func:`held_first`) that are no copies themselves, and
        is a copy of the first it is near (:func:`first_copies`); of tasks with the very same
        verifier data, each is a copy of the first alone: a thousand copies of one task are a
        thousand findings, not half a million."""
        frozen = {task.id for task in tasks if task.spec.split is Split.FROZEN}
        pairs: defaultdict[tuple[str, str], _Copy] = defaultdict(_Copy)
        texts = ((task.id, task_text(task)) for task in sorted(tasks, key=held_first))
        for pair in first_copies(texts, DUPLICATE_SIMILARITY):
            pairs[_ordered(pair.first, pair.second)].reasons.append(_jaccard_words(pair.similarity))
        for shared in shared_verifiers(tasks):
            pairs[shared.first, shared.second].add_verifier(shared)
        found: defaultdict[str, list[Finding]] = defaultdict(list)
        copied: defaultdict[str, list[str]] = defaultdict(list)
        for (first, second), why in sorted(pairs.items()):
            kept, copy = first, second
            if copy in frozen and kept not in frozen:  # the held-out task is the original
                kept, copy = copy, kept
            similar = "; ".join(why.reasons)
            found[copy].append(
                Finding(
                    check=self.name,
                    severity=Severity.WARNING,
                    review=True,
                    message=f"near duplicate of {kept} ({similar}): keep one of the two",
                    evidence=f"{kept} and {copy}{why.shared}",
                )
            )
            copied[kept].append(f"{copy} ({similar})")
        for kept, copies in copied.items():
            found[kept].append(self._original(copies))
        return dict(found)

    def _original(self, copies: list[str]) -> Finding:
        """The note on a task that ``copies`` (each its id and why) are near duplicates of."""
        if len(copies) == 1:
            copy, _, similar = copies[0].partition(" (")
            return Finding(
                check=self.name,
                severity=Severity.INFO,
                message=f"{copy} is a near duplicate of this task ({similar}",
            )
        more = len(copies) - _NAMED
        rest = f" and {more} more" if more > 0 else ""
        return Finding(
            check=self.name,
            severity=Severity.INFO,
            message=f"{len(copies)} tasks are near duplicates of this task: "
            f"{', '.join(copies[:_NAMED])}{rest}",
        )


def gram_hash(gram: str) -> str:
    """What a frozen task's print keeps of one of its n-grams: a hash, not the words."""
    return hashlib.blake2b(gram.encode(), digest_size=8).hexdigest()


def frozen_print(task: Task, task_version: str, run_id: str) -> FrozenPrint:
    """What a later audit needs to recognise a copy of the frozen ``task`` (of ``task_version``)
    that audit run ``run_id`` saw."""
    from assay.store.records import FrozenPrint  # noqa: PLC0415 - the store imports the audit

    return FrozenPrint(
        task_id=task.id,
        task_version=task_version,
        run_id=run_id,
        grams=frozenset(map(gram_hash, ngrams(task_text(task), CONTAMINATION_WORDS))),
        verifier=frozenset(verifier_fingerprints(task)),
    )


class ContaminationCheck:
    """No frozen task is copied into another split (its words or its verifier), nor any task
    found in the corpus."""

    name = "contamination"

    def __init__(self, corpus: Path | None = None, recorded: Sequence[FrozenPrint] = ()) -> None:
        self.corpus = corpus
        self._corpus_files = None if corpus is None else _corpus_files(corpus)
        self.recorded = tuple(recorded)
        """Frozen tasks earlier audits recorded, compared too where the set has none of their id
        in the frozen split."""

    def with_recorded(self, recorded: Sequence[FrozenPrint]) -> ContaminationCheck:
        """This check comparing the tasks with the frozen tasks ``recorded`` as well."""
        check = ContaminationCheck(recorded=recorded)
        check.corpus, check._corpus_files = self.corpus, self._corpus_files
        return check

    def run_set(self, tasks: Sequence[Task]) -> dict[str, list[Finding]]:
        """An error on each copy of a frozen task; a warning on each task found in the corpus."""
        grams = {task.id: ngrams(task_text(task), CONTAMINATION_WORDS) for task in tasks}
        found: defaultdict[str, list[Finding]] = defaultdict(list)
        held_by: defaultdict[str, list[tuple[str, _Copy]]] = defaultdict(list)
        recorded, uncounted = _recorded_copies(tasks, grams, self.recorded)
        for (held, copy_id), why in sorted((_frozen_copies(tasks, grams) | recorded).items()):
            held_by[copy_id].append((held, why))
        for copy_id, copied in held_by.items():
            (held, why), more = copied[0], len(copied) - 1 + uncounted.get(copy_id, 0)
            also = f" and {more} more frozen task{'s' if more > 1 else ''}" if more else ""
            found[copy_id].append(
                Finding(
                    check=self.name,
                    severity=Severity.ERROR,
                    message=f"copies frozen task {held} ({'; '.join(why.reasons)}){also}: "
                    "remove it, or it trains on the held-out set",
                    evidence=f"{held} (frozen) and {copy_id}{why.shared}"
                    + (f"; also {', '.join(h for h, _ in copied[1 : 1 + _NAMED])}" if more else ""),
                )
            )
        if self._corpus_files is not None:
            seen = _in_corpus(self._corpus_files, set().union(*grams.values()))
            for task in tasks:
                mine = grams[task.id]
                share = len(mine & seen) / len(mine) if mine else 0.0
                if share >= CONTAMINATION_SHARE:
                    found[task.id].append(
                        Finding(
                            check=self.name,
                            severity=Severity.WARNING,
                            review=True,
                            message=f"{share:.0%} of its {CONTAMINATION_WORDS}-word n-grams are "
                            f"in the corpus {self.corpus}: a model may have seen it; quarantined "
                            "for review",
                            evidence=str(self.corpus),
                        )
                    )
        return dict(found)


def _frozen_copies(
    tasks: Sequence[Task], grams: dict[str, set[str]]
) -> dict[tuple[str, str], _Copy]:
    """By (frozen task, task of another split), why the second copies the first: it holds
    most of the frozen task's n-grams, or it is judged by the same verifier data. Tasks with
    the very same n-grams are looked up as one: a task of another split is a copy where the
    first of its like is, of the first of the frozen tasks like the one it copies."""
    frozen = {task.id for task in tasks if task.spec.split is Split.FROZEN}
    others = [task for task in tasks if task.id not in frozen]
    same_words = _alike({task.id: frozenset(grams[task.id]) for task in others}, others)
    owners: defaultdict[str, set[str]] = defaultdict(set)
    for first in same_words:
        for gram in grams[first]:
            owners[gram].add(first)
    copies: defaultdict[tuple[str, str], _Copy] = defaultdict(_Copy)
    held_out = [task for task in tasks if task.id in frozen]
    for held in _alike({task.id: frozenset(grams[task.id]) for task in held_out}, held_out):
        for first, share in _shares(grams[held], owners).items():
            for copy_id in same_words[first]:
                copies[held, copy_id].reasons.append(
                    f"{share:.0%} of its {CONTAMINATION_WORDS}-word n-grams"
                )
    for shared in shared_verifiers(tasks):  # a copy of a frozen task is paired with one
        if shared.first in frozen and shared.second not in frozen:
            copies[shared.first, shared.second].add_verifier(shared)
        elif shared.second in frozen and shared.first not in frozen:
            copies[shared.second, shared.first].add_verifier(shared)
    return dict(copies)


def _recorded_copies(
    tasks: Sequence[Task], grams: dict[str, set[str]], recorded: Sequence[FrozenPrint]
) -> tuple[dict[tuple[str, str], _Copy], dict[str, int]]:
    """By (frozen task recorded, as ``<id> of audit run <run>``; task of another split), why
    the second copies the first, as :func:`_frozen_copies` has it, for the first recorded
    tasks by id that each task copies, as many as its finding names; and by task, how many
    more recorded tasks it copies. A recorded task of an id the set has in its frozen split is
    left to the set's own; one the set has in another split is compared with it too: a task
    held out and then moved to train leaks all the same."""
    frozen = {task.id for task in tasks if task.spec.split is Split.FROZEN}
    held_out = sorted(
        (held for held in recorded if held.task_id not in frozen), key=lambda h: h.task_id
    )
    others = [task for task in tasks if task.id not in frozen]
    copies: dict[tuple[str, str], _Copy] = {}
    more: defaultdict[str, int] = defaultdict(int)
    if not held_out or not others:
        return copies, dict(more)
    owners: defaultdict[str, list[str]] = defaultdict(list)
    for task in others:
        for hashed in {gram_hash(gram) for gram in grams[task.id]}:
            owners[hashed].append(task.id)
    prints = {task.id: verifier_fingerprints(task) for task in others}
    case_count = {task_id: len(case_fingerprints(mine)) for task_id, mine in prints.items()}
    by_mark: defaultdict[str, list[str]] = defaultdict(list)
    for task_id, mine in prints.items():
        for mark in mine:
            by_mark[mark].append(task_id)
    named: defaultdict[str, int] = defaultdict(int)
    for held in held_out:
        label = f"{held.task_id} of audit run {held.run_id}"
        shared = Counter(chain.from_iterable(owners.get(gram, ()) for gram in held.grams))
        by_words = {
            copy_id: count / len(held.grams)
            for copy_id, count in shared.items()
            if count / len(held.grams) >= CONTAMINATION_SHARE
        }
        held_cases = case_fingerprints(set(held.verifier))
        same_cases = Counter(chain.from_iterable(by_mark.get(mark, ()) for mark in held_cases))
        same_whole = {
            copy_id for mark in held.verifier - held_cases for copy_id in by_mark.get(mark, ())
        }
        by_verifier = same_whole | {
            copy_id
            for copy_id, count in same_cases.items()
            if count >= needed_cases(min(len(held_cases), case_count[copy_id]))
        }
        for copy_id in by_words.keys() | by_verifier:
            if named[copy_id] > _NAMED:
                more[copy_id] += 1
                continue
            named[copy_id] += 1
            why = copies[label, copy_id] = _Copy()
            if copy_id in by_words:
                why.reasons.append(
                    f"{by_words[copy_id]:.0%} of its {CONTAMINATION_WORDS}-word n-grams"
                )
            if copy_id in by_verifier:
                alike = judged_alike(label, set(held.verifier), copy_id, prints[copy_id])
                if alike is not None:
                    why.add_verifier(alike)
    return copies, dict(more)


def _alike(keys: dict[str, frozenset[str]], tasks: Sequence[Task]) -> dict[str, list[str]]:
    """The ids of ``tasks`` by the first of those with the very same non-empty ``keys``
    (:func:`held_first`), that one first; a task without keys is in none."""
    alike: dict[frozenset[str], list[str]] = {}
    for task in sorted(tasks, key=held_first):
        if keys[task.id]:
            alike.setdefault(keys[task.id], []).append(task.id)
    return {ids[0]: ids for ids in alike.values()}


def _ordered(one: str, other: str) -> tuple[str, str]:
    return (one, other) if one < other else (other, one)


def _jaccard_words(similarity: float) -> str:
    return f"Jaccard similarity {similarity:.2f} of word 3-grams"


def _shares(mine: set[str], owners: dict[str, set[str]]) -> dict[str, float]:
    """For each task holding some of ``mine``, the share of ``mine`` it holds, kept from
    :data:`CONTAMINATION_SHARE` up."""
    if not mine:
        return {}
    counts: defaultdict[str, int] = defaultdict(int)
    for gram in mine:
        for owner in owners.get(gram, ()):
            counts[owner] += 1
    return {
        owner: count / len(mine)
        for owner, count in sorted(counts.items())
        if count / len(mine) >= CONTAMINATION_SHARE
    }


def _corpus_files(corpus: Path) -> list[Path]:
    """The files of ``corpus`` (itself, or every file under it), refused in one line when there
    are none or they are more than :data:`CORPUS_MAX_BYTES` together."""
    if not corpus.exists():
        raise InputError(
            "no such file or directory",
            path=corpus,
            field="--corpus",
            fix="give a text file or a directory of text files",
        )
    files = [corpus] if corpus.is_file() else sorted(p for p in corpus.rglob("*") if p.is_file())
    if not files:
        raise InputError(
            "the corpus holds no file",
            path=corpus,
            field="--corpus",
            fix="give a text file or a directory of text files",
        )
    total = sum(path.stat().st_size for path in files)
    if total > CORPUS_MAX_BYTES:
        raise InputError(
            f"the corpus is {total / 2**20:.0f} MiB, more than {CORPUS_MAX_BYTES // 2**20} MiB",
            path=corpus,
            field="--corpus",
            fix="give a sample of it, or split it and audit against each part",
        )
    for path in files:  # before the audit, not after its tasks were checked
        try:
            path.open("rb").close()
        except OSError as exc:
            raise _unreadable(path, exc) from None
    return files


def _unreadable(path: Path, exc: OSError) -> InputError:
    return InputError(
        f"cannot read it: {exc.strerror or exc}",
        path=path,
        field="--corpus",
        fix="make it readable or leave it out",
    )


def _in_corpus(files: Sequence[Path], wanted: set[str]) -> set[str]:
    """Those of the n-grams ``wanted`` that a file of the corpus holds, each file read as UTF-8
    text (bad bytes replaced) a chunk of :data:`_CHUNK` bytes at a time: what is held is the
    tasks' n-grams, never the corpus's (those of 512 MiB of text took 20 GB)."""
    found: set[str] = set()
    for path in files:
        try:
            found |= _file_grams_in(path, wanted)
        except OSError as exc:
            raise _unreadable(path, exc) from None
    return found


def _file_grams_in(path: Path, wanted: set[str]) -> set[str]:
    """The n-grams of ``wanted`` in the file at ``path``, as :func:`ngrams` finds them in its
    whole text (a text shorter than :data:`CONTAMINATION_WORDS` words is one n-gram)."""
    found: set[str] = set()
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    carried: list[str] = []  # the last words, which begin n-grams the next chunk ends
    pending = ""  # the text after the last non-word character: a word may go on
    counted = 0
    with path.open("rb") as file:
        while True:
            chunk = file.read(_CHUNK)
            text = pending + decoder.decode(chunk, final=not chunk)
            cut = len(text) if not chunk else _last_break(text)
            tokens = carried + words(text[:cut])
            counted += len(tokens) - len(carried)
            pending = text[cut:]
            for at in range(len(tokens) - CONTAMINATION_WORDS + 1):
                gram = " ".join(tokens[at : at + CONTAMINATION_WORDS])
                if gram in wanted:
                    found.add(gram)
            carried = tokens[1 - CONTAMINATION_WORDS :]
            if not chunk:
                break
    if 0 < counted < CONTAMINATION_WORDS and " ".join(carried) in wanted:
        found.add(" ".join(carried))
    return found


def _last_break(text: str) -> int:
    """Where ``text`` may be cut with no word split: after its last non-word character (or
    anywhere in a run of word characters past :data:`_LONGEST_WORD`, which is no word)."""
    match = _LAST_BREAK.search(text)
    if match is None:
        return len(text) if len(text) > _LONGEST_WORD else 0
    return match.end()


_CHUNK = 1 << 18
"""Bytes of a corpus file read at a time."""
_LONGEST_WORD = 1 << 20
"""Word characters in a row from which a corpus file's text is cut anyway."""
_LAST_BREAK = re.compile(r"\W(?=\w*\Z)")


def apply_set_findings(
    report: AuditReport,
    name: str,
    found: dict[str, list[Finding]],
    *,
    ran_on: Collection[str] = (),
) -> AuditReport:
    """``report`` with a set check's findings added to its tasks and their decisions updated
    as :func:`assay.audit.report.decide` has them: an error rejects, a finding that needs a
    person (``review``) quarantines a task that was accepted, and nothing else moves it (a
    task held by a finding that names nothing to review could never be cleared). The tasks
    ``ran_on`` (those the check judged) have ``name`` among the checks that ran on them."""
    tasks = tuple(
        _ran(_apply(audited, found.get(audited.task_id, [])), name, audited.task_id in ran_on)
        for audited in report.tasks
    )
    return report.model_copy(update={"tasks": tasks, "checks": (*report.checks, name)})


def _ran(audited: TaskAudit, name: str, judged: bool) -> TaskAudit:
    if not judged or audited.checks_run is None:
        return audited
    return audited.model_copy(update={"checks_run": (*audited.checks_run, name)})


def _apply(audited: TaskAudit, findings: list[Finding]) -> TaskAudit:
    if not findings:
        return audited
    decision = audited.decision
    if any(f.severity is Severity.ERROR for f in findings):
        decision = Decision.REJECTED
    elif any(f.review for f in findings) and decision is Decision.ACCEPTED:
        decision = Decision.QUARANTINED
    return audited.model_copy(
        update={"findings": (*audited.findings, *findings), "decision": decision}
    )
