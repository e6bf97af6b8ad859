"""Loading the routing rules (an INI file the claims managers edit by hand)."""

import configparser

from triage.montants import parse_amount

PRIORITIES = ("urgent", "high", "normal")
LEGACY_PRIO = {"1": "urgent", "2": "high", "3": "normal"}
DEFAULT_RECENT_DAYS = 30


def _priority(section):
    if "priority" in section:
        value = section["priority"].strip().lower()
    elif "prio" in section:  # rule files from before 3.0
        value = LEGACY_PRIO.get(section["prio"].strip(), "")
    else:
        value = "normal"
    if value not in PRIORITIES:
        raise ValueError(f"[{section.name}] priority: expected one of {', '.join(PRIORITIES)}")
    return value


def _rule(section):
    low = section.get("min_amount", section.get("seuil", "0"))
    high = section.get("max_amount")
    return {
        "name": section.name.removeprefix("regle").strip(),
        "category": section.get("categorie", "*").strip().lower(),
        "min": parse_amount(low),
        "max": parse_amount(high) if high else None,
        "queue": section["queue"].strip(),
        "priority": _priority(section),
    }


def load_rules(text):
    """The rules in file order and the fraud settings, from the INI text."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    rules = [_rule(parser[name]) for name in parser.sections() if name.startswith("regle")]
    fraud = parser["fraude"] if parser.has_section("fraude") else {}
    return {
        "rules": rules,
        "fraud": {
            "threshold": parse_amount(fraud.get("seuil", "50 000,00")),
            "recent_days": int(fraud.get("recent_policy_days", DEFAULT_RECENT_DAYS)),
        },
    }
