"""The hidden cases of a change test what its report is about: a fix that leaves the reported
behaviour broken fails, whatever else it gets right."""

from __future__ import annotations

import pytest

from assay.families.repo import RepoFamily
from assay.families.repo.generator import make_task
from assay.families.repo.templates import TEMPLATES
from assay.sandbox import PoolSandbox
from assay.verdicts import Status

pytestmark = pytest.mark.sandbox

SIZES = "logkeep/sizes.py"
DECIMAL = 'UNITS = {"": 1, "K": 1000, "M": 1000**2, "G": 1000**3}\n'
ALL_BUT_MEGABYTES = 'UNITS = {"": 1, "K": 1024, "M": 1000**2, "G": 1024**3}\n'


@pytest.mark.parametrize("seed", [3, 11])
def test_binary_units_fixed_but_for_the_reported_megabytes_fails(
    pool: PoolSandbox, seed: int
) -> None:
    """The report is about ``max_size = 100M`` and shows ``parse_size('921M')``, but the
    hidden cases drew kilobytes and gigabytes only: K and G made binary, M left decimal,
    passed every case. The change now draws a size in megabytes too."""
    [template] = [t for t in TEMPLATES if t.id == "log-retention"]
    [change] = [c for c in template.changes if c.id == "binary-size-units"]
    task = make_task((template, change, "forwarded"), seed, 0, pool)
    assert "M')" in task.prompt  # the reporter's call is in megabytes
    source = task.workspace[SIZES].decode()
    assert DECIMAL in source
    partial = {**task.workspace, SIZES: source.replace(DECIMAL, ALL_BUT_MEGABYTES).encode()}
    verdict = RepoFamily().verify(task, partial, pool)
    assert verdict.status is Status.FAIL, verdict.summary
    assert RepoFamily().verify(task, task.references()["reference"], pool).status is Status.PASS


CONFIG = "logkeep/config.py"


@pytest.mark.parametrize("seed", [3, 11])
def test_maxage_fixed_but_the_default_lost_fails(pool: PoolSandbox, seed: int) -> None:
    """The maxage fix touches the lookup that ends in ``return DEFAULT_KEEP_DAYS``, but no case
    loaded a config with neither keep_days nor maxage: a fix returning None there (every
    rotated log deleted) passed every case, and the audit's mutant of it survived."""
    [template] = [t for t in TEMPLATES if t.id == "log-retention"]
    [change] = [c for c in template.changes if c.id == "deprecated-maxage"]
    task = make_task((template, change, "ticket"), seed, 0, pool)
    reference = task.references()["reference"]
    source = reference[CONFIG].decode()
    assert "    return DEFAULT_KEEP_DAYS\n" in source
    lost = source.replace("    return DEFAULT_KEEP_DAYS\n", "    return None\n")
    verdict = RepoFamily().verify(task, {**reference, CONFIG: lost.encode()}, pool)
    assert verdict.status is Status.FAIL, verdict.summary
    assert RepoFamily().verify(task, reference, pool).status is Status.PASS


AMOUNTS = "invoicing/amounts.py"


@pytest.mark.parametrize("seed", [5, 10, 19])
def test_parentheses_read_one_character_short_fail(pool: PoolSandbox, seed: int) -> None:
    """A fix that cut one character too many before the closing parenthesis read "(310,10)" as
    "310,1", the same amount: where the one case of plain cents drew cents ending in 0 (these
    seeds), it passed every case, and the audit's mutant of it survived."""
    [template] = [t for t in TEMPLATES if t.id == "invoice-importer"]
    [change] = [c for c in template.changes if c.id == "accounting-negatives"]
    task = make_task((template, change, "ticket"), seed, 0, pool)
    reference = task.references()["reference"]
    source = reference[AMOUNTS].decode()
    assert "cleaned[1:-1]" in source
    short = source.replace("cleaned[1:-1]", "cleaned[1:-2]")
    verdict = RepoFamily().verify(task, {**reference, AMOUNTS: short.encode()}, pool)
    assert verdict.status is Status.FAIL, verdict.summary


SCORES = "gradebook/scores.py"
ROUNDED = "    return max(0.0, round(points - LATE_PENALTY * max_points * days_late, 2))\n"


@pytest.mark.parametrize("seed", [2, 3, 8])
def test_late_points_rounded_to_another_place_fail(pool: PoolSandbox, seed: int) -> None:
    """Late points are rounded to cents, but where every case's penalty had two decimals
    (these seeds drew 2 days late at 17.75 points), a fix rounding to three passed every case,
    and the audit's mutant of it survived."""
    [template] = [t for t in TEMPLATES if t.id == "course-gradebook"]
    [change] = [c for c in template.changes if c.id == "late-penalty"]
    task = make_task((template, change, "ticket"), seed, 0, pool)
    reference = task.references()["reference"]
    source = reference[SCORES].decode()
    assert ROUNDED in source
    other = source.replace(ROUNDED, ROUNDED.replace(", 2))", ", 3))"))
    verdict = RepoFamily().verify(task, {**reference, SCORES: other.encode()}, pool)
    assert verdict.status is Status.FAIL, verdict.summary


TIMESHEET = "payroll/stundenzettel.py"


@pytest.mark.parametrize(
    "near_miss",
    [
        ("        return 0\n", "        return None\n"),  # a blank break is no longer 0
        ("    if not units.isdigit() or (comma", "    if not units.isdigit() and (comma"),
    ],
)
def test_a_break_parser_that_loses_blank_or_garbage_cells_fails(
    pool: PoolSandbox, near_miss: tuple[str, str]
) -> None:
    """The break-in-hours change writes a new parser for the break cell; no case held a blank
    cell (the workspace reads it as 0) or one that is no number with a comma (refused), so a
    parser that returned None for the one or read the other passed every case, and the
    audit's mutants of it survived."""
    [template] = [t for t in TEMPLATES if t.id == "payroll-overtime"]
    [change] = [c for c in template.changes if c.id == "break-in-hours"]
    task = make_task((template, change, "ticket"), 0, 0, pool)
    reference = task.references()["reference"]
    source = reference[TIMESHEET].decode()
    old, new = near_miss
    assert old in source
    changed = source.replace(old, new, 1)
    verdict = RepoFamily().verify(task, {**reference, TIMESHEET: changed.encode()}, pool)
    assert verdict.status is Status.FAIL, verdict.summary


CARRIERS = "shiprate/carriers.py"
LIMIT = 'limit = int(Decimal(row["max_kg"]) * 1000)'


@pytest.mark.parametrize("seed", [0, 4])
def test_a_rate_table_read_with_band_limits_a_little_off_fails(
    pool: PoolSandbox, seed: int
) -> None:
    """The table-notes change rewrites the line that turns a band's max_kg into grams; no case
    weighed a parcel just past a band, so limits read 0.1% high (times 1001) passed every
    case of every task, and the audit's mutant of it survived."""
    [template] = [t for t in TEMPLATES if t.id == "shipping-rates"]
    [change] = [c for c in template.changes if c.id == "table-notes-column"]
    task = make_task((template, change, "ticket"), seed, 0, pool)
    reference = task.references()["reference"]
    source = reference[CARRIERS].decode()
    assert LIMIT in source
    off = source.replace(LIMIT, LIMIT.replace("1000", "1001"))
    verdict = RepoFamily().verify(task, {**reference, CARRIERS: off.encode()}, pool)
    assert verdict.status is Status.FAIL, verdict.summary
