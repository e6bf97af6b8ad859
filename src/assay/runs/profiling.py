"""The pass-rate profile of a stored rollout run (``assay profile``, ``assay audit --profile``)."""

from __future__ import annotations

from assay.errors import InputError
from assay.profiles import RunProfile, Sample, build_profile
from assay.runs.plan import kept_spec
from assay.store import Store


def run_profile(store: Store, run: str) -> RunProfile:
    """The profile of rollout run ``run`` from the verdicts kept so far: every task of the run
    is listed, those without a finished episode with no sample.

    Raises :class:`InputError` when there is no such rollout run, or one whose record another
    assay wrote.
    """
    record = store.run(run)
    if record is None or record.kind != "rollout":
        what = "no rollout run" if record is None else f"an {record.kind} run, not a rollout:"
        raise InputError(
            f"{what} {run!r}",
            field="profile",
            fix="name a run made by `assay run` or `assay profile` (`assay runs` lists them)",
        )
    spec = kept_spec(
        run,
        record.spec,
        doing="profiled",
        field="profile",
        fix="profile it with the assay that wrote it, or run the tasks again under another "
        "--run name",
    )
    versions = dict(spec.tasks)
    samples = [
        Sample(task_id=kept.verdict.task_id, sample=kept.sample, status=kept.verdict.status.value)
        for kept in store.verdicts(run_id=run)
        if kept.sample is not None
    ]
    profile = build_profile(run, spec.k, samples, task_ids=versions)
    return RunProfile(profile=profile, versions=versions)
