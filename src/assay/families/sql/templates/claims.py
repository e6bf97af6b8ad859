"""Insurance claims triage: policies, adjusters, claims and the payments made on them."""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal

from assay.families.sql.templates._model import (
    Formats,
    Question,
    Schema,
    Template,
    inserts,
    moment,
    money,
    month_range,
    sql,
)

_CREATE = """\
-- Claims triage of an insurer. claims.adjuster_id is NULL until the claim is assigned;
-- fraud_flag is NULL until the claim is screened, then 0 (clean) or 1 (flagged).
CREATE TABLE policies (
  id INTEGER PRIMARY KEY,
  holder TEXT NOT NULL,
  product TEXT NOT NULL CHECK (product IN ('home', 'motor', 'travel', 'pet')),
  region TEXT NOT NULL
);

CREATE TABLE adjusters (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  team TEXT NOT NULL
);

CREATE TABLE claims (
  id INTEGER PRIMARY KEY,
  policy_id INTEGER NOT NULL REFERENCES policies (id),
  adjuster_id INTEGER REFERENCES adjusters (id),
  filed_at TIMESTAMP NOT NULL,
  amount DECIMAL(12, 2) NOT NULL CHECK (amount > 0),
  severity INTEGER NOT NULL CHECK (severity BETWEEN 1 AND 5),
  status TEXT NOT NULL CHECK (status IN ('open', 'review', 'approved', 'rejected', 'paid')),
  fraud_flag INTEGER CHECK (fraud_flag IN (0, 1))
);

CREATE TABLE payments (
  id INTEGER PRIMARY KEY,
  claim_id INTEGER NOT NULL REFERENCES claims (id),
  paid_on DATE NOT NULL,
  amount DECIMAL(12, 2) NOT NULL CHECK (amount > 0)
);
"""
_HOLDERS = [
    "A. Moreau",
    "B. Jensen",
    "C. Alvarez",
    "D. Huber",
    "E. Nakamura",
    "F. Greco",
    "G. Lindqvist",
    "H. Ahmed",
    "I. Kowalski",
    "J. Dubois",
    "K. Olsen",
    "L. Ferreira",
    "M. Yilmaz",
    "N. Tanaka",
    "O. Costa",
    "P. Keller",
]
_REGIONS = ("North", "South", "East", "West", "Islands")
_TEAMS = ("Property", "Motor", "Specialty")
_ADJUSTERS = (
    "Rita Voss",
    "Sam Carter",
    "Lea Morin",
    "Jan Kral",
    "Ana Pires",
    "Tom Hale",
    "Mia Roth",
)
_OPEN = "c.status IN ('open', 'review')"
_PRODUCTS = ("home", "motor", "travel", "pet")
_LIMITS = (500, 1000, 2500)
"""Amounts up to which claims are fast-tracked: thresholds of the triage questions."""


def _database(rng: random.Random) -> str:
    policies = [
        (i, holder, rng.choice(_PRODUCTS), rng.choice(_REGIONS))
        for i, holder in enumerate(rng.sample(_HOLDERS, rng.randint(10, 16)), 1)
    ]
    adjusters = [
        (i, name, rng.choice(_TEAMS)) for i, name in enumerate(rng.sample(_ADJUSTERS, 6), 1)
    ]
    claims: list[tuple[object, ...]] = []
    payments: list[tuple[object, ...]] = []
    for number in range(1, rng.randint(40, 60)):
        status = rng.choices(("open", "review", "approved", "rejected", "paid"), (4, 2, 3, 1, 2))[0]
        adjuster = None if status == "open" and rng.random() < 0.5 else rng.randint(1, 6)
        flag = rng.choice((None, 0, 0, 1)) if status != "open" else rng.choice((None, None, 0, 1))
        amount = money(rng, 150, 9000)
        if rng.random() < 0.15:  # right at a fast-track limit
            amount = Decimal(rng.choice(_LIMITS))
        filed = moment(rng, dt.date(2024, 1, 1), 366)
        claims.append(
            (
                number,
                rng.randint(1, len(policies)),
                adjuster,
                filed,
                amount,
                rng.randint(1, 5),
                status,
                flag,
            )
        )
        if status in ("approved", "paid"):
            for _ in range(rng.choice((0, 1, 1, 2))):
                paid_on = filed.date() + dt.timedelta(days=rng.randint(3, 60))
                share = round(amount * rng.choice((1, 2, 3)) / 4, 2)
                payments.append((len(payments) + 1, number, paid_on, share))
    _paid_in_parts(rng, policies, claims, payments)
    return "\n".join(
        (
            _CREATE,
            inserts("policies", policies),
            inserts("adjusters", adjusters),
            inserts("claims", claims),
            inserts("payments", payments),
        )
    )


def _paid_in_parts(
    rng: random.Random,
    policies: list[tuple[int, str, str, str]],
    claims: list[tuple[object, ...]],
    payments: list[tuple[object, ...]],
) -> None:
    """Adds, for each product that has policies, an approved claim paid in two different parts
    unless one is there already: without it a question summing each claim's payments cannot be
    told from one averaging them, or taking the largest."""
    products = {policy[0]: policy[2] for policy in policies}
    parts: dict[object, list[object]] = {}
    for payment in payments:
        parts.setdefault(payment[1], []).append(payment[3])
    covered = {
        products[claim[1]]  # type: ignore[index]
        for claim in claims
        if claim[6] == "approved" and len(set(parts.get(claim[0], ()))) > 1
    }
    for product in _PRODUCTS:
        holders = [policy[0] for policy in policies if policy[2] == product]
        if product in covered or not holders:
            continue
        number = len(claims) + 1
        amount = money(rng, 1000, 9000)
        filed = moment(rng, dt.date(2024, 1, 1), 300)
        adjuster, severity, flag = rng.randint(1, 6), rng.randint(1, 5), rng.choice((None, 0))
        claims.append(
            (number, rng.choice(holders), adjuster, filed, amount, severity, "approved", flag)
        )
        for days, quarters in ((rng.randint(3, 20), 1), (rng.randint(21, 60), 2)):
            share = round(amount * quarters / 4, 2)
            payments.append((len(payments) + 1, number, filed.date() + dt.timedelta(days), share))


SCHEMA = Schema(
    "claims", "claims.sql", "an insurer's policies, adjusters, claims and payments", _database
)


def _period(
    rng: random.Random, f: Formats, kinds: tuple[str, ...] = ("month", "quarter", "half")
) -> tuple[dict[str, object], str]:
    first, last, _ = month_range(rng, kinds=kinds)
    values: dict[str, object] = {
        "start": first,
        "after": last + dt.timedelta(days=1),
        "last": last,
    }
    return values, f"between {f.date(first)} and {f.date(last)} inclusive"


def _triage_queue(rng: random.Random, f: Formats) -> Question:
    k, x = rng.randint(2, 4), rng.choice(_LIMITS)
    values: dict[str, object] = {"k": k, "x": x}
    reference = (
        "SELECT c.id, c.severity, c.amount, c.filed_at FROM claims AS c WHERE c.status = 'open' "
        "AND c.severity >= :k AND c.amount > :x ORDER BY c.severity DESC, c.filed_at"
    )
    return Question(
        ask=f"Build the triage queue: open claims of severity {k} or more and an amount above "
        f"{f.amount(x)}.",
        spec=(
            "Most severe first; among equally severe claims, the oldest first.",
            "Return the claim id, severity, amount and when it was filed.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "severity-boundary": sql(
                reference.replace("c.severity >= :k", "c.severity > :k"), **values
            ),
            "amount-boundary": sql(reference.replace("c.amount > :x", "c.amount >= :x"), **values),
            "dropped-filter": sql(reference.replace("c.status = 'open' AND ", ""), **values),
            "newest-first": sql(reference + " DESC", **values),
        },
        tags=("filter", "order-by", "boundary"),
    )


def _outstanding(rng: random.Random, f: Formats) -> Question:
    del f
    product = rng.choice(_PRODUCTS)
    reference = (
        "SELECT c.id, c.amount - COALESCE(SUM(p.amount), 0) AS outstanding FROM claims AS c "
        "JOIN policies AS o ON o.id = c.policy_id LEFT JOIN payments AS p ON p.claim_id = c.id "
        "WHERE c.status = 'approved' AND o.product = :product GROUP BY c.id, c.amount"
    )
    return Question(
        ask=f"How much is still to be paid on each approved claim on a {product} policy?",
        spec=(
            "Outstanding is the claim amount minus all payments made on it so far.",
            "Return the claim id and the outstanding amount, also for claims paid nothing yet.",
        ),
        references={"reference": sql(reference, product=product)},
        bad={
            "null-mishandled": sql(
                reference.replace("COALESCE(SUM(p.amount), 0)", "SUM(p.amount)"), product=product
            ),
            "inner-join": sql(reference.replace("LEFT JOIN", "JOIN"), product=product),
            "dropped-filter": sql(
                reference.replace("c.status = 'approved' AND ", ""), product=product
            ),
        },
        tags=("left-join", "null", "coalesce"),
    )


def _unassigned_by_region(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    reference = (
        "SELECT p.region, COUNT(*) AS unassigned FROM claims AS c JOIN policies AS p "  # noqa: S608 - template query text; values go through sql()
        f"ON p.id = c.policy_id WHERE c.adjuster_id IS NULL AND {_OPEN} "
        "AND c.filed_at >= :start AND c.filed_at < :after GROUP BY p.region"
    )
    return Question(
        ask=f"Of the claims filed {period} that still wait for a decision, how many have no "
        "adjuster yet, per region?",
        spec=(
            "Waiting means the status is open or review.",
            "Return the region and the count; regions with none are left out.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "count-column": sql(reference.replace("COUNT(*)", "COUNT(c.adjuster_id)"), **values),
            "null-equals": sql(
                reference.replace("c.adjuster_id IS NULL", "c.adjuster_id = NULL"), **values
            ),
            "dropped-filter": sql(reference.replace(f" AND {_OPEN}", ""), **values),
        },
        tags=("null", "count", "group-by"),
    )


def _workload(rng: random.Random, f: Formats) -> Question:
    del f
    team = rng.choice(_TEAMS)
    reference = (
        "SELECT a.name, COUNT(c.id) AS waiting FROM adjusters AS a LEFT JOIN claims AS c "  # noqa: S608 - template query text; values go through sql()
        f"ON c.adjuster_id = a.id AND {_OPEN} WHERE a.team = :team GROUP BY a.id, a.name"
    )
    return Question(
        ask=f"What is the workload of each adjuster in the {team} team: how many of their "
        "claims are open or in review?",
        spec=("List every adjuster of the team, with 0 where they have none.",),
        references={"reference": sql(reference, team=team)},
        bad={
            "inner-join": sql(reference.replace("LEFT JOIN", "JOIN"), team=team),
            "count-star": sql(reference.replace("COUNT(c.id)", "COUNT(*)"), team=team),
            "filter-in-where": sql(
                reference.replace(f"AND {_OPEN} WHERE", f"WHERE {_OPEN} AND"), team=team
            ),
        },
        tags=("left-join", "zero-rows", "count"),
    )


def _flagged_share(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    body = (
        "SELECT p.product, {share} AS flagged_share FROM claims AS c JOIN policies AS p "
        "ON p.id = c.policy_id WHERE c.filed_at >= :start AND c.filed_at < :after "
        "GROUP BY p.product"
    )
    screened = "AVG(c.fraud_flag * 1.0)"
    everything = "SUM(CASE WHEN c.fraud_flag = 1 THEN 1 ELSE 0 END) * 1.0 / COUNT(*)"
    return Question(
        ask=f"What share of claims filed {period} was flagged as fraud, per product?",
        spec=(),
        references={
            "reference": sql(body.format(share=screened), **values),
            "reference-of-all-claims": sql(body.format(share=everything), **values),
        },
        bad={
            "screened-not-flagged": sql(
                body.format(share="COUNT(c.fraud_flag) * 1.0 / COUNT(*)"), **values
            ),
            "date-boundary": sql(
                body.format(share=screened).replace("c.filed_at < :after", "c.filed_at <= :last"),
                **values,
            ),
        },
        tags=("null", "ratio", "underspecified"),
    )


def _top_adjuster(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    totals = (
        "WITH paid AS (SELECT a.team, a.name, SUM(p.amount) AS total FROM payments AS p "
        "JOIN claims AS c ON c.id = p.claim_id JOIN adjusters AS a ON a.id = c.adjuster_id "
        "WHERE p.paid_on >= :start AND p.paid_on <= :last GROUP BY a.id, a.team, a.name) "
    )
    reference = (
        totals + "SELECT team, name, total FROM (SELECT team, name, total, RANK() OVER "  # noqa: S608 - template query text; values go through sql()
        "(PARTITION BY team ORDER BY total DESC) AS place FROM paid) AS r WHERE place = 1"
    )
    return Question(
        ask=f"Per team, which adjuster's claims were paid the most {period}?",
        spec=(
            "Count payments by the day they were paid; tied adjusters are all listed.",
            "Return the team, the adjuster's name and the total paid.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "no-partition": sql(reference.replace("PARTITION BY team ", ""), **values),
            "date-boundary": sql(
                reference.replace("p.paid_on <= :last", "p.paid_on < :last"), **values
            ),
        },
        tags=("window", "partition", "ties", "date-range"),
    )


def _monthly_change(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f, ("quarter", "half"))
    reference = (
        "WITH m AS (SELECT SUBSTR(CAST(filed_at AS TEXT), 1, 7) AS month, COUNT(*) AS filed "
        "FROM claims WHERE filed_at >= :start AND filed_at < :after "
        "GROUP BY SUBSTR(CAST(filed_at AS TEXT), 1, 7)) "
        "SELECT month, filed, filed - LAG(filed) OVER (ORDER BY month) AS change FROM m "
        "ORDER BY month"
    )
    return Question(
        ask=f"Claims filed per month {period}, and the change from the month before.",
        spec=(
            "Months as YYYY-MM; the first month's change is empty (NULL).",
            "Return month, claims filed and change, in month order.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "lead-for-lag": sql(
                reference.replace(
                    "filed - LAG(filed) OVER (ORDER BY month)",
                    "LEAD(filed) OVER (ORDER BY month) - filed",
                ),
                **values,
            ),
            "null-as-zero": sql(
                reference.replace(
                    "filed - LAG(filed) OVER (ORDER BY month)",
                    "filed - COALESCE(LAG(filed) OVER (ORDER BY month), 0)",
                ),
                **values,
            ),
            "date-boundary": sql(
                reference.replace("filed_at < :after", "filed_at <= :last"), **values
            ),
        },
        tags=("window", "lag", "null"),
    )


TEMPLATES = (
    Template("claims-triage-queue", SCHEMA, "easy", _triage_queue),
    Template("claims-outstanding", SCHEMA, "medium", _outstanding),
    Template("claims-unassigned-by-region", SCHEMA, "easy", _unassigned_by_region),
    Template("claims-adjuster-workload", SCHEMA, "medium", _workload),
    Template("claims-flagged-share", SCHEMA, "medium", _flagged_share),
    Template("claims-top-adjuster", SCHEMA, "hard", _top_adjuster),
    Template("claims-monthly-change", SCHEMA, "hard", _monthly_change),
)
