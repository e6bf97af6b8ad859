"""Every problem template, over many seeds, yields a sound problem.

These run the template's sources in-process: they are the project's own trusted code, checked
here before any of it is ever shipped to a sandbox.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable

import pytest

from assay.families.code.compare import first_difference
from assay.families.code.raising import counts_as, promised_exceptions
from assay.families.code.templates import TEMPLATES
from assay.families.code.templates._model import Problem, Template

SEEDS = range(12)


def _load(source: str, function: str) -> Callable[..., object]:
    namespace: dict[str, object] = {"__name__": "solution"}
    exec(compile(source, "solution.py", "exec"), namespace)  # noqa: S102 - project-owned source
    fn = namespace[function]
    assert callable(fn)
    return fn


def _outcome(fn: Callable[..., object], args: tuple[object, ...]) -> object:
    try:
        return ("ok", json.loads(json.dumps(fn(*json.loads(json.dumps(list(args)))))))
    except Exception as exc:  # noqa: BLE001 - any failure of a bad solution is an outcome
        return ("raised", tuple(c.__name__ for c in type(exc).__mro__))


def _promised(problem: Problem, outcome: object) -> str | None:
    """The exception the rules promise that a raising ``outcome`` counts as, if any."""
    if outcome[0] != "raised":  # type: ignore[index]
        return None
    names = promised_exceptions(" ".join(problem.rules))
    return next((n for n in sorted(names) if counts_as(n, outcome[1])), None)  # type: ignore[index]


def _differs(problem: Problem, want: object, got: object) -> bool:
    if want[0] == "raised":  # type: ignore[index]
        return got[0] != "raised" or not counts_as(_promised(problem, want) or "", got[1])  # type: ignore[index]
    if got[0] != "ok":  # type: ignore[index]
        return True
    return (
        first_difference(
            want[1],  # type: ignore[index]
            got[1],  # type: ignore[index]
            tolerance=problem.float_tolerance,
            unordered=problem.compare == "unordered",
        )
        is not None
    )


def test_bank_is_large_and_ids_are_unique() -> None:
    ids = [template.id for template in TEMPLATES]
    assert len(ids) >= 30
    assert len(set(ids)) == len(ids)
    assert {t.category for t in TEMPLATES} >= {
        "parsing",
        "strings",
        "arithmetic",
        "locale",
        "data-structures",
        "algorithms",
    }


def _containers(value: object) -> set[int]:
    found: set[int] = set()
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, list | dict):
            found.add(id(item))
            pending.extend(item.values() if isinstance(item, dict) else item)
    return found


def _breaks_inputs(problem: Problem, fn: Callable[..., object], args: tuple[object, ...]) -> bool:
    """Whether the call breaks the problem's ``inputs`` rule: changes its arguments, or
    (``unshared``) returns a part of them."""
    if problem.inputs == "any":
        return False
    given = json.loads(json.dumps(list(args)))
    try:
        returned = fn(*given)
    except Exception:  # noqa: BLE001 - a raising call is judged by its outcome
        return False
    if json.dumps(given, sort_keys=True) != json.dumps(list(args), sort_keys=True):
        return True
    return problem.inputs == "unshared" and bool(_containers(returned) & _containers(given))


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: t.id)
def test_template_yields_sound_problems(template: Template) -> None:
    for seed in SEEDS:
        problem = template.build(random.Random(seed))
        assert re.fullmatch(r"[a-z][a-z0-9-]*", template.id)
        assert problem.signature.startswith(f"def {problem.function}(")
        assert len(problem.cases) >= 8
        assert 1 <= len(problem.examples) <= 4
        assert len(problem.bad) >= 2
        reference = _load(problem.reference, problem.function)
        # The generator shows the examples in the prompt and keeps them out of the hidden cases.
        hidden = [args for args in problem.cases if args not in problem.examples]
        assert len(hidden) >= 6, f"{template.id} seed {seed}: too few cases besides the examples"
        outcomes = [_outcome(reference, args) for args in hidden]
        for args, outcome in zip(hidden, outcomes, strict=True):
            assert outcome[0] == "ok" or _promised(problem, outcome), (  # type: ignore[index]
                f"{template.id} seed {seed}: reference raised on {args}, which its rules do not say"
            )
            assert json.loads(json.dumps(list(args))) == list(args), f"args not plain JSON: {args}"
        assert outcomes == [_outcome(reference, args) for args in hidden], "not deterministic"
        assert not any(_breaks_inputs(problem, reference, args) for args in hidden), (
            f"{template.id} seed {seed}: the reference breaks its own inputs = {problem.inputs!r}"
        )
        for args in problem.examples:
            assert _outcome(reference, args)[0] == "ok"  # type: ignore[index]
        for label, source in problem.bad.items():
            assert re.fullmatch(r"[a-z][a-z0-9-]*", label)
            bad = _load(source, problem.function)
            caught = [
                _differs(problem, want, _outcome(bad, args)) or _breaks_inputs(problem, bad, args)
                for args, want in zip(hidden, outcomes, strict=True)
            ]
            assert any(caught), f"{template.id} seed {seed}: known-bad {label!r} passes every case"
