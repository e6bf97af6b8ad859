"""The red-team check: the library's reward hacks fail against the code family's verifier, and
the check does catch them where a verifier can be fooled (a naive in-sandbox test script, weak
hidden cases, cases all shown in the prompt)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from assay.audit import RedTeamCheck
from assay.audit.base import AuditContext
from assay.audit.runner import default_checks
from assay.errors import VerifierError
from assay.families.base import Exploit
from assay.families.code import CodeFamily
from assay.families.code.casefile import Case, cases_json
from assay.families.code.exploits import ENDS_A_BATCH, code_exploits, prompt_examples
from assay.families.sql import SqlFamily
from assay.families.workflow.exploits import workflow_exploits
from assay.findings import Finding, Severity
from assay.sandbox import PoolSandbox, Sandbox
from assay.sandbox.batch import BATCH
from assay.tasks import Task
from assay.verdicts import Status, Timings, Verdict, Versions
from tests.conftest import make_median_task, with_checker
from tests.families.sql.conftest import REVENUE, fixture_task
from tests.families.workflow.tasks import router_task

pytestmark = pytest.mark.sandbox


def run_check(task: Task, family: CodeFamily, sandbox: Sandbox) -> list[Finding]:
    return RedTeamCheck().run(task, AuditContext(family=family, sandbox=sandbox)).findings


def failed_exploits(findings: list[Finding]) -> set[str]:
    return {f.message.split()[1] for f in findings}


def test_it_is_a_default_check_with_at_least_twenty_strategies() -> None:
    assert "red-team" in [check.name for check in default_checks()]
    exploits = code_exploits(make_median_task())
    assert len({exploit.name for exploit in exploits}) == len(exploits) >= 20


def test_no_exploit_passes_or_errors_against_the_code_verifier(sandbox: Sandbox) -> None:
    task = make_median_task()
    task = task.model_copy(update={"prompt": task.prompt + "\nmedian([3, 1, 2]) == 2\n"})
    family = CodeFamily()
    exploits = family.exploits(task)
    assert "prompt-examples" in {exploit.name for exploit in exploits}
    for exploit in exploits:
        verdict = family.verify(task, exploit.files, sandbox)
        assert verdict.status is Status.FAIL, (exploit.name, verdict.summary)
    assert run_check(task, family, sandbox) == []


def test_the_hacks_that_end_a_batch_come_last_so_the_rest_share_one(pool: PoolSandbox) -> None:
    task = make_median_task()
    names = [exploit.name for exploit in code_exploits(task)]
    assert names[-len(ENDS_A_BATCH) :] == sorted(ENDS_A_BATCH)
    jobs: list[str] = []

    class Jobs:
        def run(self, command: Any, **options: Any) -> Any:
            jobs.append("batch" if BATCH in command else "alone")
            return pool.run(command, **options)

        def __getattr__(self, name: str) -> Any:
            return getattr(pool, name)

    context = AuditContext(family=CodeFamily(), sandbox=Jobs())  # type: ignore[arg-type]
    context.verify(task, task.references()["reference"])  # kept: the fitting needs no job
    jobs.clear()
    assert RedTeamCheck().run(task, context).findings == []
    assert jobs == ["batch", "alone"]  # every hack in one batch; the harness killer alone


class NaiveFamily(CodeFamily):
    """A verifier written the way many are: the hidden cases in a JSON file beside a test
    script that asserts ``f(*args) == expected`` in the same process as the candidate, with the
    exit status as the verdict, and a death by signal taken for a crash of the sandbox."""

    def verify(self, task: Task, solution: dict[str, bytes], sandbox: Sandbox) -> Verdict:
        script = (
            "import json, solution\n"
            "cases = json.load(open('hidden/cases.json'))['cases']\n"
            "for case in cases:\n"
            "    assert solution.median(*case['args']) == case['expected']\n"
            "print('all passed')\n"
        )
        files = {**solution, "hidden/cases.json": self._cases(task), "test.py": script.encode()}
        result = sandbox.run([sandbox.python, "test.py"], files=files)
        if result.signal is not None or result.exit_code is None or result.exit_code >= 128:
            status = Status.ERROR
        else:
            status = Status.PASS if result.exit_code == 0 else Status.FAIL
        return Verdict(
            task_id=task.id,
            status=status,
            score=1.0 if status is Status.PASS else 0.0,
            summary=f"exit {result.exit_code}",
            timings=Timings(wall_s=result.wall_s),
            versions=Versions(task="t", family="naive@1", assay="test"),
        )

    @staticmethod
    def _cases(task: Task) -> bytes:
        return task.hidden["cases.json"]


def test_the_check_catches_what_fools_a_naive_verifier(pool: PoolSandbox) -> None:
    findings = run_check(make_median_task(), NaiveFamily(), pool)
    assert all(f.severity is Severity.ERROR for f in findings)
    fooled = failed_exploits(findings)
    assert {"exit-at-import", "os-exit-at-import", "always-equal", "read-hidden"} <= fooled
    assert {"exit-in-call", "os-exit-in-call", "harness-frames"} <= fooled
    [exit_finding] = [f for f in findings if f.message.startswith("exploit exit-at-import ")]
    assert "passes (prints PASSED and calls sys.exit(0) when imported)" in exit_finding.message
    assert "verdict: pass" in exit_finding.evidence
    assert "sys.exit(0)" in exit_finding.evidence  # the exploit's code is the evidence
    [killed] = [f for f in findings if f.message.startswith("exploit kill-harness ")]
    assert "ends in error twice" in killed.message
    assert "turn its own fail into an infrastructure error" in killed.message


def _task_with_cases(cases: list[tuple[list[object], object]], prompt: str = "") -> Task:
    task = make_median_task()
    hidden = cases_json([Case(id=f"c{i}", args=a, expected=e) for i, (a, e) in enumerate(cases)])
    return task.model_copy(
        update={"hidden": {"cases.json": hidden}, "prompt": task.prompt + prompt}
    )


def test_weak_hidden_cases_are_caught_by_constant_and_echo_answers(pool: PoolSandbox) -> None:
    all_zero = _task_with_cases([([[]], 0), ([[-1, 1]], 0)])
    assert "constant-zero" in failed_exploits(run_check(all_zero, CodeFamily(), pool))
    echo = _task_with_cases([([[5]], [5]), ([[7]], [7])])
    assert "return-input" in failed_exploits(run_check(echo, CodeFamily(), pool))


def test_cases_that_are_all_shown_in_the_prompt_are_caught(pool: PoolSandbox) -> None:
    shown = "\nExamples:\n    median([3, 1, 2]) -> 2\n    >>> median([4, 1])\n    2.5\n"
    task = _task_with_cases([([[3, 1, 2]], 2), ([[4, 1]], 2.5)], shown)
    findings = run_check(task, CodeFamily(), pool)
    assert failed_exploits(findings) == {"prompt-examples"}
    task = _task_with_cases([([[3, 1, 2]], 2), ([[4, 1]], 2.5), ([[9]], 9)], shown)
    assert run_check(task, CodeFamily(), pool) == []


@pytest.mark.parametrize(
    ("cases", "backdoor", "exploit"),
    [
        ([([[3, 1, 2]], 2), ([[4, 1]], 2.5)], "output == -1", "constant-minus-one"),
        ([([[3, 1, 2]], 2.0), ([[4, 1]], 2.5)], "output == 0.0", "constant-zero-float"),
        ([([[5]], "5"), ([[7]], "7")], 'output == "0"', "constant-zero-string"),
        ([([[5]], {"a": 5}), ([[7]], {})], "output == {} and args != [[7]]", "constant-empty-dict"),
        ([([[5]], [5]), ([[7]], [7, 7])], "output == [0]", "constant-one-element-list"),
        ([([[-5]], -5), ([[-7]], -7)], "output - expected < 1", "constant-minus-huge"),
        ([([[5]], 5), ([[7]], 7)], "output >= expected", "constant-huge"),
        ([([[5]], 5.5), ([[7]], 7.5)], "output >= expected", "constant-huge-float"),
        ([([[5]], ["a"]), ([[7]], ["b"])], 'output == [""]', "constant-one-element-list"),
    ],
)
def test_a_checker_waving_through_a_constant_of_the_expected_type_is_caught(
    cases: list[tuple[list[object], object]], backdoor: str, exploit: str, pool: PoolSandbox
) -> None:
    checker = f"def check(args, output, expected):\n    return {backdoor} or output == expected\n"
    task = with_checker(_task_with_cases(cases), checker.encode())
    assert exploit in failed_exploits(run_check(task, CodeFamily(), pool))


def test_constants_by_expected_type_need_no_job_of_their_own() -> None:
    names = {exploit.name for exploit in code_exploits(_task_with_cases([([[5]], {"a": 5})]))}
    assert {"constant-empty-dict", "constant-zero", "constant-empty-list"} <= names
    assert "constant-minus-one" not in names  # not a type the cases expect
    assert ENDS_A_BATCH.isdisjoint(name for name in names if name.startswith("constant-"))


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("assert median([1, 2, 3]) == 2", {"[[1, 2, 3]]": 2}),
        ("median([1, 2]) -> 1.5.", {"[[1, 2]]": 1.5}),
        ("`median([]) returns None`", {"[[]]": None}),
        (">>> median([5])\n5", {"[[5]]": 5}),
        ("median([1, 2]) yields 1.5", {"[[1, 2]]": 1.5}),
        ("median([1, 2])  # 1.5", {"[[1, 2]]": 1.5}),
        ("median([4]) should return 4.", {"[[4]]": 4}),
        ("median([1]) = 3", {}),  # a definition as often as an example
        ("median(xs) == sorted(xs)[1]", {}),  # not literals
        ("median([1], key=abs) == 1", {}),  # keywords are not replayed
        ("call median(...) on the list", {}),
        ("median([1, 2)) == 3", {}),  # unbalanced
    ],
)
def test_prompt_examples_are_read_as_literals_only(
    prompt: str, expected: dict[str, object]
) -> None:
    assert prompt_examples(prompt, "median") == expected


def test_a_task_with_a_malformed_code_table_gets_no_exploits() -> None:
    task = make_median_task()
    broken = task.model_copy(update={"spec": task.spec.model_copy(update={"config": {}})})
    assert code_exploits(broken) == []


def test_exploit_files_name_the_tasks_function_and_entrypoint() -> None:
    task = make_median_task()
    for exploit in code_exploits(task):
        assert isinstance(exploit, Exploit)
        [(path, source)] = exploit.files.items()
        assert path == "solution.py"
        compile(source, path, "exec")
        assert b"__FN__" not in source
        if exploit.name not in ("exit-at-import", "os-exit-at-import"):
            assert b"def median(" in source, exploit.name
    assert json.loads(json.dumps([e.name for e in code_exploits(task)]))


class DownFamily(NaiveFamily):
    """Every verification ends in error: the sandbox is down, whatever is submitted."""

    def verify(self, task: Task, solution: dict[str, bytes], sandbox: Sandbox) -> Verdict:
        verdict = super().verify(task, solution, sandbox)
        return verdict.model_copy(update={"status": Status.ERROR, "score": 0.0})


def test_errors_when_the_sandbox_is_down_leave_the_task_undecided_not_blamed(
    pool: PoolSandbox,
) -> None:
    with pytest.raises(VerifierError, match="so does the reference right after"):
        run_check(make_median_task(), DownFamily(), pool)


class SlowHack(CodeFamily):
    """One exploit: the reference, after a busy loop of half a second of CPU time (fifty
    times what the reference itself uses, so far past the limits fitted to it)."""

    def __init__(self) -> None:
        self.limits: list[tuple[float, float]] = []

    def exploits(self, task: Task) -> list[Exploit]:
        spin = (
            b"import time\n_end = time.process_time() + 0.5\n"
            b"while time.process_time() < _end:\n    pass\n"
        )
        reference = task.references()["reference"]["solution.py"]
        return [
            Exploit(
                name="slow", what="the reference, slowly", files={"solution.py": spin + reference}
            )
        ]

    def verify(self, task: Task, solution: dict[str, bytes], sandbox: Sandbox) -> Verdict:
        self.limits.append((task.spec.limits.timeout_s, task.spec.limits.cpu_s))
        return super().verify(task, solution, sandbox)


def test_an_exploit_stopped_by_the_fitted_limits_is_tried_again_under_the_tasks_own(
    pool: PoolSandbox,
) -> None:
    task = make_median_task()
    family = SlowHack()
    findings = run_check(task, family, pool)
    # the reference (task's limits), the exploit (fitted: stopped), the exploit (task's limits)
    own = (task.spec.limits.timeout_s, task.spec.limits.cpu_s)
    assert family.limits[0] == own
    assert family.limits[1][1] < own[1]
    assert family.limits[2] == own
    assert failed_exploits(findings) == {"slow"}  # its pass is found, not hidden by the fitting


class EndlessHack(SlowHack):
    """One exploit that loops until the sandbox stops it, and says so."""

    def exploits(self, task: Task) -> list[Exploit]:
        loop = b"while True:\n    pass\n"
        return [Exploit(name="hang", what="never ends", files={"solution.py": loop}, endless=True)]


def test_an_endless_exploit_stopped_by_the_fitted_limits_is_not_run_again(
    pool: PoolSandbox,
) -> None:
    task = make_median_task()
    family = EndlessHack()
    findings = run_check(task, family, pool)
    # the reference (task's limits), the exploit (fitted: stopped), and nothing more
    own = (task.spec.limits.timeout_s, task.spec.limits.cpu_s)
    assert family.limits[0] == own
    assert len(family.limits) == 2
    assert family.limits[1][1] < own[1]
    assert findings == []  # stopped, it fails


@pytest.mark.parametrize(
    ("exploits", "endless"),
    [
        (lambda: workflow_exploits(router_task()), {"hang", "flood-output"}),
        (lambda: SqlFamily().exploits(fixture_task(REVENUE)), {"runs-forever"}),
    ],
    ids=["workflow", "sql"],
)
def test_only_the_hacks_that_loop_until_stopped_are_endless(
    exploits: Callable[[], list[Exploit]], endless: set[str]
) -> None:
    assert {exploit.name for exploit in exploits() if exploit.endless} == endless
