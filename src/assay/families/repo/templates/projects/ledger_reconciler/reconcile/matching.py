"""Matching statement lines to ledger entries."""

import datetime

DEFAULT_DAYS = 3


def days_apart(first, second):
    """Days between two ISO dates, never negative."""
    a = datetime.date.fromisoformat(first)
    b = datetime.date.fromisoformat(second)
    return abs((a - b).days)


def reconcile(statement, ledger, days=DEFAULT_DAYS):
    """Match each statement line to a ledger entry of the same amount booked at most ``days``
    days from it (the closest first, then the earliest in the ledger). Each entry matches at most
    one line. Returns matched ``[line id, ref]`` pairs in statement order, and the ids and refs
    left unmatched, in date order (ties in file order)."""
    free = list(ledger)
    matched = []
    unmatched = []
    for line in statement:
        candidates = [
            entry
            for entry in free
            if entry["amount"] == line["amount"]
            and days_apart(entry["date"], line["date"]) <= days  # inclusive
        ]
        if not candidates:
            unmatched.append(line)
            continue
        best = min(candidates, key=lambda entry: days_apart(entry["date"], line["date"]))
        free.remove(best)
        matched.append([line["id"], best["ref"]])
    return {
        "matched": matched,
        "unmatched_bank": [line["id"] for line in _by_date(unmatched)],
        "unmatched_ledger": [entry["ref"] for entry in _by_date(free)],
    }


def _by_date(items):
    return sorted(items, key=lambda item: item["date"])
