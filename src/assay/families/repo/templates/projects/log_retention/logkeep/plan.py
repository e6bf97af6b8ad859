"""What a run does, decided from the directory listing alone (so that --dry-run is honest)."""

import datetime

from logkeep.names import parse_rotated, rotated_name


def plan(listing, config, today):
    """The actions for ``listing`` (``{file name: size in bytes}``) on ``today`` (ISO).

    Each action is ``[verb, file, target]``: ``rotate`` (target: the rotated name),
    ``compress`` (target: the ``.gz`` name) or ``delete`` (no target).
    """
    day = datetime.date.fromisoformat(today)
    actions = []
    for base, settings in sorted(config.items()):
        if base in listing and listing[base] >= settings["max_size"]:
            target = rotated_name(base, today)
            actions.append(["rotate", base, target])
            if settings["compress"]:
                actions.append(["compress", target, target + ".gz"])
        for name in sorted(listing):
            rotated = parse_rotated(name)
            if rotated is None or rotated["base"] != base:
                continue
            age = (day - datetime.date.fromisoformat(rotated["date"])).days
            if age > settings["keep_days"]:
                actions.append(["delete", name, None])
            elif settings["compress"] and not rotated["compressed"]:
                actions.append(["compress", name, name + ".gz"])
    return actions


def freed_bytes(actions, listing):
    """Bytes the deletions in ``actions`` give back."""
    return sum(listing.get(name, 0) for verb, name, _ in actions if verb == "delete")
