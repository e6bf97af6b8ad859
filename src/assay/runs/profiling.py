"""The pass-rate profile of a stored rollout run (``assay profile``, ``assay audit --profile``)."""

from __future__ import annotations

from assay.errors import InputError
from assay.profiles import RunProfile, Sample, build_profile
from assay.store import Store


def run_profile(store: Store, run: str) -> RunProfile:
    """The profile of rollout run ``run`` from the verdicts kept so far: every task of the run
    is listed, those without a finished episode with no sample.

    Raises :class:`InputError` when there is no such rollout run.
    """
    record = store.run(run)
    if record is None or record.kind != "rollout":
        what = "no rollout run" if record is None else f"an {record.kind} run, not a rollout:"
        raise InputError(
            f"{what} {run!r}",
            field="profile",
            fix="name a run made by `assay run` or `assay profile` (`assay runs` lists them)",
        )
    versions = {str(task): str(version) for task, version in record.spec["tasks"].items()}
    samples = [
        Sample(task_id=kept.verdict.task_id, sample=kept.sample, status=kept.verdict.status.value)
        for kept in store.verdicts(run_id=run)
        if kept.sample is not None
    ]
    profile = build_profile(run, int(record.spec["k"]), samples, task_ids=versions)
    return RunProfile(profile=profile, versions=versions)
