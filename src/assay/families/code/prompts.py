"""Prompt styles for generated code tasks: the ways real requests are written."""

from __future__ import annotations

import random
from collections.abc import Callable

from assay.families.code.lint import call_text
from assay.families.code.templates import Problem

Example = tuple[list[object], object]
"""Arguments of an example call and the reference's output for them."""

_TICKET_PREFIXES = ("PLAT", "DATA", "CORE", "OPS", "BILL", "WEB")


def formal(problem: Problem, examples: list[Example], rng: random.Random) -> str:
    """A specification with headings, rules and doctest-style examples."""
    del rng
    rules = "\n".join(f"- {rule}" for rule in problem.rules)
    shown = "\n".join(
        f">>> {call_text(problem.function, args)}\n{output!r}" for args, output in examples
    )
    return (
        f"# Implement `{problem.function}`\n\n"
        f"Write a file `solution.py` that defines:\n\n```python\n{problem.signature}\n```\n\n"
        f"{problem.summary}\n\n## Specification\n\n{rules}\n\n"
        f"## Examples\n\n```python\n{shown}\n```\n\n"
        "Use only the Python standard library.\n"
    )


def ticket(problem: Problem, examples: list[Example], rng: random.Random) -> str:
    """A terse issue-tracker ticket."""
    key = f"{rng.choice(_TICKET_PREFIXES)}-{rng.randint(100, 9999)}"
    rules = "\n".join(f"* {rule}" for rule in problem.rules)
    shown = "\n".join(
        f"    {call_text(problem.function, args)} -> {output!r}" for args, output in examples
    )
    return (
        f"**{key}**: add `{problem.function}` to solution.py\n\n"
        f"{problem.summary} Signature: `{problem.signature}`\n\n"
        f"Acceptance:\n{rules}\n\ne.g.\n{shown}\n\nstdlib only pls.\n"
    )


def by_example(problem: Problem, examples: list[Example], rng: random.Random) -> str:
    """Mostly examples, as asserts, with the rules kept short underneath."""
    del rng
    asserts = "\n".join(
        f"assert {call_text(problem.function, args)} == {output!r}" for args, output in examples
    )
    rules = "\n".join(f"- {rule}" for rule in problem.rules)
    return (
        f"Put `{problem.signature}` in solution.py so that these hold:\n\n"
        f"```python\n{asserts}\n```\n\n"
        f"In short: {problem.summary[0].lower()}{problem.summary[1:]}\n\n"
        f"The details that matter:\n{rules}\n"
    )


STYLES: dict[str, Callable[[Problem, list[Example], random.Random], str]] = {
    "formal": formal,
    "ticket": ticket,
    "examples": by_example,
}
