"""What happens to a submission before it is judged: its files read in a sandbox, each object
checked as the API server would (an object, a kind the task accepts, valid against the pinned
schema, accepted by the API server's own validation), and applied to the task's cluster.

Every problem of the submission is a refusal with evidence; problems of the task raise
:class:`TaskFormatError`; the sandbox failing raises :class:`SandboxError`, the reader failing to
start :class:`VerifierError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assay.errors import TaskFormatError
from assay.families.config.documents import (
    YAML_SUFFIXES,
    Documents,
    Object,
    Unreadable,
    oversized,
    placed,
    read_yaml,
)
from assay.families.config.meaning import Meaning, applied, meaning
from assay.families.config.schema import schema_problem
from assay.families.config.selectors import ObjectError
from assay.families.config.spec import ConfigSpec
from assay.sandbox.protocol import ExecResult, Sandbox
from assay.tasks.model import Files, Task
from assay.verdicts import Criterion

MAX_OBJECTS = 100
"""Most objects one submission may hold (each is schema-validated in the trusted process)."""


@dataclass(frozen=True)
class Admission:
    """A submission admitted (``meaning`` set) or refused (``refusals`` say why)."""

    meaning: Meaning | None
    """What the cluster means with the submission applied; None when it was not applied."""
    summary: str
    refusals: tuple[Criterion, ...] = ()
    result: ExecResult | None = None
    """The reader's run; None when the files were refused before it."""
    stopped: bool = False
    """The reader stopped before it read the task's own cluster (an infrastructure problem)."""
    reference: Meaning | None = None
    """What the cluster means with the task's reference applied, when it was asked for and
    read (the guards of :mod:`.guards` compare against it)."""
    start: Meaning | None = None
    """What the task's own cluster means, nothing applied: where doing nothing leaves it."""


def admit(
    task: Task,
    spec: ConfigSpec,
    solution: Files,
    sandbox: Sandbox,
    *,
    reference: Files | None = None,
) -> Admission:
    """Read ``solution`` and apply it to ``task``'s cluster; with ``reference`` (the task's
    reference solution), read it in the same run, before the submission, and apply it too."""
    cluster_file = task.workspace.get(spec.cluster)
    if cluster_file is None:
        raise TaskFormatError(
            f"workspace/{spec.cluster} does not exist",
            path=f"{task.id}/task.toml",
            field="config.cluster",
            fix="name the cluster file of workspace/",
        )
    names = sorted(solution)
    refused = [
        Unreadable(name, f"not a YAML file (use {' or '.join(YAML_SUFFIXES)})")
        for name in names
        if not name.endswith(YAML_SUFFIXES)
    ]
    if not names:
        refused.append(Unreadable("(submission)", "no YAML file was submitted"))
    submission = [(name, solution[name]) for name in names]
    refused += oversized(submission)
    if refused:
        return Admission(None, "the submission was refused", _unreadable(refused))
    theirs = [] if reference is None else sorted(reference.items())
    run = read_yaml(
        sandbox,
        [(spec.cluster, cluster_file), *theirs, *submission],
        task.spec.limits,
        kubectl_from=1 + len(theirs),
    )
    cluster, *parsed = run.parsed
    read_reference, submitted = parsed[: len(theirs)], parsed[len(theirs) :]
    where = f"{task.id}/workspace/{spec.cluster}"
    if isinstance(cluster, Unreadable):
        if cluster.stopped:
            text = f"the task's {spec.cluster} was not read: {cluster.reason}"
            return Admission(None, text, result=run.result, stopped=True)
        reason = " ".join(cluster.reason.split())
        raise TaskFormatError(reason, path=where, fix="write the cluster as plain YAML")
    unreadable = [p for p in submitted if isinstance(p, Unreadable)]
    if unreadable:
        return Admission(None, "the YAML could not be read", _unreadable(unreadable), run.result)
    objects, problems = _objects(spec, [p for p in submitted if isinstance(p, Documents)])
    if problems:
        return Admission(None, "objects were refused", tuple(problems), run.result)
    existing = _task_objects(cluster, where)
    try:
        start = meaning(existing)  # the task's own objects must be sound by themselves
    except ObjectError as exc:
        raise TaskFormatError(str(exc), path=where, fix="correct the object") from None
    try:
        found = meaning(applied(existing, objects))
    except ObjectError as exc:
        refusal = _refusal("objects", str(exc), "api")
        return Admission(None, "the API server would refuse an object", (refusal,), run.result)
    count = f"{len(objects)} object" + ("" if len(objects) == 1 else "s")
    baseline = _reference(task, existing, read_reference) if theirs else None
    return Admission(found, f"{count} applied", (), run.result, reference=baseline, start=start)


def _reference(
    task: Task, cluster: Sequence[Object], parsed: Sequence[Documents | Unreadable]
) -> Meaning | None:
    """The cluster with the reference applied; None when the reader stopped before it. A
    reference that does not read or apply is the task's fault."""
    where = f"{task.id}/solutions/reference"
    objects: list[Object] = []
    for part in parsed:
        if isinstance(part, Unreadable):
            if part.stopped:
                return None
            raise TaskFormatError(part.reason, path=where, fix="write the reference as plain YAML")
        objects += _task_objects(part, where)
    try:
        return meaning(applied(cluster, objects))
    except ObjectError as exc:
        raise TaskFormatError(str(exc), path=where, fix="correct the object") from None


def _task_objects(documents: Documents, path: str) -> list[Object]:
    """The objects of a task's own file (its cluster, its reference), lists read as kubectl
    reads them; a list kubectl would refuse is the task's fault."""
    objects: list[Object] = []
    for part in placed(documents.objects):
        if part.problem is not None:
            raise TaskFormatError(
                f"{part.where}: {part.problem}", path=path, fix="correct the object"
            )
        if isinstance(part.value, Mapping):
            objects.append(dict(part.value))
    return objects


def _objects(
    spec: ConfigSpec, documents: Sequence[Documents]
) -> tuple[list[Object], list[Criterion]]:
    """The submitted objects, and a refusal for each that is not an object, is of a kind the
    task does not accept, or is invalid against the schema."""
    objects: list[tuple[str, Object]] = []
    problems: list[Criterion] = []
    for parsed in documents:
        for part in placed(parsed.objects):
            where = f"{parsed.name} {part.where}"
            if part.problem is not None:
                problems.append(_refusal(where, part.problem, "yaml"))
            elif not isinstance(part.value, Mapping):
                problems.append(_refusal(where, "is not a YAML mapping (an object)", "yaml"))
            else:
                objects.append((where, dict(part.value)))
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
