"""The ``code`` family: write a Python function; hidden cases judge it from outside the sandbox."""

from __future__ import annotations

import json
import secrets
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files as package_files
from pathlib import Path

from assay.errors import SandboxError, SolutionFormatError, VerifierError
from assay.families import version_label
from assay.families.code import checking
from assay.families.code.config import code_config, hidden_cases
from assay.families.code.lint import lint_code_task
from assay.findings import Finding
from assay.sandbox.protocol import ExecResult, Sandbox
from assay.tasks.model import Files, Task
from assay.tasks.spec import Limits
from assay.tasks.taskdir import read_files
from assay.verdicts import Criterion, Status, Timings, Verdict, Versions, score_of

RUNNER = package_files("assay.families.code").joinpath("_runner.py").read_text(encoding="utf-8")
VERSION = "1"


@dataclass(frozen=True)
class CaseOutputs:
    """What the candidate returned for each case, as decoded by the trusted process."""

    values: dict[str, object]
    """Case id to the plain value returned."""
    errors: dict[str, str]
    """Case id to the error raised or the reason the value was refused."""
    import_error: str | None
    """Why the solution could not be loaded, if it could not."""
    result: ExecResult
    """The sandbox run itself."""

    def missing_reason(self) -> str:
        """Why a case has no output at all."""
        if self.result.timed_out:
            return "no result: the run passed its time limit"
        if self.result.out_of_memory:
            return "no result: the run passed its memory limit"
        if self.result.signal == signal.SIGXCPU:
            return "no result: the run passed its CPU-time limit"
        if self.result.signal is not None:
            return f"no result: the process was killed by signal {self.result.signal}"
        return f"no result: the process ended with status {self.result.exit_code} before reporting"


class CodeFamily:
    """Python function tasks. See :mod:`assay.families.code` for the task layout."""

    name = "code"
    version = VERSION
    trusted_code: tuple[str, ...] = (RUNNER,)

    def load_solution(self, path: Path) -> Files:
        """A solution directory, or a single ``.py`` file taken as ``solution.py``."""
        path = Path(path)
        if path.is_file():
            return {"solution.py": path.read_bytes()}
        if path.is_dir():
            return read_files(path)
        raise SolutionFormatError(
            "no such file or directory", path=path, fix="pass solution.py or its directory"
        )

    def empty_solution(self, task: Task) -> Files:
        """The function, defined to do nothing: it accepts any arguments and returns None."""
        config = code_config(task)
        stub = f"def {config.function}(*args, **kwargs):\n    return None\n"
        return {config.entrypoint: stub.encode()}

    def lint(self, task: Task) -> list[Finding]:
        """Static checks of the task's code-family parts."""
        return lint_code_task(task)

    def verify(self, task: Task, solution: Files, sandbox: Sandbox) -> Verdict:
        """Run ``solution`` on the hidden cases in ``sandbox`` and compare outside it."""
        config = code_config(task)
        cases = hidden_cases(task)
        label = version_label(self)
        record = _Recorder(
            task.id,
            Versions(task=task.content_version(label), family=label, assay=_assay_version()),
        )
        if config.entrypoint not in solution:
            return record(Status.FAIL, f"{config.entrypoint} was not submitted")
        try:
            outputs = run_cases(
                sandbox,
                workspace=task.workspace,
                solution=solution,
                function=config.function,
                entrypoint=config.entrypoint,
                cases=[(case.id, case.args) for case in cases],
                limits=task.spec.limits,
            )
        except SandboxError as exc:
            return record(Status.ERROR, f"sandbox error: {exc}")
        checker = checking.load_checker(task, config)
        try:
            criteria = tuple(checking.judge(case, outputs, config, checker) for case in cases)
        except VerifierError as exc:
            return record(Status.ERROR, str(exc), result=outputs.result)
        status = Status.PASS if all(c.passed for c in criteria) else Status.FAIL
        return record(status, _summary(criteria, outputs), criteria, outputs.result)


def run_cases(
    sandbox: Sandbox,
    *,
    workspace: Files,
    solution: Files,
    function: str,
    entrypoint: str,
    cases: Sequence[tuple[str, list[object]]],
    limits: Limits,
) -> CaseOutputs:
    """Call ``function`` from ``solution`` on each case's arguments inside ``sandbox``."""
    nonce = f"@assay:{secrets.token_hex(8)}:"
    job = {
        "nonce": nonce,
        "function": function,
        "entrypoint": entrypoint,
        "cases": [{"id": case_id, "args": args} for case_id, args in cases],
    }
    result = sandbox.run(
        [sandbox.python, "-I", "-S", "-c", RUNNER],
        files={**workspace, **solution},
        limits=limits,
        stdin=json.dumps(job).encode(),
    )
    return _decode(result, nonce, {case_id for case_id, _ in cases})


def _decode(result: ExecResult, nonce: str, ids: set[str]) -> CaseOutputs:
    values: dict[str, object] = {}
    errors: dict[str, str] = {}
    import_error: str | None = None
    for line in result.stdout.splitlines():
        if not line.startswith(nonce):
            continue
        try:
            record = json.loads(line[len(nonce) :])
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if "import_error" in record and import_error is None:
            import_error = str(record["import_error"])
        case_id = record.get("id")
        if case_id not in ids or case_id in values or case_id in errors:
            continue
        if "value" in record:
            values[case_id] = record["value"]
        else:
            errors[case_id] = str(record.get("error", "unknown error"))
    return CaseOutputs(values=values, errors=errors, import_error=import_error, result=result)


def _summary(criteria: tuple[Criterion, ...], outputs: CaseOutputs) -> str:
    passed = sum(c.passed for c in criteria)
    text = f"{passed}/{len(criteria)} cases passed"
    if outputs.import_error:
        text += f"; the solution failed to load: {outputs.import_error.splitlines()[-1]}"
    elif outputs.result.timed_out:
        text += "; the run timed out"
    return text


class _Recorder:
    """Makes the verdicts of one verification, timed from its creation."""

    def __init__(self, task_id: str, versions: Versions) -> None:
        self.task_id = task_id
        self.versions = versions
        self.started = time.monotonic()

    def __call__(
        self,
        status: Status,
        summary: str,
        criteria: tuple[Criterion, ...] = (),
        result: ExecResult | None = None,
    ) -> Verdict:
        return Verdict(
            task_id=self.task_id,
            status=status,
            score=0.0 if status is Status.ERROR else score_of(criteria),
            criteria=criteria,
            summary=summary,
            logs=result.stderr[-4000:] if result else "",
            timings=Timings(
                wall_s=time.monotonic() - self.started,
                sandbox_s=result.wall_s if result else 0.0,
                sandbox_cpu_s=result.cpu_s if result else 0.0,
            ),
            versions=self.versions,
        )


def _assay_version() -> str:
    from assay import __version__  # noqa: PLC0415 - avoids an import cycle at module load

    return __version__
