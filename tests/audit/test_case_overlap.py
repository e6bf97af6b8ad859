"""Copies found by their hidden cases need not have all of them: a renamed, reworded copy with a
case added, dropped or changed still shares most of them, and is a duplicate, or a leak of a
frozen task. Two tasks sharing only a few trivial cases are not copies, and the pairs are found
through an index, never by comparing every pair."""

from __future__ import annotations

import random

import pytest

from assay.audit import verifier_copies
from assay.audit.setchecks import ContaminationCheck, DuplicatesCheck
from assay.audit.verifier_copies import shared_verifiers, verifier_fingerprints
from assay.families.code.config import hidden_cases
from assay.families.repo.cases import CaseFile, Expect, RepoCase
from assay.findings import Severity
from assay.tasks import Split, Task
from tests.audit.test_setchecks import OTHER, renamed_copy, task, with_cases

Cases = list[tuple[list[object], object]]


def _cases(made: Task) -> Cases:
    return [(case.args, case.expected) for case in hidden_cases(made)]


def _ints(numbers: range) -> Cases:
    """A case for each number: its square."""
    return [([number], number * number) for number in numbers]


def _with(made: Task, cases: Cases, task_id: str, split: Split = Split.TRAIN) -> Task:
    spec = made.spec.model_copy(update={"id": task_id, "split": split})
    return with_cases(made, cases).model_copy(update={"spec": spec})


def test_a_renamed_copy_with_one_case_added_is_a_duplicate() -> None:
    original = task("wait-a")
    copy = renamed_copy(original, "wait-b")
    copy = with_cases(copy, [*_cases(copy), ([[1, 2, 3, 4, 100]], 3)], prefix="wait-")
    found = DuplicatesCheck().run_set([original, copy, task("slug", OTHER, shift=10)])
    assert set(found) == {"wait-a", "wait-b"}
    [finding] = found["wait-b"]
    assert finding.severity is Severity.WARNING
    assert finding.message == (
        "near duplicate of wait-a (judged by 5 shared cases of 5 and 6): keep one of the two"
    )
    assert finding.evidence is not None
    assert finding.evidence.startswith("wait-a and wait-b: both have case:")
    assert finding.evidence.endswith(" and 1 more")  # four named, the fifth counted


@pytest.mark.parametrize("change", ["added", "dropped", "changed"])
def test_a_frozen_task_copied_into_train_with_its_cases_edited_rejects_the_copy(
    change: str,
) -> None:
    held = _with(task("held"), _ints(range(10)), "held", Split.FROZEN)
    cases = _cases(renamed_copy(held, "leak"))
    edited = {
        "added": [*cases, ([99], 9801)],
        "dropped": cases[1:],
        "changed": [*cases[:-1], ([99], 9801)],
    }[change]
    leak = _with(renamed_copy(held, "leak"), edited, "leak")
    found = ContaminationCheck().run_set([held, leak, task("slug", OTHER, shift=10)])
    assert set(found) == {"leak"}
    [finding] = found["leak"]
    assert finding.severity is Severity.ERROR
    assert finding.message.startswith("copies frozen task held (judged by ")
    assert "shared cases of" in finding.message


def test_a_few_common_cases_do_not_make_a_copy() -> None:
    """Two cases in common (an empty list, a single value) of three are too few; four of five,
    or eight of ten, are not most of them; nine of ten are."""
    base = task("base")
    trivial = [([[]], None), ([[5]], 5)]
    small = [_with(base, [*trivial, ([[n, n + 1]], n + 0.5)], f"small-{n}") for n in (1, 3)]
    assert len(verifier_fingerprints(small[0]) & verifier_fingerprints(small[1])) == 2
    four_of_five = [
        _with(base, _ints(range(4)) + _ints(range(n, n + 1)), f"five-{n}") for n in (50, 60)
    ]
    eight_of_ten = [
        _with(base, _ints(range(8)) + _ints(range(n, n + 2)), f"ten-{n}") for n in (70, 80)
    ]
    assert shared_verifiers([*small, *four_of_five, *eight_of_ten]) == []
    nine_of_ten = [
        _with(base, _ints(range(9)) + _ints(range(n, n + 1)), f"nine-{n}") for n in (90, 95)
    ]
    [pair] = shared_verifiers(nine_of_ten)
    assert (pair.first, pair.second, len(pair.shared)) == ("nine-90", "nine-95", 9)
    assert pair.reason == "judged by 9 shared cases of 10 and 10"


def _repo_task(task_id: str, values: list[int]) -> Task:
    """A repo task whose hidden cases call ``module:function`` (named after the task) on each of
    ``values``."""
    module = task_id.replace("-", "_")
    cases = [
        RepoCase(
            id=f"{task_id}-{n}",
            kind="fail-to-pass",
            call=f"{module}:run",
            args=[value],
            expect=Expect(value=value * 2),
        )
        for n, value in enumerate(values)
    ]
    made = task(task_id)
    spec = made.spec.model_copy(update={"id": task_id, "family": "repo", "config": {}})
    return made.model_copy(
        update={"spec": spec, "hidden": {"cases.json": CaseFile(cases=cases).dumps()}}
    )


def test_a_repo_task_copied_with_a_case_added_is_a_duplicate() -> None:
    original = _repo_task("ledger", list(range(8)))
    copy = _repo_task("books", [*range(8), 100])
    other = _repo_task("queue", [*range(3), *range(200, 208)])
    [pair] = shared_verifiers([original, copy, other])
    assert (pair.first, pair.second) == ("books", "ledger")
    assert pair.reason == "judged by 8 shared cases of 9 and 8"


def test_the_index_finds_exactly_the_pairs_that_share_most_cases(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Against every pair compared: random tasks drawing their cases from a small pool (so that
    many share some), common cases held by every task, and planted copies."""
    rng = random.Random(5)
    common = {f"case:common-{n}" for n in range(3)}
    prints: dict[str, set[str]] = {}
    for n in range(300):
        drawn = {f"case:{rng.randrange(60)}" for _ in range(rng.randrange(1, 12))}
        prints[f"t{n:03}"] = drawn | (common if n % 2 else set())
    for n in range(0, 300, 15):  # copies with a case added or dropped
        source = sorted(prints[f"t{n:03}"])
        prints[f"c{n:03}"] = set(source[1:]) if n % 2 else {*source, f"case:new-{n}"}
    monkeypatch.setattr(verifier_copies, "verifier_fingerprints", lambda made: prints[made.id])
    base = task("base")
    tasks = [_renamed(base, task_id) for task_id in prints]
    found = {(pair.first, pair.second) for pair in shared_verifiers(tasks)}

    def copies(a: str, b: str) -> bool:
        shared = len(prints[a] & prints[b])
        return shared >= max(3, min(len(prints[a]), len(prints[b])) * 80 // 100 + 1)

    # every task against the earlier ones that copy none before them: the first it copies
    originals: list[str] = []
    expected = set()
    for task_id in sorted(prints):
        original = next((other for other in originals if copies(other, task_id)), None)
        if original is None:
            originals.append(task_id)
        else:
            expected.add((original, task_id))
    assert found == expected
    assert len(found) > 20
    planted = {f"t{n:03}" for n in range(0, 300, 15) if len(prints[f"t{n:03}"]) > 3}
    assert planted <= {copy for _, copy in found}


def _renamed(made: Task, task_id: str) -> Task:
    return made.model_copy(update={"spec": made.spec.model_copy(update={"id": task_id})})
