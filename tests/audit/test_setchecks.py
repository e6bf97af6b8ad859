"""The set checks: near-duplicate tasks are found by MinHash with LSH and the second of a pair is
quarantined; a frozen task copied into another split rejects the copy; a task found in an
external corpus is quarantined; a bad corpus is one line."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from assay.audit import run_audit, select_checks
from assay.errors import InputError
from assay.findings import Decision, Severity
from assay.sandbox import PoolSandbox
from assay.tasks import Split, Task, TaskSet, save_task
from assay.tasks.similarity import (
    _ROWS,
    _SIXTY_FOURS,
    _hashes,
    _signature,
    jaccard,
    near_duplicates,
    ngrams,
)
from tests.conftest import make_median_task

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


def task(task_id: str, prompt: str = PROMPT, split: Split = Split.TRAIN) -> Task:
    made = make_median_task(task_id, split=split)
    return made.model_copy(update={"prompt": prompt})


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
        tmp_path, [task("median-a"), task("median-b"), task("slug", OTHER)], "duplicates", pool
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
        [task("held", split=Split.FROZEN), task("leak", copied), task("slug", OTHER)],
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
