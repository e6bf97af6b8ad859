"""Rewards beyond pass/fail: runtime against the reference, ruff style, weighted edge cases.

No test here times anything: the runtime criterion is tested by its arithmetic and by a candidate
slower than the reference by a factor far past the margin.
"""

from __future__ import annotations

import io
import json
import math
import py_compile
import tempfile
import zipfile
from pathlib import Path

import pytest

from assay.families.code import CodeFamily
from assay.families.code.config import Case, cases_json, hidden_cases
from assay.families.code.outputs import CaseOutputs
from assay.families.code.rewards import (
    NOT_JUDGED,
    Submission,
    runtime_criterion,
    runtime_score,
    style_criterion,
)
from assay.families.code.rubric import RuntimeCriterion, StyleCriterion
from assay.sandbox import Sandbox
from assay.sandbox.protocol import ExecResult
from assay.tasks import Limits, Task, TaskSpec
from assay.verdicts import Criterion, Status, Verdict
from tests.conftest import BAD_NO_SORT, REFERENCE, make_median_task, with_checker
from tests.families.code.test_rubric import with_rubric
from tests.judges import scripted
from tests.judges.conftest import JudgeServer
from tests.policies.server import serve

family = CodeFamily()
RUNTIME = (
    '[correctness]\nweight = 1\n[[criteria]]\nname = "fast"\nkind = "runtime"\nweight = 1\n'
    "max_ratio = 5\n"
)
# About two hundred milliseconds of CPU per call, five calls a run: the run is over five times
# the floor even where a busy machine raised it to 120 ms of spread between the trusted runs
# (half of this loop left a 296 ms run at 0.06 under a 64 ms floor), and still far under the
# task's 5 s; the reference takes microseconds.
SLOW = REFERENCE.replace(
    b"    ordered = sorted(values)",
    b"    for _ in range(10_000_000):\n        pass\n    ordered = sorted(values)",
)


def _rubric_criterion(verdict: Verdict, name: str) -> Criterion:
    [criterion] = [c for c in verdict.criteria if c.name == name and c.part == "rubric"]
    return criterion


def test_runtime_score_is_one_at_the_references_time_and_falls_with_the_log_of_the_ratio() -> None:
    assert runtime_score(0.5, 10) == runtime_score(1.0, 10) == 1.0
    assert runtime_score(10, 10) == runtime_score(1000, 10) == 0.0
    assert runtime_score(math.sqrt(10), 10) == pytest.approx(0.5)
    scores = [runtime_score(r, 10) for r in (1.1, 2, 4, 8)]
    assert scores == sorted(scores, reverse=True)
    # twice as slow costs as much at any speed
    assert runtime_score(2, 100) - runtime_score(4, 100) == pytest.approx(
        runtime_score(4, 100) - runtime_score(8, 100)
    )


def test_a_slow_candidate_scores_low_on_runtime_and_still_passes(sandbox: Sandbox) -> None:
    task = with_rubric(RUNTIME)
    # Load only ever adds CPU time (a busy machine measured the reference's own code at 29 ms,
    # past the 20 ms floor): the best of three runs is its speed.
    runs = [family.verify(task, {"solution.py": REFERENCE}, sandbox) for _ in range(3)]
    fast = max(runs, key=lambda verdict: _rubric_criterion(verdict, "fast").score)
    slow = family.verify(task, {"solution.py": SLOW}, sandbox)
    assert fast.status is slow.status is Status.PASS
    assert _rubric_criterion(fast, "fast").score > 0.9
    assert _rubric_criterion(slow, "fast").score == 0.0
    assert "ratio" in _rubric_criterion(slow, "fast").evidence
    assert fast.score > 0.95
    assert slow.score == 0.5


def _scripted_timing(cpu: dict[bytes, list[float]]) -> tuple[Criterion, list[float]]:
    """The runtime criterion on the median task with CPU times scripted per solution (seconds,
    one per job in order): the arithmetic of noise and confirmation, no clock involved."""
    task = make_median_task()
    calls: list[bytes] = []

    def run(files: dict[str, bytes]) -> CaseOutputs:
        source = files.get("solution.py", b"")
        calls.append(source)
        seconds = cpu[source].pop(0)
        result = ExecResult(exit_code=0, wall_s=seconds, cpu_s=seconds)
        return CaseOutputs(outcomes={}, import_error=None, tampered=None, result=result)

    spec = RuntimeCriterion(name="fast", kind="runtime", weight=1.0, max_ratio=10.0)
    submission = Submission(
        task=task, files={"solution.py": SLOW}, entrypoint="solution.py", empty={}
    )
    criterion, runs = runtime_criterion(spec, submission, run)
    return criterion, [r.cpu_s for r in runs]


def test_a_spread_in_the_trusted_runs_raises_the_floor() -> None:
    """A busy machine: the harness alone measured 40 to 75 ms, the reference 45 to 80 ms. A
    submission 25 ms slower than the reference at its best is within that noise; with the
    20 ms floor alone it scored 0.82 against the very code it was timed with."""
    criterion, timed = _scripted_timing(
        {
            b"": [0.040, 0.075, 0.060],
            REFERENCE: [0.080, 0.045, 0.060],
            SLOW: [0.080, 0.070, 0.075],
        }
    )
    assert criterion.score == 1.0, criterion.evidence
    assert "below 35.0 ms counts as 35.0 ms" in criterion.evidence
    assert len(timed) == 9  # as fast as the reference: no confirmation rounds


def test_a_submission_unlucky_in_its_rounds_is_timed_again() -> None:
    """Three rounds in which the load fell on the submission's jobs: slower than the
    reference, so three more rounds, and the best of all six is its time."""
    criterion, timed = _scripted_timing(
        {
            b"": [0.040, 0.041, 0.040, 0.041, 0.040, 0.040],
            REFERENCE: [0.045, 0.046, 0.045, 0.046, 0.045, 0.045],
            SLOW: [0.110, 0.120, 0.115, 0.050, 0.090, 0.100],
        }
    )
    assert len(timed) == 18
    assert criterion.score == 1.0, criterion.evidence
    assert "best of 6" in criterion.evidence


def test_a_submission_slower_than_the_noise_still_loses() -> None:
    """The raised floor hides no real slowness: 300 ms against 5 ms is a ratio of 300 / 20
    however quiet the trusted runs were, and the confirmation rounds keep the best of six."""
    criterion, timed = _scripted_timing(
        {
            b"": [0.040, 0.041, 0.040, 0.041, 0.040, 0.040],
            REFERENCE: [0.045, 0.046, 0.045, 0.046, 0.045, 0.045],
            SLOW: [0.350, 0.345, 0.340, 0.360, 0.355, 0.350],
        }
    )
    assert len(timed) == 18
    assert criterion.score == pytest.approx(runtime_score(0.300 / 0.020, 10.0))
    assert criterion.score == 0.0
    assert "best of 6" in criterion.evidence


def test_the_submissions_own_spread_does_not_raise_the_floor() -> None:
    """A candidate that is slow at its best and far slower in its other runs (a busy loop on
    a coin flip) would widen its own spread; only the stub's and the reference's count."""
    criterion, _ = _scripted_timing(
        {
            b"": [0.040] * 6,
            REFERENCE: [0.045] * 6,
            SLOW: [0.140, 5.0, 5.0, 0.140, 5.0, 5.0],
        }
    )
    assert criterion.score == pytest.approx(runtime_score(0.100 / 0.020, 10.0))
    assert "below 20.0 ms counts as 20.0 ms" in criterion.evidence


FORGERS = {
    "patches-the-clocks": b"""
import time
time.perf_counter = time.process_time = time.monotonic = time.time = lambda: 0.0
time.perf_counter_ns = time.process_time_ns = lambda: 0
""",
    "prints-a-fast-timing": b"""
import sys
sys.__stdout__.write('{"cpu_s": 0.0, "ratio": 0.01, "runtime": 1.0}\\n')
print("ratio 0.01: faster than the reference")
""",
    "does-the-work-in-a-child": b"""
import os
_slow_median = median
def median(values):
    read, write = os.pipe()
    if os.fork() == 0:
        os.write(write, repr(_slow_median(values)).encode())
        os._exit(0)
    os.close(write)
    os.wait()
    return eval(os.read(read, 1000))
""",
}


@pytest.mark.parametrize("name", FORGERS)
def test_a_slow_candidate_cannot_look_fast(sandbox: Sandbox, name: str) -> None:
    verdict = family.verify(with_rubric(RUNTIME), {"solution.py": SLOW + FORGERS[name]}, sandbox)
    assert verdict.status is Status.PASS
    assert _rubric_criterion(verdict, "fast").score == 0.0


def test_a_timing_run_that_gets_a_case_wrong_times_nothing(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Best of the rounds: a candidate slow and right in some runs (as in the verified one) and
    fast and wrong in others (``None if os.urandom(1)[0] < 128 else ...`` at import) was timed
    at a wrong run, and scored 1.0 on runtime. Here its timing runs are the wrong ones."""
    from assay.families.code import family as family_module  # noqa: PLC0415

    real = family_module.run_cases
    calls: list[bytes] = []

    def wrong_when_timed(sandbox: Sandbox, **job: object) -> object:
        solution = job["solution"]
        assert isinstance(solution, dict)
        calls.append(solution["solution.py"])
        if solution["solution.py"] == SLOW and calls.count(SLOW) > 1:
            job["solution"] = {"solution.py": BAD_NO_SORT}
        return real(sandbox, **job)  # type: ignore[arg-type]

    monkeypatch.setattr(family_module, "run_cases", wrong_when_timed)
    verdict = family.verify(with_rubric(RUNTIME), {"solution.py": SLOW}, sandbox)
    assert verdict.status is Status.PASS
    fast = _rubric_criterion(verdict, "fast")
    assert fast.score == 0.0, fast.evidence
    assert "got a case wrong" in fast.evidence
    # the reference, timed the same way, is right every time
    right = family.verify(with_rubric(RUNTIME), {"solution.py": REFERENCE}, sandbox)
    timed = _rubric_criterion(right, "fast")
    assert timed.passed, timed.evidence
    assert "got a case wrong" not in timed.evidence


WORDS = [f"w{i}" for i in range(12)]
ANY_ORDER = b"def check(args, output, expected):\n    return sorted(output) == sorted(expected)\n"
# A right answer in another order each run: one of twelve rotations of the sorted words.
ROTATED = (
    b"import random\n\n\ndef uniq(words):\n    found = sorted(set(words))\n"
    b"    turn = random.SystemRandom().randrange(len(found))\n"
    b"    return found[turn:] + found[:turn]\n"
)


def _any_order_task() -> Task:
    """Distinct words in any order, judged by a checker, with a runtime criterion."""
    cases = [
        Case(id=f"c{i}", args=[WORDS[i:] + WORDS[:i]], expected=sorted(WORDS)) for i in range(3)
    ]
    task = Task(
        spec=TaskSpec(
            id="uniq",
            family="code",
            config={"function": "uniq"},
            limits=Limits(timeout_s=10, memory_mb=256),
        ),
        prompt="Write uniq(words) in solution.py: the distinct words, in any order.\n",
        hidden={"cases.json": cases_json(cases)},
        solutions={
            "reference": {"solution.py": b"def uniq(words):\n    return sorted(set(words))\n"}
        },
    )
    return with_rubric(RUNTIME, with_checker(task, ANY_ORDER))


def test_a_checker_task_times_a_right_answer_that_differs_from_run_to_run(
    sandbox: Sandbox,
) -> None:
    """The timing runs were compared with the verified run's values: a right answer in another
    order (a set's order of strings changes from process to process) counted as a case got
    wrong, and a right, fast submission scored 0 on runtime."""
    verdict = family.verify(_any_order_task(), {"solution.py": ROTATED}, sandbox)
    assert verdict.status is Status.PASS, verdict.summary
    fast = _rubric_criterion(verdict, "fast")
    assert "got a case wrong" not in fast.evidence, fast.evidence
    assert fast.score is not None
    assert fast.score > 0


def test_a_checker_task_still_times_nothing_for_a_run_its_checker_rejects(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay.families.code import family as family_module  # noqa: PLC0415

    real = family_module.run_cases
    runs: list[bytes] = []
    empty = b"def uniq(words):\n    return []\n"

    def wrong_when_timed(sandbox: Sandbox, **job: object) -> object:
        solution = job["solution"]
        assert isinstance(solution, dict)
        runs.append(solution["solution.py"])
        if solution["solution.py"] == ROTATED and runs.count(ROTATED) > 1:
            job["solution"] = {"solution.py": empty}
        return real(sandbox, **job)  # type: ignore[arg-type]

    monkeypatch.setattr(family_module, "run_cases", wrong_when_timed)
    verdict = family.verify(_any_order_task(), {"solution.py": ROTATED}, sandbox)
    assert verdict.status is Status.PASS, verdict.summary
    fast = _rubric_criterion(verdict, "fast")
    assert fast.score == 0.0, fast.evidence
    assert "got a case wrong: c0" in fast.evidence


def test_a_failing_candidate_gets_nothing_beyond_its_share_of_cases(sandbox: Sandbox) -> None:
    task = with_rubric(RUNTIME + '[[criteria]]\nname = "tidy"\nkind = "style"\n')
    verdict = family.verify(task, {"solution.py": BAD_NO_SORT}, sandbox)
    assert verdict.status is Status.FAIL
    for name in ("fast", "tidy"):
        criterion = _rubric_criterion(verdict, name)
        assert (criterion.passed, criterion.score, criterion.evidence) == (False, 0.0, NOT_JUDGED)
    correctness = _rubric_criterion(verdict, "correctness")
    assert verdict.score == pytest.approx(correctness.value / 3)
    # a function that does nothing is fast and tidy, and earns nothing for it
    empty = family.verify(task, family.empty_solution(task), sandbox)
    assert empty.score == pytest.approx(0.2 / 3)  # one case of five expects None


STYLE = StyleCriterion(name="tidy", kind="style", max_findings=4)
MESSY = b"import os, sys\ndef median( values ):\n  l=sorted(values) ; return l[len(l)//2]\n"


def test_style_is_ruffs_findings_on_the_submitted_text() -> None:
    tidy = b'def median(values):\n    """The median."""\n    return 1\n'
    clean = style_criterion(STYLE, {"solution.py": tidy})
    assert (clean.score, clean.passed) == (1.0, True)
    messy = style_criterion(STYLE, {"solution.py": MESSY})
    assert messy.score == 0.0
    assert "F401" in messy.evidence
    assert "E401" in messy.evidence


def test_noqa_comments_hide_nothing_from_the_style_criterion() -> None:
    for waiver in (b"# ruff: noqa\n", b"# flake8: noqa\n"):
        assert style_criterion(STYLE, {"solution.py": waiver + MESSY}).score == 0.0
    noqa_lines = MESSY.replace(b"\n", b"  # noqa\n")
    assert style_criterion(STYLE, {"solution.py": noqa_lines}).score == 0.0


def test_a_submitted_ruff_configuration_is_not_read(sandbox: Sandbox) -> None:
    task = with_rubric('[[criteria]]\nname = "tidy"\nkind = "style"\n')
    messy_but_right = REFERENCE + b"import os, sys\n"
    waiver = b'[lint]\nignore = ["ALL"]\n'
    files = {"solution.py": messy_but_right, "ruff.toml": waiver, "pyproject.toml": waiver}
    verdict = family.verify(task, files, sandbox)
    assert verdict.status is Status.PASS
    assert _rubric_criterion(verdict, "tidy").score < 1


def test_style_reads_every_submitted_module(sandbox: Sandbox) -> None:
    """A tidy ``solution.py`` importing its messy work from a second module once scored 1.0
    on style (ruff read the entrypoint alone); a compiled module, which no criterion reads,
    scores 0."""
    task = with_rubric('[[criteria]]\nname = "tidy"\nkind = "style"\n')
    tidy = b'"""The median."""\n\nfrom impl import median\n\n__all__ = ["median"]\n'
    messy = REFERENCE + b"import os, sys\n"
    verdict = family.verify(task, {"solution.py": tidy, "impl.py": messy}, sandbox)
    assert verdict.status is Status.PASS, verdict.summary
    tidy_score = _rubric_criterion(verdict, "tidy")
    assert tidy_score.score is not None
    assert tidy_score.score < 1
    assert "impl.py:" in tidy_score.evidence
    with tempfile.TemporaryDirectory() as scratch:
        source, compiled = Path(scratch, "impl.py"), Path(scratch, "impl.pyc")
        source.write_bytes(messy)
        py_compile.compile(str(source), str(compiled), doraise=True)
        bytecode = compiled.read_bytes()
    hidden = family.verify(task, {"solution.py": tidy, "impl.pyc": bytecode}, sandbox)
    assert hidden.status is Status.PASS, hidden.summary
    assert _rubric_criterion(hidden, "tidy").score == 0.0
    assert "impl.pyc is a compiled module" in _rubric_criterion(hidden, "tidy").evidence


def _zipped(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(name, data)
    return buffer.getvalue()


TIDY_DOC = b'"""The median."""\n\n'
MESSY_RIGHT = REFERENCE + b"import os, sys\n"
HIDEOUTS = {
    "impl.txt": {
        "solution.py": TIDY_DOC + b"from pathlib import Path\n\n"
        b'exec(Path(__file__).with_name("impl.txt").read_text())\n',
        "impl.txt": MESSY_RIGHT,
    },
    "impl.zip": {
        "solution.py": TIDY_DOC + b"import sys\nfrom pathlib import Path\n\n"
        b'sys.path.insert(0, str(Path(__file__).with_name("impl.zip")))\n'
        b'median = __import__("impl").median\n',
        "impl.zip": _zipped("impl.py", MESSY_RIGHT),
    },
    "impl.json": {
        "solution.py": TIDY_DOC + b"import json\nfrom pathlib import Path\n\n"
        b'exec(json.loads(Path(__file__).with_name("impl.json").read_text())["code"])\n',
        "impl.json": json.dumps({"code": MESSY_RIGHT.decode()}).encode(),
    },
}


@pytest.mark.parametrize("hideout", sorted(HIDEOUTS))
def test_code_run_from_another_file_than_a_py_file_is_not_tidy(
    bubblewrap: Sandbox, hideout: str
) -> None:
    """A tidy ``solution.py`` that ran its messy work from ``impl.txt`` (``exec``), a ``.zip``
    on ``sys.path`` or source kept in a ``.json`` scored 1.0 on style, ruff reading the
    ``.py`` files alone; the judge was not shown that file either."""
    task = with_rubric('[[criteria]]\nname = "tidy"\nkind = "style"\n')
    files = HIDEOUTS[hideout]
    verdict = family.verify(task, files, bubblewrap)
    assert verdict.status is Status.PASS, verdict.summary
    tidy = _rubric_criterion(verdict, "tidy")
    assert (tidy.score, tidy.passed) == (0.0, False), tidy.evidence
    assert f"{hideout} is not a .py file" in tidy.evidence
    alone = family.verify(task, {"solution.py": files["solution.py"]}, bubblewrap)
    assert alone.status is Status.FAIL  # the entrypoint alone is not the program that ran


def test_the_judge_is_shown_the_file_a_submission_runs_its_code_from(bubblewrap: Sandbox) -> None:
    files = HIDEOUTS["impl.txt"]
    served = serve(JudgeServer)
    server = next(served)
    try:
        server.responder = scripted.honest
        task = with_rubric(
            '[[criteria]]\nname = "j"\nkind = "judge"\nmodel = "m"\nquestion = "q"\n'
            f'base_url = "{server.base_url}"\n'
        )
        verdict = family.verify(task, files, bubblewrap)
    finally:
        served.close()
    record = _rubric_criterion(verdict, "j").judge
    assert record is not None
    assert "# file: impl.txt" in record.prompt
    assert "ordered = sorted(values)" in record.prompt


def test_style_reads_a_py_file_in_the_encoding_it_declares(bubblewrap: Sandbox) -> None:
    """Under ``# coding: utf-7`` a comment's ``+AAo-`` is a line break: a solution kept its
    whole messy program in comments, which ruff, reading UTF-8, took for comments and scored
    1.0."""
    task = with_rubric('[[criteria]]\nname = "tidy"\nkind = "style"\n')
    program = b"import os, sys\n" + REFERENCE.lstrip()
    hidden = [b"#+AAo-" + line.replace(b"+", b"+-") for line in program.splitlines()]
    source = b'# coding: utf-7\n"""The median."""\n\n' + b"\n".join(hidden) + b"\n"
    verdict = family.verify(task, {"solution.py": source}, bubblewrap)
    assert verdict.status is Status.PASS, verdict.summary
    tidy = _rubric_criterion(verdict, "tidy")
    assert tidy.score is not None
    assert tidy.score < 1
    assert "E401" in tidy.evidence


def test_the_workspaces_own_files_as_given_do_not_count_against_style(bubblewrap: Sandbox) -> None:
    """A task's data file that the submission holds as the task gave it is not the
    submission's code; changed, it is."""
    data = b"3 1 2\n"
    task = with_rubric('[[criteria]]\nname = "tidy"\nkind = "style"\n')
    task = task.model_copy(update={"workspace": {"data.txt": data}})
    tidy = TIDY_DOC + REFERENCE.lstrip()
    given = family.verify(task, {"solution.py": tidy, "data.txt": data}, bubblewrap)
    assert _rubric_criterion(given, "tidy").score == 1.0, _rubric_criterion(given, "tidy")
    changed = family.verify(task, {"solution.py": tidy, "data.txt": b"x\n"}, bubblewrap)
    assert _rubric_criterion(changed, "tidy").score == 0.0


def test_text_ruff_cannot_report_on_scores_zero() -> None:
    long = style_criterion(STYLE, {"solution.py": b"x = 1\n" * 50_000})
    assert (long.score, long.error) == (0.0, None)
    assert "longer than" in long.evidence
    broken = style_criterion(STYLE, {"solution.py": b"def median(:\n"})
    assert broken.score is not None
    assert broken.score < 1


def _weighted_task() -> Task:
    task = make_median_task()
    cases = [
        Case(id=c.id, args=c.args, expected=c.expected, weight=3 if c.expected is None else 1)
        for c in hidden_cases(task)
    ]
    return task.model_copy(update={"hidden": {**task.hidden, "cases.json": cases_json(cases)}})


def test_edge_cases_weigh_more_in_the_score_and_nothing_in_the_status(sandbox: Sandbox) -> None:
    task = _weighted_task()
    assert json.loads(task.hidden["cases.json"])["format"] == 3
    misses_the_edge = REFERENCE.replace(b"        return None\n", b"        return 0\n")
    verdict = family.verify(task, {"solution.py": misses_the_edge}, sandbox)
    assert verdict.status is Status.FAIL
    assert verdict.score == pytest.approx(4 / 7)  # four common cases of weight 1, the edge 3
    empty = family.verify(task, family.empty_solution(task), sandbox)
    assert empty.score == pytest.approx(3 / 7)
    assert family.verify(task, {"solution.py": REFERENCE}, sandbox).score == 1.0


def test_weights_need_format_3_and_unweighted_files_stay_format_2() -> None:
    data = json.loads(_weighted_task().hidden["cases.json"])
    data["format"] = 2
    task = make_median_task()
    task = task.model_copy(
        update={"hidden": {**task.hidden, "cases.json": json.dumps(data).encode()}}
    )
    with pytest.raises(ValueError, match='weight needs "format": 3'):
        hidden_cases(task)
    assert json.loads(make_median_task().hidden["cases.json"])["format"] == 2
