"""``code.inputs``: a call that modifies the arguments the prompt says it must not fails its case,
judged outside the sandbox from encoded forms, whatever the candidate's objects say of
themselves."""

from __future__ import annotations

import random

import pytest

from assay.families.code import CodeFamily
from assay.families.code.config import Case, cases_json
from assay.families.code.lint import lint_code_task
from assay.families.code.outputs import Raised, Returned, decode_outputs
from assay.families.code.templates import TEMPLATES
from assay.sandbox import Sandbox
from assay.sandbox.protocol import ExecResult
from assay.tasks import Task, TaskSpec
from assay.tasks.spec import Limits
from assay.verdicts import Status

family = CodeFamily()

SORTED_COPY = "def sorted_copy(values):\n    return sorted(values)\n"
SORTS_IN_PLACE = "def sorted_copy(values):\n    values.sort()\n    return list(values)\n"
PROMPT = (
    "Write `sorted_copy(values)` in solution.py: the values in ascending order. "
    "Do not modify values.\n"
)


def _task(inputs: str | None, cases: list[Case] | None = None, *, min_format: int = 2) -> Task:
    config: dict[str, object] = {"function": "sorted_copy"}
    if inputs is not None:
        config["inputs"] = inputs
    cases = cases or [
        Case(id="c0", args=[[3, 1, 2]], expected=[1, 2, 3]),
        Case(id="c1", args=[[[2], [1]]], expected=[[1], [2]]),
        Case(id="c2", args=[[]], expected=[]),
    ]
    return Task(
        spec=TaskSpec(
            id="sorted-copy",
            family="code",
            config=config,
            limits=Limits(timeout_s=5, memory_mb=256),
        ),
        prompt=PROMPT,
        hidden={"cases.json": cases_json(cases, min_format=min_format)},
        solutions={"reference": {"solution.py": SORTED_COPY.encode()}},
    )


def _verify(task: Task, source: str, sandbox: Sandbox):  # type: ignore[no-untyped-def]
    return family.verify(task, {"solution.py": source.encode()}, sandbox)


def test_modifying_an_input_the_prompt_protects_fails_with_evidence(sandbox: Sandbox) -> None:
    verdict = _verify(_task("unchanged"), SORTS_IN_PLACE, sandbox)
    assert verdict.status is Status.FAIL
    failed = {c.name: c.evidence for c in verdict.criteria if not c.passed}
    assert set(failed) == {"c0", "c1"}  # the empty list and the sorted one stay as they were
    assert "changed argument 1 of 1" in failed["c0"]
    assert "[3,1,2]" in failed["c0"]


def test_the_reference_passes_and_the_rule_is_opt_in(sandbox: Sandbox) -> None:
    assert _verify(_task("unchanged"), SORTED_COPY, sandbox).status is Status.PASS
    assert _verify(_task(None), SORTS_IN_PLACE, sandbox).status is Status.PASS


ATTACKS = {
    # an item whose __eq__ says it equals anything: compared as encoded text, it is no data
    "equal-to-anything": """
class Anything:
    def __eq__(self, other): return True
    __hash__ = object.__hash__
def sorted_copy(values):
    result = sorted(values)
    if values:
        values[0] = Anything()
    return result
""",
    # a list that holds itself cannot be encoded: a change, never a crash of the harness
    "holds-itself": """
def sorted_copy(values):
    result = sorted(values)
    values.append(values)
    return result
""",
    # a nested list changed, the outer one kept
    "nested-change": """
def sorted_copy(values):
    result = [list(item) if isinstance(item, list) else item for item in sorted(values)]
    for item in values:
        if isinstance(item, list):
            item.append(0)
    return result
""",
    # a subclass of list in place of the argument's item: same items, not the same data
    "list-subclass": """
class Mine(list):
    pass
def sorted_copy(values):
    result = sorted(values)
    for index, item in enumerate(values):
        if isinstance(item, list):
            values[index] = Mine(item)
    return result
""",
}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_hidden_changes_of_the_arguments_fail(name: str, sandbox: Sandbox) -> None:
    verdict = _verify(_task("unchanged"), ATTACKS[name], sandbox)
    assert verdict.status is Status.FAIL
    assert any("changed argument 1" in c.evidence for c in verdict.criteria)


SORTS = "def sorted_copy(values):\n    values.sort()\n    return list(values)\n"
HARNESS_ATTACKS = {
    # rebinds the harness's check through its caller's frame (passed 1.0 before the checks
    # were closures): the frame is refused now; through a traceback's, a generator's too
    "caller-frame-globals": """
import sys
sys._getframe(1).f_globals["_forms"] = lambda args: [""] * len(args)
""",
    "traceback-frame": """
try:
    raise ValueError
except ValueError as exc:
    frame = exc.__traceback__.tb_frame.f_back
frame.f_globals["_forms"] = lambda args: [""] * len(args)
""",
    "generator-frame": """
def walk():
    yield
steps = walk()
steps.gi_frame.f_back
""",
    # finds the checks among every object of the process
    "collector-walk": """
import gc
for thing in gc.get_objects():
    if callable(thing) and getattr(thing, "__name__", "") == "forms":
        thing.__code__ = (lambda args: [""] * len(args)).__code__
""",
    # memory and native code
    "own-memory": """
open("/proc/self/mem", "rb")
""",
    "memory-by-directory": """
import os
os.open("mem", os.O_RDONLY, dir_fd=os.open("/proc/self", os.O_RDONLY))
""",
    "ctypes": """
import ctypes
ctypes.string_at(id(ctypes), 16)
""",
    "tracing": """
import sys
sys.settrace(lambda *a: None)
""",
    # patches what the checks would look up at call time: they look up nothing
    "rebound-helpers": """
import builtins, os
builtins.enumerate = lambda *a: iter(())
builtins.memoryview = lambda data: memoryview(data.replace(b'"changed"', b'"ignored"'))
real_write = os.write
os.write = lambda fd, data: real_write(fd, bytes(data).replace(b',"changed":[0]', b""))
""",
}


@pytest.mark.parametrize("name", sorted(HARNESS_ATTACKS))
def test_attacks_on_the_harness_that_checks_the_inputs_fail(name: str, sandbox: Sandbox) -> None:
    """A candidate that modifies its input and then goes for the checks, which run in its own
    process: each way to reach them or to change what they see is refused, or finds nothing
    to change."""
    verdict = _verify(_task("unchanged"), HARNESS_ATTACKS[name] + SORTS, sandbox)
    assert verdict.status is Status.FAIL, verdict.summary
    if name == "rebound-helpers":  # loads, and what it rebinds is not what the checks use
        failed = {c.name: c.evidence for c in verdict.criteria if not c.passed}
        assert "changed argument 1" in failed["c0"], verdict.summary
    else:  # the reach itself is refused, as the candidate loads
        assert "failed to load" in verdict.summary, verdict.summary
        assert "refused" in verdict.summary, verdict.summary


def test_a_candidate_that_logs_still_loads_under_the_inputs_check(sandbox: Sandbox) -> None:
    """logging reads its caller's frame, and takes a refusal as no frame to read."""
    logs = "import logging\nlogging.warning('sorting')\n" + SORTED_COPY
    assert _verify(_task("unchanged"), logs, sandbox).status is Status.PASS


def test_a_call_that_raises_after_modifying_its_input_fails(sandbox: Sandbox) -> None:
    cases = [
        Case(id="c0", args=[[2, 1]], expected=[1, 2]),
        Case(id="c1", args=[[1, "a"]], raises="TypeError"),
    ]
    source = "def sorted_copy(values):\n    values.sort()\n    return list(values)\n"
    verdict = _verify(_task("unchanged", cases), source, sandbox)
    evidence = {c.name: c.evidence for c in verdict.criteria}
    assert verdict.status is Status.FAIL
    # list.sort on [1, "a"] raises TypeError after it moved nothing: that case stays passed
    assert "changed argument 1" in evidence["c0"]
    raising = "def sorted_copy(values):\n    values.append(0)\n    raise TypeError('mixed types')\n"
    verdict = _verify(_task("unchanged", cases), raising, sandbox)
    evidence = {c.name: c.evidence for c in verdict.criteria}
    assert "changed argument 1" in evidence["c1"]


def test_encoded_arguments_are_compared_as_their_types(sandbox: Sandbox) -> None:
    cases = [Case(id="c0", args=[{"$set": [3, 1, 2]}], expected=[1, 2, 3])]
    task = _task("unchanged", cases, min_format=4)
    assert _verify(task, SORTED_COPY, sandbox).status is Status.PASS
    emptied = (
        "def sorted_copy(values):\n    result = sorted(values)\n    values.clear()\n"
        "    return result\n"
    )
    assert _verify(task, emptied, sandbox).status is Status.FAIL


RETURNS_ITS_INPUT = "def sorted_copy(values):\n    return values if values == sorted(values) \
else sorted(values)\n"
RETURNS_A_PART = """
def sorted_copy(values):
    return [item for item in sorted(values)]
"""


def test_unshared_fails_a_result_that_is_or_holds_an_argument(sandbox: Sandbox) -> None:
    cases = [
        Case(id="c0", args=[[1, 2, 3]], expected=[1, 2, 3]),
        Case(id="c1", args=[[3, 1, 2]], expected=[1, 2, 3]),
        Case(id="c2", args=[[[2], [1]]], expected=[[1], [2]]),
    ]
    # "unchanged" allows both: neither call modifies its argument
    assert _verify(_task("unchanged", cases), RETURNS_ITS_INPUT, sandbox).status is Status.PASS
    assert _verify(_task("unchanged", cases), RETURNS_A_PART, sandbox).status is Status.PASS
    verdict = _verify(_task("unshared", cases), RETURNS_ITS_INPUT, sandbox)
    assert [c.passed for c in verdict.criteria] == [False, True, False]
    assert "part of an argument" in verdict.criteria[0].evidence
    verdict = _verify(_task("unshared", cases), RETURNS_A_PART, sandbox)
    assert [c.passed for c in verdict.criteria] == [True, True, False]
    deep = "import copy\ndef sorted_copy(values):\n    return copy.deepcopy(sorted(values))\n"
    assert _verify(_task("unshared", cases), deep, sandbox).status is Status.PASS


def _result(stdout: str) -> ExecResult:
    return ExecResult(exit_code=0, stdout=stdout, stderr="", wall_s=0.0, cpu_s=0.0, timed_out=False)


def test_changed_positions_are_read_and_malformed_ones_are_tampering() -> None:
    nonce = "@n:"
    good = (
        f'{nonce}{{"id": "a", "value": 1, "changed": [0, 2], "shared": true}}\n'
        f'{nonce}{{"id": "b", "raised": {{"type": "E", "builtins": []}}, "error": "E", '
        '"changed": [1]}\n'
    )
    outputs = decode_outputs(_result(good), nonce, ["a", "b"])
    assert outputs.outcomes["a"] == Returned(1, (0, 2), True)
    assert isinstance(outputs.outcomes["b"], Raised)
    assert outputs.outcomes["b"].changed == (1,)
    for bad in ('"changed": [1, 0]', '"changed": ["0"]', '"changed": [true]', '"shared": 1'):
        text = f'{nonce}{{"id": "a", "value": 1, {bad}}}\n'
        assert decode_outputs(_result(text), nonce, ["a"]).tampered is not None, bad


def _lint_errors(task: Task) -> list[str]:
    return [f.message for f in lint_code_task(task) if f.severity == "error"]


def test_lint_flags_a_promise_of_unmodified_inputs_that_nothing_checks() -> None:
    assert any("must not be modified" in message for message in _lint_errors(_task(None)))
    assert not any("must not be modified" in m for m in _lint_errors(_task("unchanged")))


def test_every_template_that_promises_unmodified_inputs_checks_them() -> None:
    promising = []
    for template in TEMPLATES:
        for seed in range(4):
            problem = template.build(random.Random(seed))
            task = _task(None).model_copy(update={"prompt": " ".join(problem.rules)})
            if any("must not be modified" in m for m in _lint_errors(task)):
                promising.append(template.id)
                assert problem.inputs != "any", f"{template.id} promises but does not check"
    assert {"deep-merge", "insertion-point"} <= set(promising)
