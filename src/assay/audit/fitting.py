"""Limits fitted to the reference, for the audit's own runs of mutants and exploits.

A task's limits are what a real attempt gets (10 s and 512 MiB by default). A mutant that loops
forever, or an exploit that spins or hoards memory, would cost that whole limit in every audit,
although the reference shows what the task needs: a few milliseconds and a few MiB for most. So
the mutation and red-team checks verify with limits fitted to the reference's own run:
:data:`TIME_FACTOR` times its wall time (never under :data:`MIN_TIMEOUT_S`, so that a loaded
machine does not turn slowness into a verdict), :data:`CPU_FACTOR` times its CPU time (never
under :data:`MIN_CPU_S`) and :data:`MEMORY_FACTOR` times its peak memory (never under
:data:`MIN_MEMORY_MB`); never more than the task's own. CPU time is what a spinning run burns
and is little moved by other work on the machine, so the CPU limit is the one that stops a loop
early; the wall limit stays generous for a run that sleeps.
"""

from __future__ import annotations

import math

from assay.audit.base import AuditContext
from assay.tasks.model import Task
from assay.verdicts import Status

TIME_FACTOR = 4.0
"""A run may take this many times the reference's wall time..."""
MIN_TIMEOUT_S = 2.0
"""...but never less than this."""
CPU_FACTOR = 10.0
"""A run may use this many times the reference's CPU time..."""
MIN_CPU_S = 0.1
"""...but never less than this: twenty times what a typical generated task's reference uses,
and more than the costliest of the red-team's hacks take (a huge answer, a flood of output),
which would otherwise be verified again under the task's own limits."""
MEMORY_FACTOR = 8
"""A run may use this many times the reference's peak memory (where the backend measures it)..."""
MIN_MEMORY_MB = 16
"""...but never less than this: eight times a typical reference's job (2 MiB). A hack that
hoards memory costs the time it takes to fill it (the memory bomb: 12 ms of CPU at 16 MiB, 22 at
32). The red-team's huge answer peaks at 12 MiB and still ends in the harness's refusal, as it
does alone: in batches and alone, the hacks and mutants of generated tasks get the same verdicts
at this floor."""


def fitted_to_reference(
    task: Task,
    context: AuditContext,
    *,
    min_cpu_s: float = MIN_CPU_S,
    cpu_factor: float = CPU_FACTOR,
) -> Task | None:
    """``task`` with its time and CPU limits fitted to its reference's run (see the module
    docstring; ``min_cpu_s`` and ``cpu_factor`` instead of :data:`MIN_CPU_S` and
    :data:`CPU_FACTOR`), or None when it has no reference or the reference does not pass."""
    references = task.references()
    reference = references.get("reference") or next(iter(references.values()), None)
    if reference is None:
        return None
    verdict = context.verify(task, reference)
    if verdict.status is not Status.PASS:
        return None
    limits = task.spec.limits
    timeout = min(limits.timeout_s, max(MIN_TIMEOUT_S, TIME_FACTOR * verdict.timings.wall_s))
    cpu = min(limits.cpu_s, max(min_cpu_s, cpu_factor * verdict.timings.sandbox_cpu_s))
    update: dict[str, float | int] = {"timeout_s": timeout, "cpu_s": cpu}
    peak = verdict.timings.peak_memory_mb
    if peak is not None:
        update["memory_mb"] = min(
            limits.memory_mb, max(MIN_MEMORY_MB, math.ceil(MEMORY_FACTOR * peak))
        )
    fitted = limits.model_copy(update=update)
    return task.model_copy(update={"spec": task.spec.model_copy(update={"limits": fitted})})
