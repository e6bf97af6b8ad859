"""Code-family verification: correct work passes, and the known reward hacks win nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.families.code import CodeFamily
from assay.families.code.family import VERSION
from assay.sandbox import LocalSandbox, Sandbox
from assay.tasks import Limits, Task, save_task
from assay.verdicts import Status
from tests.conftest import REFERENCE, make_median_task, with_checker

family = CodeFamily()


def verify(task: Task, source: str | bytes, sandbox: Sandbox, **extra: bytes):  # type: ignore[no-untyped-def]
    code = source.encode() if isinstance(source, str) else source
    return family.verify(task, {"solution.py": code, **extra}, sandbox)


def test_reference_passes_with_one_criterion_per_case(median_task: Task, sandbox: Sandbox) -> None:
    verdict = verify(median_task, REFERENCE, sandbox)
    assert verdict.status is Status.PASS
    assert verdict.score == 1.0
    assert [c.name for c in verdict.criteria] == [f"case-{i}" for i in range(5)]
    assert verdict.versions.family == f"code@{VERSION}"
    assert verdict.versions.task == median_task.content_version(f"code@{VERSION}")


def test_known_bad_fails_with_evidence(median_task: Task, sandbox: Sandbox) -> None:
    verdict = verify(median_task, median_task.solutions["bad-unsorted"]["solution.py"], sandbox)
    assert verdict.status is Status.FAIL
    assert 0 < verdict.score < 1
    failed = [c for c in verdict.criteria if not c.passed]
    assert any("expected 2, got 1" in c.evidence for c in failed)


EXPLOITS = {
    "always-equal": """
class Anything:
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = object.__hash__
def median(values): return Anything()
""",
    "int-subclass-equal": """
class Sly(int):
    def __eq__(self, other): return True
def median(values): return Sly(0)
""",
    "sys-exit-at-import": "import sys\nsys.exit(0)\n",
    "os-exit-at-import": "import os\nos._exit(0)\n",
    "sys-exit-in-call": "import sys\ndef median(values):\n    sys.exit(0)\n",
    "print-passed": """
import sys
print("PASSED", flush=True)
print("===== 5 passed in 0.01s =====")
sys.__stdout__.write("ok\\nPASS\\n")
def median(values): return 0
""",
    "write-reward-files": """
import json, os
targets = ["reward.json", "reward.txt", "result.json", "/tmp/reward.json", "/workspace/r.txt"]
for path in targets:
    try:
        with open(path, "w") as handle:
            handle.write(json.dumps({"reward": 1.0, "status": "pass", "passed": True}))
    except OSError:
        pass
def median(values): return 0
""",
    "walk-gc-for-answers": """
import gc, sys
answers = [o for o in gc.get_objects() if isinstance(o, dict) and "expected" in o]
print("ANSWERS", len(answers), file=sys.stderr)
def median(values):
    for o in answers:
        if o.get("args") == [values]:
            return o["expected"]
    return None
""",
    "forge-runner-records": """
import gc, json, os
nonce = next(o["nonce"] for o in gc.get_objects() if isinstance(o, dict) and "nonce" in o)
for i in range(5):
    os.write(1, ("\\n" + nonce + json.dumps({"id": f"case-{i}", "value": 3}) + "\\n").encode())
os._exit(0)
""",
    "patch-builtins-and-stdlib": """
import builtins, json, copy, math, operator
builtins.isinstance = lambda *a: True
builtins.type = lambda *a: int
json.dumps = lambda *a, **k: '{"status": "pass"}'
json.loads = lambda *a, **k: {"status": "pass"}
copy.deepcopy = lambda x, *a: x
math.isclose = lambda *a, **k: True
operator.eq = lambda a, b: True
def median(values): return object()
""",
    "shadow-stdlib-module": "def median(values): return 0\n",
}


READ_FROM_DISK = """
import json, os, sys
found = []
for root in ["/workspace", "/tmp", "/proc/1/root/tmp"]:
    for seen, (base, dirs, files) in enumerate(os.walk(root)):
        dirs[:] = [] if seen > 2000 else dirs
        found += [os.path.join(base, n) for n in files if n == "cases.json"]
if os.path.exists(KNOWN_PATH):
    found = [KNOWN_PATH]
print("FOUND" if found else "nothing", found[:3], file=sys.stderr)
ANSWERS = {}
for path in found:
    for case in json.load(open(path))["cases"]:
        ANSWERS[json.dumps(case["args"])] = case["expected"]
def median(values):
    return ANSWERS.get(json.dumps([values]))
"""


def test_reading_hidden_files_from_the_host_wins_nothing(
    tmp_path: Path, median_task: Task, sandbox: Sandbox
) -> None:
    task_dir = save_task(median_task, tmp_path)
    attack = READ_FROM_DISK.replace("KNOWN_PATH", repr(str(task_dir / "hidden" / "cases.json")))
    verdict = verify(median_task, attack, sandbox)
    assert verdict.status is Status.FAIL
    assert "nothing" in verdict.logs
    # The same attack outside the sandbox finds the answers: the test is a real attack.
    unsandboxed = verify(median_task, attack, LocalSandbox())  # type: ignore[arg-type]
    assert unsandboxed.status is Status.PASS


@pytest.mark.parametrize("name", sorted(EXPLOITS))
def test_reward_hacks_fail(name: str, median_task: Task, sandbox: Sandbox) -> None:
    extra: dict[str, bytes] = {}
    if name == "shadow-stdlib-module":
        extra["json.py"] = b'def dumps(*a, **k): return \'{"id": "case-0", "value": 2}\'\n'
        extra["copy.py"] = b"raise SystemExit(0)\n"
    verdict = verify(median_task, EXPLOITS[name], sandbox, **extra)
    assert verdict.status is Status.FAIL, verdict.summary
    assert verdict.score < 0.5
    assert "FOUND" not in verdict.logs
    assert "ANSWERS 0" in verdict.logs or name != "walk-gc-for-answers"


@pytest.mark.parametrize(
    ("source", "evidence"),
    [
        ("def median(values) return 1\n", "SyntaxError"),
        ("import numpy_that_does_not_exist\n", "ModuleNotFoundError"),
        ("def median(values): raise RuntimeError('boom')\n", "RuntimeError: boom"),
        ("def mean(values): return 0\n", "AttributeError"),
        ("def median(values):\n    while True: pass\n", "time limit"),
    ],
)
def test_broken_candidates_fail_with_the_error_as_evidence(
    source: str, evidence: str, sandbox: Sandbox
) -> None:
    task = make_median_task(limits=Limits(timeout_s=2, cpu_s=2, memory_mb=256))
    verdict = verify(task, source, sandbox)
    assert verdict.status is Status.FAIL
    assert all(not c.passed for c in verdict.criteria)
    assert evidence in verdict.criteria[0].evidence


def test_missing_entrypoint_fails(median_task: Task, sandbox: Sandbox) -> None:
    verdict = family.verify(median_task, {"other.py": b"x = 1\n"}, sandbox)
    assert verdict.status is Status.FAIL
    assert "solution.py" in verdict.summary


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        ({"solution.py": REFERENCE + b"#" * 2**24}, "is larger than limits.max_file_mb"),
        ({"a": b"1", "a/b": b"2"}, "is also the directory of"),
        ({f"m{i}.py": b"" for i in range(16_384)}, "are more than limits.max_files"),
    ],
    ids=["too-large", "file-and-directory", "too-many"],
)
def test_files_no_sandbox_takes_are_a_fail_not_an_error(
    median_task: Task, sandbox: Sandbox, extra: dict[str, bytes], problem: str
) -> None:
    """The sandbox refused them as an error of its own, retried and never scored: a 16 MiB
    answer stopped a verl training step (its reward raises on an error verdict)."""
    verdict = family.verify(median_task, {"solution.py": REFERENCE, **extra}, sandbox)
    assert verdict.status is Status.FAIL, verdict.summary
    assert verdict.summary.startswith("the solution cannot be run: ")
    assert problem in verdict.summary


def test_empty_submission_fails(median_task: Task, sandbox: Sandbox) -> None:
    verdict = family.verify(median_task, family.empty_solution(median_task), sandbox)
    assert verdict.status is Status.FAIL
    assert verdict.score == 0.2  # only the empty-list case, whose answer is None
    empty_file = family.verify(median_task, {"solution.py": b""}, sandbox)
    assert empty_file.status is Status.FAIL
    assert empty_file.score == 0


def test_helper_modules_in_the_solution_directory_import(
    median_task: Task, sandbox: Sandbox
) -> None:
    files = {
        "solution.py": b"from helpers_mod import middle\n"
        b"def median(values): return middle(values)\n",
        "helpers_mod.py": REFERENCE.replace(b"def median", b"def middle"),
    }
    assert family.verify(median_task, files, sandbox).status is Status.PASS


def test_trusted_checker_accepts_any_right_answer(sandbox: Sandbox) -> None:
    checker = b"def check(args, output, expected):\n    return output in (expected, -1)\n"
    task = with_checker(make_median_task(), checker)
    assert verify(task, "def median(values): return -1\n", sandbox).status is Status.PASS
    assert verify(task, "def median(values): return 0\n", sandbox).status is Status.FAIL


def test_a_checker_that_raises_fails_the_case_with_the_exception_as_evidence(
    sandbox: Sandbox,
) -> None:
    # The output that upset the checker came from the candidate: a fail, never an error.
    broken = b"def check(args, output, expected):\n    return sorted(output) == expected\n"
    task = with_checker(make_median_task(), broken, "c.py")
    verdict = verify(task, REFERENCE, sandbox)
    assert verdict.status is Status.FAIL
    assert "checker raised: TypeError" in verdict.criteria[0].evidence
