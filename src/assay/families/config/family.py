"""The ``config`` family: Kubernetes objects judged by what they mean in the task's cluster."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from assay.errors import SandboxError, SolutionFormatError, TaskFormatError, VerifierError
from assay.families import version_label
from assay.families.config.documents import (
    PACKAGES,
    PARSER,
    YAML_SUFFIXES,
    Documents,
    Object,
    Parsed,
    Unreadable,
    oversized,
    read_yaml,
)
from assay.families.config.expectations import (
    Expectations,
    expectations,
    judge_only,
    judge_permissions,
    judge_reachability,
)
from assay.families.config.lint import lint_config_task
from assay.families.config.meaning import applied, meaning
from assay.families.config.schema import library_version, schema_problem
from assay.families.config.selectors import ObjectError
from assay.families.config.spec import ConfigSpec, config_spec
from assay.findings import Finding
from assay.sandbox import python_environment
from assay.sandbox.protocol import ExecResult, Sandbox
from assay.tasks.model import Files, Task
from assay.tasks.taskdir import read_files
from assay.verdicts import Criterion, Status, Timings, Verdict, Versions, verdict_score

VERSION = f"1+schemas-{library_version()}"
"""The verifier's version, with that of the schemas it validates against (they can change a
verdict too)."""
EMPTY_FILE = "empty.yaml"
MAX_OBJECTS = 100
"""Most objects one submission may hold (each is schema-validated in the trusted process)."""


class ConfigFamily:
    """Kubernetes configuration tasks. See :mod:`assay.families.config` for the task layout."""

    name = "config"
    version = VERSION
    trusted_code: tuple[str, ...] = (PARSER,)

    def load_solution(self, path: Path) -> Files:
        """A solution directory of YAML files, or a single YAML file taken as it is named."""
        path = Path(path)
        if path.is_file():
            return {path.name: path.read_bytes()}
        if path.is_dir():
            return read_files(path)
        raise SolutionFormatError(
            "no such file or directory", path=path, fix="pass a YAML file or its directory"
        )

    def empty_solution(self, task: Task) -> Files:
        """A YAML file with no objects: the cluster as it is."""
        return {EMPTY_FILE: b"# nothing to apply\n"}

    def lint(self, task: Task) -> list[Finding]:
        """Static checks of the task's config-family parts."""
        return lint_config_task(task)

    def verify(self, task: Task, solution: Files, sandbox: Sandbox) -> Verdict:
        """Read the submitted YAML in ``sandbox``, validate every object against the pinned
        Kubernetes schema, apply it to the task's cluster and judge what it means."""
        spec = config_spec(task)
        expected = expectations(task)
        cluster_file = task.workspace.get(spec.cluster)
        if cluster_file is None:
            raise TaskFormatError(
                f"workspace/{spec.cluster} does not exist",
                path=f"{task.id}/task.toml",
                field="config.cluster",
                fix="name the cluster file of workspace/",
            )
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
        names = sorted(solution)
        refused = [
            Unreadable(name, f"not a YAML file (use {' or '.join(YAML_SUFFIXES)})")
            for name in names
            if not name.endswith(YAML_SUFFIXES)
        ]
        if not names:
            refused.append(Unreadable("(submission)", "no YAML file was submitted"))
        files = [(spec.cluster, cluster_file), *((name, solution[name]) for name in names)]
        refused += oversized(files[1:])
        if refused:
            return record(Status.FAIL, "the submission was refused", _unreadable(refused))
        try:
            run = read_yaml(sandbox, files, task.spec.limits)
        except SandboxError as exc:
            return record(Status.ERROR, f"sandbox error: {exc}")
        except VerifierError as exc:
            return record(Status.ERROR, f"verifier error: {exc}")
        status, summary, criteria = _judge(spec, expected, run.parsed, task.id)
        return record(status, summary, criteria, run.result)


def _judge(
    spec: ConfigSpec, expected: Expectations, parsed: Sequence[Parsed], task_id: str
) -> tuple[Status, str, tuple[Criterion, ...]]:
    """The status, summary and criteria of the read files (the cluster's first)."""
    cluster, *submitted = parsed
    where = f"{task_id}/workspace/{spec.cluster}"
    if isinstance(cluster, Unreadable):
        if cluster.stopped:
            return Status.ERROR, f"the task's {spec.cluster} was not read: {cluster.reason}", ()
        reason = " ".join(cluster.reason.split())
        raise TaskFormatError(reason, path=where, fix="write the cluster as plain YAML")
    unreadable = [p for p in submitted if isinstance(p, Unreadable)]
    if unreadable:
        return Status.FAIL, "the YAML could not be read", _unreadable(unreadable)
    objects, problems = _objects(spec, [p for p in submitted if isinstance(p, Documents)])
    if problems:
        return Status.FAIL, "objects were refused", tuple(problems)
    try:
        meaning(cluster.objects)  # the task's own objects must be sound by themselves
    except ObjectError as exc:
        raise TaskFormatError(str(exc), path=where, fix="correct the object") from None
    try:
        found = meaning(applied(cluster.objects, objects))
    except ObjectError as exc:
        refusal = Criterion(name="objects", passed=False, evidence=str(exc)[:2000], kind="api")
        return Status.FAIL, "the API server would refuse an object", (refusal,)
    criteria = (
        judge_reachability(expected.reachability, found.reachability, task_id)
        + judge_permissions(expected.permissions, found.permissions)
        + judge_only(expected.only, found.permissions)
    )
    passed = sum(c.passed for c in criteria)
    status = Status.PASS if passed == len(criteria) else Status.FAIL
    return status, f"{passed}/{len(criteria)} requirements met", tuple(criteria)


def _objects(
    spec: ConfigSpec, documents: Sequence[Documents]
) -> tuple[list[Object], list[Criterion]]:
    """The submitted objects, and a criterion for each that is refused (not an object, a kind
    the task does not accept, or invalid against the schema)."""
    objects: list[tuple[str, Object]] = []
    problems: list[Criterion] = []
    for parsed in documents:
        for index, obj in enumerate(parsed.objects):
            where = f"{parsed.name} document {index + 1}"
            if not isinstance(obj, Mapping):
                problems.append(_refusal(where, "is not a YAML mapping (an object)", "yaml"))
            else:
                objects.append((where, obj))
    if len(objects) > MAX_OBJECTS:
        problems.append(_refusal("(submission)", f"more than {MAX_OBJECTS} objects", "size"))
        return [], problems
    for where, obj in objects:
        kind = obj.get("kind")
        if kind not in spec.kinds:
            accepted = ", ".join(spec.kinds)
            text = f"kind {str(kind)[:80]!r} is not one this task accepts ({accepted})"
            problems.append(_refusal(where, text, "kind"))
            continue
        problem = schema_problem(obj, spec.kubernetes)
        if problem is not None:
            problems.append(_refusal(where, f"{kind}: {problem}", "schema"))
    return [obj for _where, obj in objects], problems


def _refusal(where: str, what: str, kind: str) -> Criterion:
    return Criterion(name=where[:200], passed=False, evidence=what[:2000], kind=kind)


def _unreadable(files: Sequence[Unreadable]) -> tuple[Criterion, ...]:
    return tuple(_refusal(f.name, f.reason, "yaml") for f in files)


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
