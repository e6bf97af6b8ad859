"""Judging a submission's results against the references' and making the verdict."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from assay.families.sql.compare import difference
from assay.families.sql.config import SqlConfig
from assay.families.sql.databases import Database
from assay.families.sql.results import Failed, Table
from assay.sandbox.protocol import ExecResult
from assay.verdicts import Criterion, Status, Timings, Verdict, Versions

if TYPE_CHECKING:
    from assay.families.sql.family import Expected


def judge(
    databases: list[Database],
    outcomes: Sequence[Table | Failed],
    expected: Expected,
    config: SqlConfig,
) -> tuple[list[Criterion], str]:
    """Per-database criteria against the reference the submission matches best."""
    failures = failure_texts(outcomes)
    best: list[Criterion] = []
    best_name = expected.references[0]
    several = len(expected.references) > 1
    for r, name in enumerate(expected.references):
        criteria = []
        for d, database in enumerate(databases):
            outcome = outcomes[d]
            found = failures[d]
            if isinstance(outcome, Table):
                found = difference(
                    expected.tables[r][d],
                    outcome,
                    tolerance=config.float_tolerance,
                    ordering=expected.orderings[r],
                    tied=expected.ties[r][d],
                )
                if found is not None and several:
                    found = f"against {name}: {found}"
            criteria.append(
                Criterion(
                    name=database.name,
                    passed=found is None,
                    evidence=(found or "")[:2000],
                    kind="database",
                )
            )
        if not best or sum(c.passed for c in criteria) > sum(c.passed for c in best):
            best, best_name = criteria, name
        if all(c.passed for c in criteria):
            break  # no later reference can match on more databases
    return best, best_name


def failure_texts(outcomes: Sequence[Table | Failed]) -> list[str | None]:
    """Why the query gave no result on each database (None where it gave one)."""
    texts: list[str | None] = []
    failed_before = False
    for outcome in outcomes:
        if isinstance(outcome, Table):
            texts.append(None)
        elif outcome.kind == "missing" and failed_before:
            texts.append("not run: the query failed on an earlier database")
        else:
            texts.append(f"the query failed ({outcome.kind}): {outcome.message}")
        failed_before = failed_before or isinstance(outcome, Failed)
    return texts


def refused(databases: list[Database], reason: str) -> tuple[Criterion, ...]:
    return tuple(
        Criterion(name=database.name, passed=False, evidence=f"refused: {reason}", kind="database")
        for database in databases
    )


class Recorder:
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
        extra: tuple[ExecResult, ...] = (),
    ) -> Verdict:
        runs = [run for run in (result, *extra) if run is not None]
        return Verdict(
            task_id=self.task_id,
            status=status,
            # The suite is one check: a query right on some databases only is a wrong query.
            score=1.0 if status is Status.PASS else 0.0,
            criteria=criteria,
            summary=summary,
            logs=result.stderr[-4000:] if result else "",
            timings=Timings(
                wall_s=time.monotonic() - self.started,
                sandbox_s=sum(run.wall_s for run in runs),
                sandbox_cpu_s=sum(run.cpu_s for run in runs),
            ),
            versions=self.versions,
        )


def assay_version() -> str:
    from assay import __version__  # noqa: PLC0415 - avoids an import cycle at module load

    return __version__
