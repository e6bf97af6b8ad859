"""The set checks: near-duplicate tasks are found by MinHash with LSH and the second of a pair is
quarantined; a frozen task copied into another split rejects the copy; a task found in an
external corpus is quarantined; a bad corpus is one line. Tasks judged by the same verifier data
(hidden cases, or a reference the same up to renaming) are copies however they are worded; two
tasks of one generator template are not."""

from __future__ import annotations

import json
import os
import random
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from assay.audit import run_audit, select_checks, setchecks
from assay.audit.setchecks import ContaminationCheck, DuplicatesCheck
from assay.audit.verifier_copies import shared_verifiers, verifier_fingerprints
from assay.errors import InputError
from assay.families.code.casefile import Case, cases_json
from assay.families.code.config import hidden_cases
from assay.families.code.fingerprints import reference_fingerprint
from assay.families.code.generator import _make_task
from assay.families.code.templates import TEMPLATES
from assay.findings import Decision, Severity
from assay.sandbox import PoolSandbox
from assay.tasks import Split, Task, TaskSet, save_task
from assay.tasks.similarity import (
    _ROWS,
    _SIXTY_FOURS,
    _hashes,
    _signature,
    first_copies,
    jaccard,
    near_duplicates,
    ngrams,
)
from tests.conftest import CASES, REFERENCE, make_median_task

Run = Callable[..., Result]

PROMPT = (
    "Write `median(values)` in solution.py: the median of a list of numbers, the mean of the "
    "two middle values for even lengths, None for an empty list. Values may be negative or "
    "floats, and the list must not be changed in place.\n"
)
OTHER = (
    "Write `slugify(title)` in solution.py: lowercase ASCII words joined by single hyphens, "
    "accents folded, everything else dropped; an empty title gives an empty string.\n"
)


def task(task_id: str, prompt: str = PROMPT, split: Split = Split.TRAIN, shift: int = 0) -> Task:
    """A median task with ``prompt``; with ``shift``, its own hidden cases (every value moved by
    it), so that it is judged apart from the others."""
    made = make_median_task(task_id, split=split)
    if shift:
        made = with_cases(made, [_shifted(args, want, shift) for args, want in CASES])
    return made.model_copy(update={"prompt": prompt})


def _shifted(args: list[object], want: object, shift: int) -> tuple[list[object], object]:
    values = [value + shift for value in args[0]]  # type: ignore[attr-defined]
    return [values], None if want is None else want + shift  # type: ignore[operator]


def with_cases(made: Task, cases: list[tuple[list[object], object]], prefix: str = "case-") -> Task:
    written = [
        Case(id=f"{prefix}{i}", args=args, expected=want) for i, (args, want) in enumerate(cases)
    ]
    return made.model_copy(update={"hidden": {"cases.json": cases_json(written)}})


RENAMED_REFERENCE = REFERENCE.replace(b"median", b"middle_wait").replace(b"values", b"minutes")
RENAMED_PROMPT = (
    "The clinic's board shows a typical wait: implement `middle_wait(minutes)` (solution.py), "
    "which orders the minutes and gives back the central one, or for an even count the average "
    "of the central pair; an empty list gives None.\n"
)


def renamed_copy(original: Task, task_id: str, split: Split = Split.TRAIN) -> Task:
    """``original`` with its function and variables renamed, its prompt reworded, its cases
    renamed and reordered: the same task to anyone who runs it."""
    spec = original.spec.model_copy(
        update={"id": task_id, "split": split, "config": {"function": "middle_wait"}}
    )
    cases = [(case.args, case.expected) for case in reversed(hidden_cases(original))]
    copied = with_cases(original, cases, prefix="wait-")
    return copied.model_copy(
        update={
            "spec": spec,
            "prompt": RENAMED_PROMPT,
            "solutions": {"reference": {"solution.py": RENAMED_REFERENCE}},
        }
    )


def audit(
    tmp_path: Path, tasks: list[Task], names: str, pool: PoolSandbox, corpus: Path | None = None
):  # type: ignore[no-untyped-def]
    for made in tasks:
        save_task(made, tmp_path / "tasks")
    taskset = TaskSet.load(tmp_path / "tasks")
    report = run_audit(taskset, pool, checks=select_checks(names, corpus))
    return {t.task_id: t for t in report.tasks}, report


def test_near_duplicates_survive_rewording_and_distinct_texts_are_not_paired() -> None:
    reworded = PROMPT.upper().replace(",", " ;").replace("\n", "  \n\n")
    texts = {"a": PROMPT, "b": reworded, "c": OTHER, "d": PROMPT + " Round nothing."}
    pairs = near_duplicates(texts, 0.8)
    assert [(p.first, p.second) for p in pairs] == [("a", "b"), ("a", "d"), ("b", "d")]
    for pair in pairs:  # measured exactly: LSH finds candidates, never reports a guess
        assert pair.similarity == jaccard(
            ngrams(texts[pair.first], 3), ngrams(texts[pair.second], 3)
        )
        assert pair.similarity >= 0.8
    assert near_duplicates(texts, 0.8) == pairs  # the same on every run


def test_minhash_finds_every_pair_above_the_threshold_among_many_texts() -> None:
    """Forty texts of 200 random words, each with a copy that has a few words replaced (Jaccard
    over 0.8 but under 1): LSH makes every such pair a candidate, and no unrelated pair is
    reported. The signatures agree in about the share of positions the Jaccard says."""
    rng = random.Random(7)
    vocabulary = [f"w{i}" for i in range(5000)]
    texts: dict[str, str] = {}
    for index in range(40):
        words = [rng.choice(vocabulary) for _ in range(200)]
        texts[f"t{index:02d}"] = " ".join(words)
        for at in rng.sample(range(200), 4):
            words[at] = rng.choice(vocabulary)
        texts[f"t{index:02d}-copy"] = " ".join(words)
    pairs = near_duplicates(texts, 0.8)
    assert [(p.first, p.second) for p in pairs] == [
        (f"t{index:02d}", f"t{index:02d}-copy") for index in range(40)
    ]
    assert all(0.8 <= p.similarity < 1 for p in pairs)
    agreement, measured = [], []
    for pair in pairs:
        first = _signature(ngrams(texts[pair.first], 3))
        second = _signature(ngrams(texts[pair.second], 3))
        agreement.append(sum(a == b for a, b in zip(first, second, strict=True)) / len(first))
        measured.append(pair.similarity)
    assert abs(sum(agreement) / len(agreement) - sum(measured) / len(measured)) < 0.05
    unrelated = _signature(ngrams(texts["t00"], 3)), _signature(ngrams(texts["t01"], 3))
    assert sum(a == b for a, b in zip(*unrelated, strict=True)) <= 2


def test_a_duplicate_pair_quarantines_the_second(tmp_path: Path, pool: PoolSandbox) -> None:
    tasks, report = audit(
        tmp_path,
        [task("median-a"), task("median-b"), task("slug", OTHER, shift=10)],
        "duplicates",
        pool,
    )
    assert report.checks == ("duplicates",)
    assert tasks["median-a"].decision is Decision.ACCEPTED
    assert [f.severity for f in tasks["median-a"].findings] == [Severity.INFO]
    assert tasks["median-b"].decision is Decision.QUARANTINED
    assert tasks["median-b"].findings[0].message.startswith("near duplicate of median-a")
    assert tasks["slug"].decision is Decision.ACCEPTED
    assert tasks["slug"].findings == ()


def test_a_frozen_task_copied_into_train_rejects_the_copy(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    copied = PROMPT.replace("Write", "Please write")
    tasks, _ = audit(
        tmp_path,
        [task("held", split=Split.FROZEN), task("leak", copied), task("slug", OTHER, shift=10)],
        "contamination",
        pool,
    )
    assert tasks["held"].decision is Decision.ACCEPTED
    assert tasks["leak"].decision is Decision.REJECTED
    finding = tasks["leak"].findings[0]
    assert finding.severity is Severity.ERROR
    assert finding.message.startswith("copies frozen task held (")
    assert tasks["slug"].decision is Decision.ACCEPTED


def test_tasks_found_in_a_corpus_are_quarantined(tmp_path: Path, pool: PoolSandbox) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "dump.jsonl").write_text(json.dumps({"prompt": PROMPT}) + "\n")
    (corpus / "noise.txt").write_bytes(b"\xff\xfe unrelated words " * 100)
    tasks, _ = audit(
        tmp_path, [task("median-a"), task("slug", OTHER)], "contamination", pool, corpus
    )
    assert tasks["median-a"].decision is Decision.QUARANTINED
    assert "in the corpus" in tasks["median-a"].findings[0].message
    assert tasks["slug"].decision is Decision.ACCEPTED


@pytest.mark.parametrize(
    ("names", "corpus", "message"),
    [
        ("contamination", "missing", "--corpus: no such file or directory"),
        ("contamination", "empty", "--corpus: the corpus holds no file"),
        ("duplicates", "empty", "--corpus: only the contamination check reads a corpus"),
    ],
)
def test_a_bad_corpus_is_one_line(tmp_path: Path, names: str, corpus: str, message: str) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError) as caught:
        select_checks(names, tmp_path / corpus)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_command_line_reads_a_corpus(run_cli: Run, tmp_path: Path) -> None:
    save_task(task("median-a"), tmp_path / "tasks")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(PROMPT)
    report_path = tmp_path / "report.json"
    ran = run_cli(
        "audit",
        str(tmp_path / "tasks"),
        "--checks",
        "contamination",
        "--corpus",
        str(corpus),
        "--json",
        str(report_path),
    )
    assert ran.exit_code == 0, ran.output  # quarantined and listed; nothing rejected
    assert "  median-a: contamination: 100% of its 8-word n-grams are in the corpus" in ran.output
    report = json.loads(report_path.read_text())
    assert report["tasks"][0]["decision"] == "quarantined"


def test_a_long_texts_signature_is_taken_in_parts_and_is_the_same() -> None:
    """A text of more shingles than are hashed at once gets the signature of all of them: the
    least value of each hash function over every shingle, not only over the last part."""
    rng = random.Random(11)
    shingled = ngrams(" ".join(f"w{rng.randrange(50_000)}" for _ in range(3 * _ROWS)), 3)
    assert len(shingled) > 2 * _ROWS
    rows = [_SIXTY_FOURS.unpack(_hashes(shingle)) for shingle in shingled]
    assert _signature(shingled) == tuple(map(min, zip(*rows, strict=True)))
    assert _signature(set()) == (0,) * len(rows[0])


def test_a_renamed_and_reworded_copy_is_a_duplicate_by_its_hidden_cases() -> None:
    original = task("wait-a")
    copy = renamed_copy(original, "wait-b")
    assert near_duplicates({"a": original.prompt, "b": copy.prompt}) == []  # the words differ
    found = DuplicatesCheck().run_set([original, copy, task("slug", OTHER, shift=10)])
    assert set(found) == {"wait-a", "wait-b"}
    [finding] = found["wait-b"]
    assert finding.severity is Severity.WARNING
    assert finding.review
    assert (
        finding.message
        == "near duplicate of wait-a (judged by the same cases): keep one of the two"
    )
    assert finding.evidence is not None
    assert finding.evidence.startswith("wait-a and wait-b: both have case:")
    assert [f.severity for f in found["wait-a"]] == [Severity.INFO]


def test_a_paraphrased_frozen_task_copied_into_train_rejects_the_copy(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    held = task("held", split=Split.FROZEN)
    tasks, _ = audit(
        tmp_path,
        [held, renamed_copy(held, "leak"), task("slug", OTHER, shift=10)],
        "contamination",
        pool,
    )
    assert tasks["held"].decision is Decision.ACCEPTED
    assert tasks["leak"].decision is Decision.REJECTED
    [finding] = tasks["leak"].findings
    assert finding.severity is Severity.ERROR
    assert finding.message.startswith("copies frozen task held (judged by the same cases)")
    assert tasks["slug"].decision is Decision.ACCEPTED


def test_two_cases_and_a_tiny_reference_are_too_little_to_call_a_copy() -> None:
    tiny = {"reference": {"solution.py": b"def median(values):\n    return sorted(values)[0]\n"}}
    few = [
        with_cases(task(f"few-{n}", prompt), CASES[:2]).model_copy(update={"solutions": tiny})
        for n, prompt in enumerate((PROMPT, OTHER))
    ]
    assert verifier_fingerprints(few[0]) == set()
    assert DuplicatesCheck().run_set(few) == {}
    held = few[0].model_copy(
        update={"spec": few[0].spec.model_copy(update={"split": Split.FROZEN})}
    )
    assert ContaminationCheck().run_set([held, few[1]]) == {}


def test_a_reference_is_fingerprinted_up_to_renaming_and_not_when_tiny() -> None:
    documented = REFERENCE.replace(b"):\n", b'):\n    """The middle value."""\n', 1)
    assert reference_fingerprint(RENAMED_REFERENCE) == reference_fingerprint(REFERENCE)
    assert reference_fingerprint(documented) == reference_fingerprint(REFERENCE)
    reordered = REFERENCE.replace(
        b"middle - 1] + ordered[middle]", b"middle] + ordered[middle - 1]"
    )
    assert reference_fingerprint(reordered) != reference_fingerprint(REFERENCE)
    assert reference_fingerprint(b"def f(x):\n    return sorted(x)[0]\n") is None
    assert reference_fingerprint(b"def f(:\n") is None
    # a task judged by too few cases to fingerprint is known by its reference
    original, copy = (
        with_cases(made, CASES[:2]) for made in (task("a"), renamed_copy(task("a"), "b"))
    )
    assert verifier_fingerprints(original) == verifier_fingerprints(copy)
    assert {mark.partition(":")[0] for mark in verifier_fingerprints(original)} == {"reference"}


def test_two_tasks_of_one_template_are_not_copies(pool: PoolSandbox) -> None:
    """The generator writes every task of a template variant with one reference (its names
    aside) and draws part of the cases at random: such tasks are not copies of each other."""
    template = next(t for t in TEMPLATES if t.id == "round-divide")
    pair = [_make_task(template, 7, index, pool) for index in (0, 1)]
    first, second = pair
    assert first.id != second.id
    mine, theirs = verifier_fingerprints(first), verifier_fingerprints(second)
    assert mine
    assert len(mine & theirs) <= 0.8 * min(len(mine), len(theirs))  # the template's fixed ones
    assert shared_verifiers([first, second]) == []
    same = [reference_fingerprint(made.solutions["reference"]["solution.py"]) for made in pair]
    assert same[0] is not None
    assert same[0] == same[1]  # one template's reference: the reason it does not count alone


def test_hundreds_of_identical_tasks_are_one_finding_each(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    """A set of one task written 300 times (a generator stuck on one draw), a third of them in
    the frozen split: every copy but the first frozen one is held, each by one finding naming
    the one it copies, and the first notes them all in one (one finding a pair made half a
    million findings and gigabytes of a thousand such tasks)."""
    original = task("t000")
    made = [
        original.model_copy(
            update={
                "spec": original.spec.model_copy(
                    update={"id": f"t{n:03}", "split": Split.FROZEN if n % 3 else Split.TRAIN}
                )
            }
        )
        for n in range(300)
    ]
    tasks, _ = audit(tmp_path, made, "duplicates,contamination", pool)
    assert tasks["t001"].decision is Decision.ACCEPTED  # the first frozen one
    [note] = tasks["t001"].findings
    assert note.severity is Severity.INFO
    assert note.message.startswith("299 tasks are near duplicates of this task: t000 (")
    assert note.message.endswith(" and 295 more")
    for n in range(2, 300):
        audited = tasks[f"t{n:03}"]
        by_check = [f.check for f in audited.findings]
        if n % 3:
            assert audited.decision is Decision.QUARANTINED, n
            assert by_check == ["duplicates"], n
        else:
            assert audited.decision is Decision.REJECTED, n
            assert sorted(by_check) == ["contamination", "duplicates"], n
        assert audited.findings[0].message.startswith("near duplicate of t001 (Jaccard"), n
    [copied] = [f for f in tasks["t000"].findings if f.check == "contamination"]
    assert copied.message.startswith("copies frozen task t001 (100% of its 8-word n-grams;")


def test_a_templates_prompts_that_differ_in_a_number_are_one_finding_each(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    """300 tasks of one template whose prompts differ only in a number, each judged by cases of
    its own: every one is a near duplicate of the first, and only of it (each pair a finding
    made 300 findings on the last of them, and 500,000 and a gigabyte of a thousand such)."""
    made = [
        task(f"t{n:03}", f"{PROMPT}Use at most {n + 10} comparisons.\n", shift=n + 1)
        for n in range(300)
    ]
    tasks, _ = audit(tmp_path, made, "duplicates", pool)
    [note] = tasks["t000"].findings
    assert note.message.startswith("299 tasks are near duplicates of this task: t001 (Jaccard")
    for n in range(1, 300):
        [finding] = tasks[f"t{n:03}"].findings
        assert finding.message.startswith("near duplicate of t000 (Jaccard similarity 0.9"), n
        assert tasks[f"t{n:03}"].decision is Decision.QUARANTINED


def test_a_task_near_a_copy_but_not_its_original_is_kept() -> None:
    """Of three prompts where the second is near both others but the first and the third are
    not near each other, the second is the copy: without it, the two left are no duplicates."""
    words = [f"w{n}" for n in range(60)]
    first = " ".join(words[:50])
    second = " ".join(words[5:55])
    third = " ".join(words[10:60])
    assert jaccard(*(ngrams(text, 3) for text in (first, third))) < 0.8
    assert [
        (p.first, p.second) for p in first_copies([("a", first), ("b", second), ("c", third)])
    ] == [("a", "b")]


def test_a_templates_tasks_that_share_most_cases_are_one_finding_each(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    """300 tasks of one template worded apart, judged by the same nine cases and one of their
    own: each is a copy of the first alone (each pair a finding made 299 on the last)."""
    fixed: list[tuple[list[object], object]] = [([[n, n + 2, n + 1]], n + 1) for n in range(9)]
    made = [
        with_cases(
            task(f"t{n:03}", f"{' '.join(f'w{n}x{k}' for k in range(12))}\n"),
            [*fixed, ([[1000 + n]], 1000 + n)],
        )
        for n in range(300)
    ]
    tasks, _ = audit(tmp_path, made, "duplicates", pool)
    [note] = tasks["t000"].findings
    assert note.message.startswith("299 tasks are near duplicates of this task: t001 (judged by")
    for n in range(1, 300):
        [finding] = tasks[f"t{n:03}"].findings
        assert finding.message == (
            "near duplicate of t000 (judged by 9 shared cases of 10 and 10): keep one of the two"
        )


def test_a_corpus_is_read_without_holding_its_n_grams(tmp_path: Path) -> None:
    """Six MiB of corpus text, a task's prompt in its middle across a read's edge: the task is
    found, and what the check holds is the tasks' n-grams, not the corpus's (a corpus's were all
    held, some 40 bytes of memory a byte of text: the 512 MiB allowed took 20 GB)."""
    rng = random.Random(11)
    vocabulary = [f"v{n}" for n in range(40_000)]
    filler = " ".join(rng.choice(vocabulary) for _ in range(500_000))
    corpus = tmp_path / "dump.txt"
    corpus.write_text(f"{filler[: (1 << 18) - 40]} {PROMPT} {filler}")
    found_in = task("found")
    apart = task("apart", OTHER, shift=10)
    tracemalloc.start()
    try:
        found = ContaminationCheck(corpus).run_set([found_in, apart])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [f.message.split(" of ")[0] for f in found["found"]] == ["100%"]
    assert "apart" not in found
    assert peak < 40 * 2**20, peak


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64])
def test_a_corpus_read_in_chunks_has_the_n_grams_of_its_whole_text(
    tmp_path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Words, multi-byte characters and bad bytes cut by a read's edge: the n-grams found are
    those of the file's whole text, a text shorter than eight words one n-gram."""
    monkeypatch.setattr(setchecks, "_CHUNK", chunk)
    rng = random.Random(chunk)
    alphabet = ["a", "b", "é", "ß", "中", " ", " ", "\n", ",", "-", "_", "1", "\x00"]
    for trial in range(60):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 200)))
        corpus = tmp_path / f"{trial}.txt"
        corpus.write_bytes(text.encode() + (b"\xff" if trial % 4 == 0 else b""))
        whole = ngrams(corpus.read_bytes().decode(errors="replace"), 8)
        assert setchecks._in_corpus([corpus], whole | {"not there"}) == whole, text


def test_an_unreadable_corpus_file_is_refused_before_the_audit(tmp_path: Path) -> None:
    """A corpus file that cannot be opened is one line when the checks are chosen, not after
    every task was audited (the corpus is read at the end, by the set checks)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "dump.txt").write_text(PROMPT)
    private = corpus / "private.txt"
    if os.geteuid() == 0:  # root reads any file but a write-only attribute of the kernel's
        private.symlink_to("/sys/bus/pci/rescan")
    else:
        private.write_text(PROMPT)
        private.chmod(0)
    with pytest.raises(InputError) as caught:
        select_checks("contamination", corpus)
    assert str(caught.value).startswith(f"{private}: --corpus: cannot read it: Permission denied")
