"""The routing itself: first matching rule wins, then the fraud flag."""

import datetime

# unmatched claims go to the urgent queue, so that nobody forgets them
FALLBACK = {"queue": "general", "priority": "normal"}


def matches(rule, claim):
    """Whether ``rule`` applies to ``claim`` (category, then the amount band)."""
    if rule["category"] not in ("*", claim["category"].lower()):
        return False
    # min_amount is inclusive, max_amount exclusive: bands never overlap
    if claim["amount"] < rule["min"]:
        return False
    return rule["max"] is None or claim["amount"] < rule["max"]


def days_insured(claim):
    """Days from the policy start to the incident."""
    start = datetime.date.fromisoformat(claim["policy_start"])
    return (datetime.date.fromisoformat(claim["incident"]) - start).days


def is_suspicious(claim, fraud):
    """Large claims, and claims right after the policy started, go to the fraud unit."""
    if claim["amount"] >= fraud["threshold"]:
        return True
    return 0 <= days_insured(claim) < fraud["recent_days"]


def route(claim, config):
    """Where ``claim`` goes: ``{"claim", "queue", "priority", "fraud"}``."""
    chosen = next((rule for rule in config["rules"] if matches(rule, claim)), FALLBACK)
    return {
        "claim": claim["id"],
        "queue": chosen["queue"],
        "priority": chosen["priority"],
        "fraud": is_suspicious(claim, config["fraud"]),
    }


def route_all(claims, config):
    return [route(claim, config) for claim in claims]
