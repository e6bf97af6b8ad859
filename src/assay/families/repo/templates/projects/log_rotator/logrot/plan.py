"""Which files one rotation deletes, renames and truncates."""

import re

from logrot.config import DEFAULT_KEEP

_GENERATION = re.compile(r"^(?P<base>.+)\.(?P<number>\d+)(?P<gz>\.gz)?$")


def generations(names, base):
    """The rotated generations of ``base`` among ``names``, as (number, name), newest first."""
    found = []
    for name in names:
        match = _GENERATION.match(name)
        if match and match["base"] == base:
            found.append((int(match["number"]), name))
    return sorted(found)


def rotation_plan(names, base, keep=None):
    """The plan for one rotation of ``base``: generations past ``keep`` deleted, the others
    renamed one up (oldest first, so that no rename overwrites a file), the live log renamed
    to generation 1, or truncated when ``keep`` is 0. ``keep`` None means DEFAULT_KEEP."""
    keep = DEFAULT_KEEP if keep is None else keep
    plan = {"delete": [], "rename": [], "truncate": []}
    for number, name in reversed(generations(names, base)):
        if number >= keep:
            plan["delete"].append(name)
        else:
            suffix = ".gz" if name.endswith(".gz") else ""
            plan["rename"].append([name, f"{base}.{number + 1}{suffix}"])
    if base in names:
        if keep == 0:
            plan["truncate"].append(base)
        else:
            plan["rename"].append([base, f"{base}.1"])
    return plan
