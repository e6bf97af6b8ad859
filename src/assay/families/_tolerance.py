"""The loosest float tolerance a task may take without a person, and lint's finding for one
looser (the code and SQL families)."""

from __future__ import annotations

from assay.findings import Finding, Severity

MAX_FLOAT_TOLERANCE = 1e-2
"""The loosest ``float_tolerance`` taken without a person: answers rounded to two places, the
loosest the importers' recorder states. A looser one lets a number that far off pass, which the
sensitivity check's probes (a float moved by more than one) do not show; lint marks it for
review, and the audit quarantines the task."""


def loose_tolerance(tolerance: float, *, check: str, kind: str, table: str) -> list[Finding]:
    """A warning for review when ``tolerance`` is above :data:`MAX_FLOAT_TOLERANCE` (a
    ``kind`` of answer, "float" or "number", that close to the expected one passes), naming the
    ``[table]`` of task.toml to set it in; none otherwise."""
    if tolerance <= MAX_FLOAT_TOLERANCE:
        return []
    off = (
        f"a {kind} {tolerance * 100:.3g}% off the expected value"
        if tolerance < 1
        else f"any {kind} of the expected value's sign"  # relative to the larger of the two
    )
    return [
        Finding(
            check=check,
            severity=Severity.WARNING,
            review=True,
            message=f"float_tolerance = {tolerance:g} in task.toml passes {off} (and any "
            f"within {tolerance:g} of it): a wrong answer passes; review it, or set "
            f"float_tolerance to at most {MAX_FLOAT_TOLERANCE:g} in the [{table}] table",
        )
    ]
