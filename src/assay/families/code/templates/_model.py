"""What a problem template is: a seeded recipe for one kind of Python function task.

A template turns a random generator into a concrete :class:`Problem`: the function to write, the
behaviour in words, a reference implementation, realistic wrong implementations, and the inputs
that the hidden tests call it with. Expected outputs are *not* part of a problem: the generator
computes them by running the reference inside the sandbox, so a template cannot disagree with its
own reference.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

Args = tuple[object, ...]
"""Positional arguments of one call; every element is plain JSON data (lists, not tuples)."""

Category = Literal["parsing", "strings", "arithmetic", "locale", "data-structures", "algorithms"]


@dataclass(frozen=True)
class Problem:
    """One concrete problem produced by a template for one random draw."""

    function: str
    """Name of the function the candidate must define in ``solution.py``."""
    signature: str
    """The full ``def`` line, with type hints, e.g. ``def parse_duration(text: str) -> int:``."""
    summary: str
    """One sentence saying what the function does."""
    rules: tuple[str, ...]
    """The precise behaviour, one rule a line: edge cases, formats, errors. Enough to be unambiguous."""
    reference: str
    """Source of a correct ``solution.py`` (standard library only, deterministic)."""
    bad: dict[str, str]
    """Known-bad ``solution.py`` sources by kebab-case label naming the mistake (``off-by-one``)."""
    cases: tuple[Args, ...]
    """Hidden test inputs: at least 8, covering every edge case that a known-bad solution gets wrong."""
    examples: tuple[Args, ...]
    """Two or three inputs shown in the prompt with their outputs; usually also among ``cases``."""
    compare: Literal["exact", "unordered"] = "exact"
    """How outputs compare: ``unordered`` treats a top-level list as a multiset."""
    float_tolerance: float | None = None
    """Relative and absolute tolerance for floats; ``None`` means the default (1e-9)."""
    inputs: Literal["any", "unchanged", "unshared"] = "any"
    """The task's ``code.inputs``: ``unchanged`` where the rules say the arguments must not be
    modified, ``unshared`` where the result must also share nothing with them."""
    locale: str | None = None
    """The locale whose conventions the task uses, where it has one (``de-DE``)."""
    tags: tuple[str, ...] = field(default_factory=tuple)
    """Free-form tags for filtering (``dates``, ``unicode``)."""


@dataclass(frozen=True)
class Template:
    """A named recipe for problems of one kind."""

    id: str
    """Stable kebab-case identifier, part of every generated task id."""
    category: Category
    difficulty: Literal["easy", "medium", "hard"]
    build: Callable[[random.Random], Problem]
    """Draws one problem. Must use only the given generator for randomness."""
