"""An ERP general ledger: accounts, cost centres, journal entries and their lines."""

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
    money,
    month_range,
    sql,
)

_CREATE = """\
-- General ledger. A journal entry's lines should balance (debits equal credits); imports from
-- the old ERP sometimes do not. entries.reverses names the entry a reversal cancels.
-- lines.cost_center_id is NULL where nobody allocated the line.
CREATE TABLE accounts (
  code TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('asset', 'liability', 'equity', 'revenue', 'expense'))
);

CREATE TABLE cost_centers (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);

CREATE TABLE entries (
  id INTEGER PRIMARY KEY,
  posted_on DATE NOT NULL,
  memo TEXT,
  reverses INTEGER
);

CREATE TABLE lines (
  id INTEGER PRIMARY KEY,
  entry_id INTEGER NOT NULL REFERENCES entries (id),
  account TEXT NOT NULL REFERENCES accounts (code),
  cost_center_id INTEGER REFERENCES cost_centers (id),
  debit DECIMAL(14, 2) NOT NULL,
  credit DECIMAL(14, 2) NOT NULL
);
"""
_ACCOUNTS = (
    ("1000", "Cash at bank", "asset"),
    ("1200", "Receivables", "asset"),
    ("2000", "Payables", "liability"),
    ("3000", "Share capital", "equity"),
    ("4000", "Product sales", "revenue"),
    ("4100", "Service fees", "revenue"),
    ("5000", "Salaries", "expense"),
    ("5100", "Rent", "expense"),
    ("5200", "Travel", "expense"),
    ("5300", "Software", "expense"),
    ("5400", "Training", "expense"),
)
_CENTERS = ("Sales", "Engineering", "Operations", "Finance")
_MEMOS = ("Monthly rent", "Payroll", "Invoice", "Client payment", "Conference trip", "Licences", "")
_EXPENSE = "a.kind = 'expense'"


def _database(rng: random.Random) -> str:
    idle = rng.sample([a for a in _ACCOUNTS if a[0] != "1000"], rng.randint(1, 3))
    used = [a for a in _ACCOUNTS if a not in idle]  # accounts with no lines at all
    entries: list[tuple[object, ...]] = []
    lines: list[tuple[object, ...]] = []
    for number in range(1, rng.randint(35, 50)):
        posted = dt.date(2024, 1, 1) + dt.timedelta(days=rng.randrange(182))
        memo = None if rng.random() < 0.15 else rng.choice(_MEMOS)
        reverses = None
        if entries and rng.random() < 0.1:
            reverses = rng.choice(entries)[0]
        entries.append((number, posted, memo, reverses))
        amount = money(rng, 50, 6000)
        debit_account, credit_account = rng.sample(used, 2)
        if rng.random() < 0.4:  # money moves through the bank account
            debit_account, credit_account = rng.choice(
                ((_ACCOUNTS[0], credit_account), (debit_account, _ACCOUNTS[0]))
            )
            if debit_account == credit_account:
                credit_account = _ACCOUNTS[1] if debit_account != _ACCOUNTS[1] else _ACCOUNTS[2]
        center = None if rng.random() < 0.25 else rng.randint(1, len(_CENTERS))
        off = Decimal("0.00") if rng.random() < 0.85 else money(rng, 1, 40)
        lines.append((len(lines) + 1, number, debit_account[0], center, amount + off, Decimal(0)))
        split = rng.random() < 0.3
        part = round(amount / 2, 2) if split else amount
        lines.append((len(lines) + 1, number, credit_account[0], center, Decimal(0), part))
        if split:
            other = rng.choice(used)[0]
            lines.append((len(lines) + 1, number, other, None, Decimal(0), amount - part))
    _reversed_each_month(rng, entries, lines)
    return "\n".join(
        (
            _CREATE,
            inserts("accounts", _ACCOUNTS),
            inserts("cost_centers", list(enumerate(_CENTERS, 1))),
            inserts("entries", entries),
            inserts("lines", lines),
        )
    )


def _reversed_each_month(
    rng: random.Random, entries: list[tuple[object, ...]], lines: list[tuple[object, ...]]
) -> None:
    """Adds, for each month of the half year that has none, a reversal later in the month of an
    entry posted in it, its lines those of the entry with debit and credit swapped: without one
    a question for the entries of a month that still stand cannot be told from one that forgets
    the entries reversed since."""
    reversed_ids = {entry[3] for entry in entries if entry[3] is not None}
    for month in range(1, 7):
        candidates = [
            e
            for e in entries
            if e[3] is None and e[1].month == month  # type: ignore[attr-defined]
        ]
        if not candidates or any(e[0] in reversed_ids for e in candidates):
            continue
        target = rng.choice(candidates)
        posted: dt.date = target[1]  # type: ignore[assignment]
        after = dt.date(2024, month + 1, 1) if month < 12 else dt.date(2025, 1, 1)
        day = posted + dt.timedelta(days=rng.randrange((after - posted).days))
        number = len(entries) + 1
        entries.append((number, day, target[2], target[0]))
        for line in [line for line in lines if line[1] == target[0]]:
            _, _, account, center, debit, credit = line
            lines.append((len(lines) + 1, number, account, center, credit, debit))
        reversed_ids.add(target[0])


SCHEMA = Schema("ledger", "ledger.sql", "an ERP general ledger", _database)


def _period(rng: random.Random, f: Formats) -> tuple[dict[str, object], str]:
    first, last, _ = month_range(rng, months_of_year=6)
    values: dict[str, object] = {
        "start": first,
        "after": last + dt.timedelta(days=1),
        "last": last,
    }
    return values, f"posted from {f.date(first)} through {f.date(last)}"


def _trial_balance(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    reference = (
        "SELECT a.code, a.name, COALESCE(t.balance, 0) AS balance FROM accounts AS a LEFT JOIN "
        "(SELECT l.account, SUM(l.debit - l.credit) AS balance FROM lines AS l JOIN entries AS e "
        "ON e.id = l.entry_id WHERE e.posted_on >= :start AND e.posted_on <= :last "
        "GROUP BY l.account) AS t ON t.account = a.code ORDER BY a.code"
    )
    return Question(
        ask=f"Trial balance for lines {period}: debits minus credits for every account.",
        spec=(
            "Every account is listed, with 0 where nothing was posted to it.",
            "Return account code, name and balance, by account code.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "null-mishandled": sql(
                reference.replace("COALESCE(t.balance, 0)", "t.balance"), **values
            ),
            "inner-join": sql(reference.replace("LEFT JOIN", "JOIN"), **values),
            "date-boundary": sql(
                reference.replace("e.posted_on <= :last", "e.posted_on < :last"), **values
            ),
        },
        tags=("left-join", "coalesce", "date-range", "order-by"),
    )


def _unbalanced(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    reference = (
        "SELECT e.id, e.posted_on, SUM(l.debit) AS debits, SUM(l.credit) AS credits "
        "FROM entries AS e JOIN lines AS l ON l.entry_id = e.id "
        "WHERE e.posted_on >= :start AND e.posted_on < :after GROUP BY e.id, e.posted_on "
        "HAVING ABS(SUM(l.debit) - SUM(l.credit)) > 0.005"
    )
    return Question(
        ask=f"Which journal entries {period} do not balance?",
        spec=(
            "An entry balances when its debits and credits are equal to the cent.",
            "Return the entry id, its posting date, total debits and total credits.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "one-sided": sql(
                reference.replace(
                    "ABS(SUM(l.debit) - SUM(l.credit)) > 0.005", "SUM(l.debit) > SUM(l.credit)"
                ),
                **values,
            ),
            "date-boundary": sql(
                reference.replace("e.posted_on < :after", "e.posted_on < :last"), **values
            ),
        },
        tags=("having", "group-by", "date-range"),
    )


def _expense_by_center(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    reference = (
        "SELECT COALESCE(cc.name, 'unallocated') AS cost_center, "  # noqa: S608 - template query text; values go through sql()
        "SUM(l.debit - l.credit) AS expense "
        "FROM lines AS l JOIN entries AS e ON e.id = l.entry_id JOIN accounts AS a "
        "ON a.code = l.account LEFT JOIN cost_centers AS cc ON cc.id = l.cost_center_id "
        f"WHERE {_EXPENSE} AND e.posted_on >= :start AND e.posted_on < :after "
        "GROUP BY COALESCE(cc.name, 'unallocated')"
    )
    return Question(
        ask=f"Net expenses per cost centre for lines {period}.",
        spec=(
            "Expense accounts only; net is debits minus credits.",
            "Lines without a cost centre are grouped as 'unallocated'.",
            "Return the cost centre name and the net expense.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "inner-join": sql(
                reference.replace("LEFT JOIN cost_centers", "JOIN cost_centers"), **values
            ),
            "dropped-filter": sql(reference.replace(f"{_EXPENSE} AND ", ""), **values),
            "date-boundary": sql(
                reference.replace("e.posted_on < :after", "e.posted_on < :last"), **values
            ),
        },
        tags=("left-join", "null", "coalesce", "group-by"),
    )


def _running_cash(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    reference = (
        "WITH days AS (SELECT e.posted_on, SUM(l.debit - l.credit) AS movement FROM lines AS l "
        "JOIN entries AS e ON e.id = l.entry_id WHERE l.account = '1000' "
        "AND e.posted_on >= :start AND e.posted_on < :after GROUP BY e.posted_on) "
        "SELECT posted_on, movement, SUM(movement) OVER (ORDER BY posted_on) AS running "
        "FROM days ORDER BY posted_on"
    )
    return Question(
        ask=f"Day by day, the movement on the cash account (1000) {period}, with a running "
        "total from the first day.",
        spec=(
            "A day's movement is its debits minus its credits; only days with postings appear.",
            "Return the day, the movement and the running total, in date order.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "grand-total": sql(reference.replace("OVER (ORDER BY posted_on)", "OVER ()"), **values),
            "sign": sql(reference.replace("l.debit - l.credit", "l.credit - l.debit"), **values),
            "date-boundary": sql(
                reference.replace("e.posted_on < :after", "e.posted_on <= :after"), **values
            ),
        },
        tags=("window", "running-total", "date-range"),
    )


def _unreversed(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    reference = (
        "SELECT e.id, e.posted_on FROM entries AS e WHERE e.posted_on >= :start "
        "AND e.posted_on < :after AND e.reverses IS NULL AND NOT EXISTS "
        "(SELECT 1 FROM entries AS r WHERE r.reverses = e.id)"
    )
    return Question(
        ask=f"Which entries {period} still stand: not reversed by another entry and not "
        "reversals themselves?",
        spec=("Return the entry id and its posting date.",),
        references={"reference": sql(reference, **values)},
        bad={
            "not-in-with-nulls": sql(
                reference.replace(
                    "NOT EXISTS (SELECT 1 FROM entries AS r WHERE r.reverses = e.id)",
                    "e.id NOT IN (SELECT r.reverses FROM entries AS r)",
                ),
                **values,
            ),
            "reversals-kept": sql(reference.replace(" AND e.reverses IS NULL", ""), **values),
        },
        tags=("null", "anti-join", "not-in"),
    )


def _largest_expense(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    ranked = (
        "SELECT cc.name, l.id, l.debit, RANK() OVER (PARTITION BY cc.id ORDER BY l.debit DESC) "  # noqa: S608 - template query text; values go through sql()
        "AS place FROM lines AS l JOIN entries AS e ON e.id = l.entry_id JOIN accounts AS a "
        "ON a.code = l.account JOIN cost_centers AS cc ON cc.id = l.cost_center_id "
        f"WHERE {_EXPENSE} AND e.posted_on >= :start AND e.posted_on < :after"
    )
    reference = f"SELECT name, id, debit FROM ({ranked}) AS r WHERE place = 1"  # noqa: S608 - template query text; values go through sql()
    return Question(
        ask=f"For each cost centre, its largest single expense debit {period}.",
        spec=(
            "Expense accounts only; lines without a cost centre are left out; ties are all kept.",
            "Return the cost centre name, the line id and the debit.",
        ),
        references={"reference": sql(reference, **values)},
        bad={
            "no-partition": sql(reference.replace("PARTITION BY cc.id ", ""), **values),
            "dropped-filter": sql(reference.replace(f"{_EXPENSE} AND ", ""), **values),
        },
        tags=("window", "partition", "ties"),
    )


def _accounts_per_month(rng: random.Random, f: Formats) -> Question:
    values, period = _period(rng, f)
    reference = (
        "SELECT SUBSTR(CAST(e.posted_on AS TEXT), 1, 7) AS month, COUNT(DISTINCT l.account) "
        "AS accounts FROM entries AS e JOIN lines AS l ON l.entry_id = e.id "
        "WHERE e.posted_on >= :start AND e.posted_on < :after "
        "GROUP BY SUBSTR(CAST(e.posted_on AS TEXT), 1, 7) ORDER BY month"
    )
    return Question(
        ask=f"How many different accounts were used each month, for lines {period}?",
        spec=("Months as YYYY-MM; return month and the count, in month order.",),
        references={"reference": sql(reference, **values)},
        bad={
            "missing-distinct": sql(reference.replace("DISTINCT ", ""), **values),
            "date-boundary": sql(
                reference.replace("e.posted_on < :after", "e.posted_on < :last"), **values
            ),
        },
        tags=("distinct", "group-by", "date-range"),
    )


TEMPLATES = (
    Template("ledger-trial-balance", SCHEMA, "medium", _trial_balance),
    Template("ledger-unbalanced-entries", SCHEMA, "medium", _unbalanced),
    Template("ledger-expense-by-center", SCHEMA, "medium", _expense_by_center),
    Template("ledger-running-cash", SCHEMA, "hard", _running_cash),
    Template("ledger-unreversed-entries", SCHEMA, "hard", _unreversed),
    Template("ledger-largest-expense", SCHEMA, "hard", _largest_expense),
    Template("ledger-accounts-per-month", SCHEMA, "easy", _accounts_per_month),
)
