"""The ``mutation`` check: near misses of the reference must fail, or the verifier is weak.

The family makes mutants of the task's reference (:class:`assay.families.base.MutationFamily`;
for code see :mod:`assay.families.code.mutants`, for SQL the family's own): one flipped
comparison, one dropped filter, one constant off by one. Each is verified like a submission. A
mutant that fails is *killed*; one that passes *survives*: the verifier cannot tell it from the
reference. The score is killed / (killed + survived); mutants whose verification ended in
``error`` are left out of it and counted beside it.

Some survivors are equivalent to the reference (``x < 0`` and ``x <= 0`` when zero cannot
occur), so a survivor is not proof of a broken verifier: the survivors' diffs are shown for a
person to judge. A score under :data:`WEAK_SCORE` is a warning; any survivor above it is noted.
Neither rejects the task.

Mutants are verified with time and CPU limits fitted to the reference
(:mod:`assay.audit.fitting`), since a mutant that loops forever would otherwise cost the task's
whole limit; a mutant that runs out of time fails, which is a kill. A mutant may use
:data:`CPU_FACTOR` times the reference's CPU time, never less than :data:`MIN_CPU_S` (a fifth
of the red-team's floor): one that takes more has changed its complexity, not its answer's
spelling. The mutants that loop, about one task in two, each cost that limit.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.audit.base import AuditContext, CheckOutcome
from assay.audit.fitting import fitted_to_reference
from assay.audit.report import MutationResult, SurvivingMutant
from assay.families.base import Mutant, MutationFamily
from assay.findings import Finding, Severity
from assay.tasks.model import Task
from assay.verdicts import Status

CPU_FACTOR = 5.0
"""A mutant may use this many times the reference's CPU time (the whole run's: its own work
and what any run of the task costs, the fork and the harness)..."""
MIN_CPU_S = 0.02
"""...but never less than this: five of the kernel's 4 ms ticks, at which the limit is
enforced, and over twice the costliest mutant that ended among 684 of 30 generated code tasks
(8.3 ms). With 10x and 0.05 s, every mutant of 80 more code tasks and of eight tasks of each
other family got the same verdict; the mutants that loop cost half as much."""

WEAK_SCORE = 0.6
"""Below this share of mutants killed, the verifier is called weak: a warning that needs a
person (the task is quarantined)."""
SHOWN_SURVIVORS = 5
"""Survivors whose diffs a finding shows."""
DIFF_CHARS = 2000
"""Characters of a survivor's diff kept, in the report and in the finding: a mutant of a long
line (a table written on one line) would otherwise put the whole line in, twice, for every
survivor."""


@dataclass(frozen=True)
class MutationScore:
    """What the mutants of one task came to."""

    killed: int
    survivors: list[Mutant]
    errors: int

    @property
    def score(self) -> float | None:
        """Killed over decided mutants; None when no mutant was decided."""
        decided = self.killed + len(self.survivors)
        return self.killed / decided if decided else None

    def record(self) -> MutationResult:
        """The score and every survivor's diff, as the task's audit keeps them."""
        score = self.score
        return MutationResult(
            killed=self.killed,
            errors=self.errors,
            score=None if score is None else round(score, 4),
            survivors=tuple(
                SurvivingMutant(name=m.name, diff=_clipped(m.diff)) for m in self.survivors
            ),
        )


class MutationCheck:
    """Mutants of the reference fail the task's verifier."""

    name = "mutation"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        """Verify each of the family's mutants; nothing to do for a family without them or a
        task whose reference does not pass (the reference check reports that)."""
        family = context.family
        if not isinstance(family, MutationFamily):
            return CheckOutcome()
        mutants = family.mutants(task)
        if not mutants:
            return CheckOutcome()
        fitted = fitted_to_reference(task, context, min_cpu_s=MIN_CPU_S, cpu_factor=CPU_FACTOR)
        if fitted is None:
            return CheckOutcome()
        result = mutation_score(fitted, mutants, context)
        finding = _finding(self.name, result, len(mutants))
        return CheckOutcome(findings=[] if finding is None else [finding], mutation=result.record())


def mutation_score(task: Task, mutants: list[Mutant], context: AuditContext) -> MutationScore:
    """Verify every mutant of ``task`` and count the kills."""
    killed, errors = 0, 0
    survivors = []
    verdicts = context.verify_many([(task, mutant.files) for mutant in mutants])
    for mutant, verdict in zip(mutants, verdicts, strict=True):
        status = verdict.status
        if status is Status.PASS:
            survivors.append(mutant)
        elif status is Status.ERROR:
            errors += 1
        else:
            killed += 1
    return MutationScore(killed=killed, survivors=survivors, errors=errors)


def _finding(check: str, result: MutationScore, made: int) -> Finding | None:
    score = result.score
    if score is None or not result.survivors:
        return None
    decided = result.killed + len(result.survivors)
    errored = f"; {result.errors} ended in error and are not counted" if result.errors else ""
    counts = f"{result.killed} of {decided} mutants of the reference fail{errored}"
    weak = score < WEAK_SCORE
    if weak:
        severity = Severity.WARNING
        message = (
            f"weak verifier: only {counts} (score {score:.2f}, under {WEAK_SCORE}): add hidden "
            "cases that tell the surviving near misses from the reference"
        )
    else:
        severity = Severity.INFO
        message = f"{counts} (score {score:.2f}); {len(result.survivors)} survive"
    shown = result.survivors[:SHOWN_SURVIVORS]
    more = len(result.survivors) - len(shown)
    evidence = "\n\n".join(f"{mutant.name[:200]}\n{_clipped(mutant.diff)}" for mutant in shown)
    if more:
        evidence += f"\n\n[{more} more survivors of {made} mutants]"
    # A weak verifier needs a person: most near misses of the answer are paid as right.
    return Finding(check=check, severity=severity, message=message, evidence=evidence, review=weak)


def _clipped(diff: str) -> str:
    """``diff`` cut at :data:`DIFF_CHARS`, marked where it was cut."""
    return diff if len(diff) <= DIFF_CHARS else diff[:DIFF_CHARS] + "\n[...]"
