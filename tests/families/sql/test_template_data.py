"""The data a template's visible database is built from tells its answer from near misses."""

from __future__ import annotations

import random
import sqlite3

import pytest

from assay.families.sql.templates import claims, ledger

OUTSTANDING = (
    "SELECT c.id, c.amount - COALESCE({aggregate}(p.amount), 0) AS outstanding FROM claims AS c "
    "JOIN policies AS o ON o.id = c.policy_id LEFT JOIN payments AS p ON p.claim_id = c.id "
    "WHERE c.status = 'approved' AND o.product = ? GROUP BY c.id, c.amount ORDER BY c.id"
)


@pytest.mark.parametrize("seed", range(12))
def test_claims_paid_in_parts_tell_a_sum_of_payments_from_their_average(seed: int) -> None:
    database = sqlite3.connect(":memory:")
    database.executescript(claims.SCHEMA.build(random.Random(seed)))
    products = [row[0] for row in database.execute("SELECT DISTINCT product FROM policies")]
    for product in products:
        right = database.execute(OUTSTANDING.format(aggregate="SUM"), (product,)).fetchall()
        for wrong in ("AVG", "MAX", "MIN"):
            near = database.execute(OUTSTANDING.format(aggregate=wrong), (product,)).fetchall()
            assert near != right, (seed, product, wrong)


UNREVERSED = (
    "SELECT e.id FROM entries AS e WHERE e.posted_on >= ? AND e.posted_on < ? "
    "AND e.reverses IS NULL{standing} ORDER BY e.id"
)


@pytest.mark.parametrize("seed", range(12))
def test_every_month_of_the_ledger_has_an_entry_reversed_since(seed: int) -> None:
    database = sqlite3.connect(":memory:")
    database.executescript(ledger.SCHEMA.build(random.Random(seed)))
    standing = " AND NOT EXISTS (SELECT 1 FROM entries AS r WHERE r.reverses = e.id)"
    for month in range(1, 7):
        window = (f"2024-{month:02d}-01", f"2024-{month + 1:02d}-01")
        right = database.execute(UNREVERSED.format(standing=standing), window).fetchall()
        near = database.execute(UNREVERSED.format(standing=""), window).fetchall()
        assert near != right, (seed, month)
