"""A planted set of broken tasks (``tests/audit/broken_tasks/``), each caught by the check that
should catch it, and the sound tasks beside them left alone:

- ``reference-fails``: the reference forgets the even case (reference);
- ``known-bad-passes``: a "known-bad" solution that is the reference (known-bad);
- ``leaked-expected``: the prompt shows a hidden case with its answer (lint);
- ``type-only-checker``: a checker that looks only at the output's type (red-team: a constant
  answer passes);
- ``one-expected-value``: every hidden case expects 7, so ``return 7`` passes (red-team: the
  constant most cases expect);
- ``shape-only-checker``: a top-k checker that looks only at the answer's length and where its
  items come from, so any k scores of the input pass (checker-crash: a near miss of the same
  length);
- ``blind-tolerance``: a float tolerance so wide no value is checked (sensitivity);
- ``flaky-clock``: a reference right only in UTC (flaky);
- ``duplicate-first`` / ``duplicate-second``: one prompt twice (duplicates: the second);
- ``frozen-held-out`` / ``frozen-copy-in-train``: a frozen task reworded into train
  (contamination: the copy);
- ``renamed-first`` / ``renamed-second``: one task again with its function and variables
  renamed, its prompt reworded and its case ids changed; the hidden cases are the same
  (duplicates, by the verifier data: the second);
- ``sound``: nothing wrong.

The tasks that must stay apart have hidden cases of their own: two tasks judged by the same
cases are duplicates whatever their prompts say.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.audit import run_audit
from assay.findings import Decision, Severity
from assay.sandbox import PoolSandbox
from assay.tasks import TaskSet

BROKEN = Path(__file__).parent / "broken_tasks"

EXPECTED: dict[str, tuple[Decision, str | None]] = {
    "reference-fails": (Decision.REJECTED, "reference"),
    "known-bad-passes": (Decision.REJECTED, "known-bad"),
    "leaked-expected": (Decision.REJECTED, "lint"),
    "type-only-checker": (Decision.REJECTED, "red-team"),
    "one-expected-value": (Decision.REJECTED, "red-team"),
    "shape-only-checker": (Decision.QUARANTINED, "checker-crash"),
    "blind-tolerance": (Decision.REJECTED, "sensitivity"),
    "flaky-clock": (Decision.QUARANTINED, "flaky"),
    "duplicate-second": (Decision.QUARANTINED, "duplicates"),
    "frozen-copy-in-train": (Decision.REJECTED, "contamination"),
    "renamed-second": (Decision.QUARANTINED, "duplicates"),
    "duplicate-first": (Decision.ACCEPTED, None),
    "frozen-held-out": (Decision.ACCEPTED, None),
    "renamed-first": (Decision.ACCEPTED, None),
    "sound": (Decision.ACCEPTED, None),
}


@pytest.mark.sandbox
def test_each_planted_defect_is_caught_by_its_check(pool: PoolSandbox) -> None:
    report = run_audit(TaskSet.load(BROKEN), pool)
    audits = {task.task_id: task for task in report.tasks}
    assert set(audits) == set(EXPECTED)
    for task_id, (decision, check) in EXPECTED.items():
        audited = audits[task_id]
        assert audited.decision is decision, (task_id, audited.findings)
        serious = {f.check for f in audited.findings if f.severity is not Severity.INFO}
        if check is None:
            assert serious == set(), task_id
        else:
            assert check in serious, (task_id, audited.findings)
    # the renamed copy is found by what judges it: its prompt shares too few words to be
    copied = [f.message for f in audits["renamed-second"].findings if f.check == "duplicates"]
    assert copied == [
        "near duplicate of renamed-first (judged by the same cases): keep one of the two"
    ]
    # the checks that catch one defect do not cry wolf on the others
    for task_id, (_, check) in EXPECTED.items():
        for finding in audits[task_id].findings:
            if finding.check in {"flaky", "sensitivity", "contamination"}:
                assert finding.check == check, (task_id, finding)
