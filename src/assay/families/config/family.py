"""The ``config`` family: Kubernetes objects judged by what they mean in the task's cluster."""

from __future__ import annotations

import time
from pathlib import Path

from assay.errors import SandboxError, VerifierError
from assay.families import version_label
from assay.families._recent import Recent
from assay.families.base import Exploit, Mutant, Probe
from assay.families.config.admission import admit
from assay.families.config.documents import PACKAGES, PARSER, YAML_SUFFIXES
from assay.families.config.expectations import Expectations, judge, readings
from assay.families.config.exploits import config_exploits
from assay.families.config.guards import guard_criteria
from assay.families.config.lint import lint_config_task
from assay.families.config.meaning import Meaning
from assay.families.config.mutants import config_mutants
from assay.families.config.probes import config_probes
from assay.families.config.schema import library_version
from assay.families.config.spec import config_spec
from assay.families.config.tools import ConfigTools
from assay.findings import Finding
from assay.sandbox import python_environment
from assay.sandbox.protocol import ExecResult, Sandbox
from assay.tasks.model import Files, Task
from assay.tasks.taskdir import read_files, read_solution_file
from assay.verdicts import (
    Criterion,
    Status,
    Timings,
    Verdict,
    Versions,
    met_at_start,
    verdict_score,
)

VERSION = f"14+schemas-{library_version()}"
"""The verifier's version, with that of the schemas it validates against (they can change a
verdict too)."""
EMPTY_FILE = "empty.yaml"


class ConfigFamily:
    """Kubernetes configuration tasks. See :mod:`assay.families.config` for the task layout."""

    name = "config"
    version = VERSION
    trusted_code: tuple[str, ...] = (PARSER,)

    def load_solution(self, path: Path) -> Files:
        """A solution directory of YAML files, or a single YAML file taken as it is named."""
        path = Path(path)
        if path.is_dir():
            return read_files(path)
        return {path.name: read_solution_file(path, missing="pass a YAML file or its directory")}

    def empty_solution(self, task: Task) -> Files:
        """A YAML file with no objects: the cluster as it is."""
        return {EMPTY_FILE: b"# nothing to apply\n"}

    def lint(self, task: Task) -> list[Finding]:
        """Static checks of the task's config-family parts."""
        return lint_config_task(task)

    def exploits(self, task: Task) -> list[Exploit]:
        """Reward hacks shaped for ``task``, for the audit's red-team check (see
        :mod:`assay.families.config.exploits`)."""
        return config_exploits(task)

    def mutants(self, task: Task) -> list[Mutant]:
        """Near misses of ``task``'s reference, for the audit's mutation check (see
        :mod:`assay.families.config.mutants`)."""
        return config_mutants(task)

    def probes(self, task: Task) -> list[Probe]:
        """Copies of ``task`` with one requirement changed, for the audit's sensitivity check
        (see :mod:`assay.families.config.probes`)."""
        return config_probes(task)

    def tools(self, task: Task) -> ConfigTools:
        """The agent's tools: the cluster, a draft's validation, submit."""
        return ConfigTools(task)

    def verify(self, task: Task, solution: Files, sandbox: Sandbox) -> Verdict:
        """Read the submitted YAML in ``sandbox``, validate every object against the pinned
        Kubernetes schema, apply it to the task's cluster and judge what it means."""
        spec = config_spec(task)
        expected = readings(task)
        label = version_label(self)
        record = _Recorder(
            task.id,
            Versions(
                task=task.content_version(label),
                family=label,
                assay=_assay_version(),
                python=python_environment(PACKAGES),
            ),
        )
        try:
            admission = admit(task, spec, solution, sandbox, reference=_reference(task))
        except SandboxError as exc:
            return record(Status.ERROR, f"sandbox error: {exc}")
        except VerifierError as exc:
            return record(Status.ERROR, f"verifier error: {exc}")
        found = admission.meaning
        if found is None:
            status = Status.ERROR if admission.stopped else Status.FAIL
            return record(status, admission.summary, admission.refusals, admission.result)
        judged = {name: judge(wanted, found, task.id) for name, wanted in expected.items()}
        reading, criteria = max(judged.items(), key=lambda item: _standing(item[1]))
        if admission.reference is not None:
            criteria += guard_criteria(
                found, admission.reference, expected.values(), kinds=spec.kinds, task_id=task.id
            )
        if admission.start is not None:  # what doing nothing meets scales the score
            key = (record.versions.task, reading)
            met = _STARTS.get(key)
            if met is None:
                start = _judged(admission.start, admission.reference, expected, reading, task)
                met = frozenset(c.name for c in start if c.passed)
                _STARTS.put(key, met)
            criteria = met_at_start(criteria, met)
        passed = sum(c.passed for c in criteria)
        status = Status.PASS if passed == len(criteria) else Status.FAIL
        summary = f"{passed}/{len(criteria)} requirements met"
        if len(judged) > 1:
            summary += f" (reading {reading or 'expected'}, best of {len(judged)})"
        return record(status, summary, criteria, admission.result)


_STARTS: Recent[tuple[str, str], frozenset[str]] = Recent(1024)
"""The requirements and guards a task's starting cluster meets, by the task's content version
and the reading judged: the same for every verification of that task."""


def _judged(
    found: Meaning,
    reference: Meaning | None,
    expected: dict[str, Expectations],
    reading: str,
    task: Task,
) -> tuple[Criterion, ...]:
    """``found`` judged by the requirements of ``reading``, then by the guards against
    ``reference`` when there is one."""
    criteria = judge(expected[reading], found, task.id)
    if reference is not None:
        kinds = config_spec(task).kinds
        criteria += guard_criteria(
            found, reference, expected.values(), kinds=kinds, task_id=task.id
        )
    return criteria


def _reference(task: Task) -> Files | None:
    """The reference's YAML files, for the guards; None when the task has no reference."""
    files = task.solutions.get("reference")
    if not files:
        return None
    return {name: data for name, data in files.items() if name.endswith(YAML_SUFFIXES)}


def _standing(criteria: tuple[Criterion, ...]) -> tuple[bool, float]:
    """How close a reading's criteria come to a pass: all met first, then the share met."""
    met = sum(c.passed for c in criteria)
    return met == len(criteria), met / max(len(criteria), 1)


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
            score=verdict_score(criteria) if status is not Status.ERROR and criteria else 0.0,
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


__all__ = ["ConfigFamily"]
