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
    # what the collector finds unreachable, kept: a finished call's frame, and its f_back
    "collector-garbage": """
import gc
gc.set_debug(gc.DEBUG_SAVEALL)
def leave_a_cycle():
    try:
        raise ValueError
    except ValueError as error:
        holder = [error]
leave_a_cycle()
gc.collect()
for thing in gc.garbage:
    caller = thing.f_back if type(thing).__name__ == "frame" else None
    while caller is not None and "checks" not in caller.f_locals:
        caller = caller.f_back
    if caller is not None:
        checks = caller.f_locals["checks"]
        real = checks.send
        checks.send = lambda text, args, before, *rest: real(text, args, None, *rest)
        break
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


# A signal handler is given the frame it interrupts: the candidate's own, whose f_back (which no
# audit event covers) is the harness's _main, holding the checks.
SIGNAL_FRAME = """
import os, signal as signal_module
def grab(signum, frame):
    checks = frame.f_back.f_locals["checks"]
    real = checks.send
    checks.send = lambda text, args, before, *rest: real(text, args, None, *rest)
def sorted_copy(values):
    os.kill(os.getpid(), signal_module.SIGUSR1)
    values.sort()
    return list(values)
"""
SIGNAL_ROUTES = {
    # passed 1.0 while sorting in place, before handlers were given no frame
    "signal": "signal_module.signal(signal_module.SIGUSR1, grab)\n",
    # a signal module made anew, built in or loaded from libpython, has the real function again
    "builtin-module-anew": """
import _imp, importlib.machinery
spec = importlib.machinery.BuiltinImporter.find_spec("_signal")
_imp.create_builtin(spec).signal(signal_module.SIGUSR1, grab)
""",
    "dynamic-module-anew": """
import _imp, importlib.machinery, sysconfig
lib = sysconfig.get_config_var("LIBDIR") + "/" + sysconfig.get_config_var("LDLIBRARY")
spec = importlib.machinery.ModuleSpec("_signal", None, origin=lib)
_imp.create_dynamic(spec).signal(signal_module.SIGUSR1, grab)
""",
    # what stands in for the real function holds nothing that leads back to it
    "wrapped": "signal_module.signal.__wrapped__(signal_module.SIGUSR1, grab)\n",
    "closure": "import _signal\n_signal.signal.__closure__[0].cell_contents(10, grab)\n",
}


@pytest.mark.parametrize("name", sorted(SIGNAL_ROUTES))
def test_a_signal_handler_reaches_no_frame_of_the_harness(name: str, sandbox: Sandbox) -> None:
    verdict = _verify(_task("unchanged"), SIGNAL_FRAME + SIGNAL_ROUTES[name], sandbox)
    assert verdict.status is Status.FAIL, verdict.summary
    assert verdict.score == 0, verdict.summary


def test_signal_handlers_and_extension_modules_still_work_under_the_inputs_check(
    sandbox: Sandbox,
) -> None:
    handled = """
import signal, os
got = []
previous = signal.signal(signal.SIGUSR1, lambda number, frame: got.append((number, frame)))
def sorted_copy(values):
    os.kill(os.getpid(), signal.SIGUSR1)
    assert got[-1] == (signal.SIGUSR1, None), got
    import _heapq, _bisect, math, subprocess, asyncio  # loads, even if it cannot start anything
    return sorted(values)
"""
    assert _verify(_task("unchanged"), handled, sandbox).status is Status.PASS


# With the nonce, a candidate writes the records itself, without "changed", and sends the
# harness's own to /dev/null (generated cases are numbered: case-01 on). The hook refuses
# /proc/*/mem by name, but it is not in another process, and a link has another name.
NONCE_SCAN = """
import re
def scan(pid, path):
    found = set()
    with open(path, "rb", 0) as memory:
        for line in open(f"/proc/{pid}/maps").read().splitlines():
            span, mode = line.split()[:2]
            low, high = (int(x, 16) for x in span.split("-"))
            if "r" in mode and high - low < 64 << 20:
                try:
                    memory.seek(low)
                    found.update(re.findall(rb"@assay:[0-9a-f]{16}:", memory.read(high - low)))
                except OSError:
                    pass
    return found
"""
# What each attack below does once it holds the nonce (its own ``nonce()``): silence the
# harness's records and write its own, without "changed", while sorting the input in place.
FORGES = r"""
calls = []
def sorted_copy(values):
    if not calls:
        calls.append(nonce())
        os.dup2(os.open("/dev/null", os.O_WRONLY), 3)
    calls.append(None)
    values.sort()
    record = {"id": f"case-{len(calls) - 1:02d}", "value": list(values)}
    os.write(1, b"\n" + calls[0] + json.dumps(record).encode() + b"\n")
    return list(values)
"""
FORGES_WITH_THE_NONCE = (
    """
import json, os, subprocess, sys
def run(source, *args):
    command = [sys.executable, "-I", "-S", "-c", source, *args]
    return subprocess.run(command, capture_output=True, check=True).stdout
def nonce():
    if ROUTE == "child-reads-the-parent":
        pid = str(os.getpid())
        found = run(SCAN + "print(*[n.decode() for n in scan(*__import__('sys').argv[1:])])",
                    pid, f"/proc/{pid}/mem")
        return found.split()[0]
    run("import os; os.symlink('/proc/self/mem', '/tmp/m')")
    space = {}
    exec(SCAN, space)
    return space["scan"]("self", "/tmp/m").pop()
"""
    + FORGES
)


@pytest.mark.parametrize("route", ["child-reads-the-parent", "link-to-own-memory"])
def test_no_process_reads_the_nonce_out_of_the_harness_memory(route: str, sandbox: Sandbox) -> None:
    """Passed 1.0 on the bubblewrap backend, which leaves jobs dumpable, while sorting in
    place: now no program starts from the harness's process (a fork keeps the hook)."""
    cases = [
        Case(id="case-01", args=[[3, 1, 2]], expected=[1, 2, 3]),
        Case(id="case-02", args=[[2, 1]], expected=[1, 2]),
    ]
    source = f"ROUTE = {route!r}\nSCAN = {NONCE_SCAN!r}\n" + FORGES_WITH_THE_NONCE
    verdict = _verify(_task("unchanged", cases), source, sandbox)
    assert verdict.status is Status.FAIL, verdict.summary
    assert verdict.score == 0, verdict.summary


# A pool worker loads ctypes for itself, and its jobs are forks of it: ctypes' types, found
# among every class, read any address without an audit event.
READS_MEMORY_WITH_CTYPES_TYPES = (
    r"""
import json, os, re, sys
def classes():
    seen, todo = set(), [object]
    while todo:
        c = todo.pop()
        if c in seen: continue
        seen.add(c); yield c
        try: todo.extend(type.__subclasses__(c))
        except TypeError: pass
found = {c.__name__: c for c in classes() if c.__module__ == "_ctypes"}
Simple, Union = found["_SimpleCData"], found["Union"]
Pointer, Array = found["_Pointer"], found["Array"]
class Size(Simple): _type_ = "L"
def read(low, size):
    class Chunk(Array): _type_ = type("Byte", (Simple,), {"_type_": "B"}); _length_ = size
    class ToChunk(Pointer): _type_ = Chunk
    class Both(Union): _fields_ = [("address", Size), ("pointer", ToChunk)]
    both = Both(); both.address = low
    return bytes(both.pointer.contents)
def nonce():
    for line in open("/proc/self/maps").read().splitlines():
        span, mode = line.split()[:2]
        low, high = (int(x, 16) for x in span.split("-"))
        if "rw" in mode and high - low < 64 << 20 and "[v" not in line:
            hits = re.findall(rb"@assay:[0-9a-f]{16}:", read(low, high - low))
            if hits: return hits[0]
"""
    + FORGES
)


def test_ctypes_the_sandbox_loaded_reads_no_nonce(sandbox: Sandbox) -> None:
    """Passed 1.0 on the pool while sorting in place: the harness starts afresh there."""
    cases = [
        Case(id="case-01", args=[[3, 1, 2]], expected=[1, 2, 3]),
        Case(id="case-02", args=[[2, 1]], expected=[1, 2]),
    ]
    verdict = _verify(_task("unchanged", cases), READS_MEMORY_WITH_CTYPES_TYPES, sandbox)
    assert verdict.status is Status.FAIL, verdict.summary
    assert verdict.score == 0, verdict.summary


# The harness started afresh reads its job from a memfd: seeking back on stdin read it again,
# nonce and all.
REREADS_THE_JOB = (
    r"""
import json, os
def nonce():
    os.lseek(0, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(0, 1 << 16):
        chunks.append(chunk)
    return json.loads(b"".join(chunks))["nonce"].encode()
"""
    + FORGES
)


def test_the_job_read_is_not_read_again_from_stdin(sandbox: Sandbox) -> None:
    """Passed 1.0 on the pool while sorting in place, the job being re-read from the memfd."""
    cases = [
        Case(id="case-01", args=[[3, 1, 2]], expected=[1, 2, 3]),
        Case(id="case-02", args=[[2, 1]], expected=[1, 2]),
    ]
    verdict = _verify(_task("unchanged", cases), REREADS_THE_JOB, sandbox)
    assert verdict.status is Status.FAIL, verdict.summary
    assert verdict.score == 0, verdict.summary


# Each way to start a program, which would run without the hook (the two routes above used
# subprocess.run): the unaudited ones included.
STARTS_A_PROGRAM = {
    "subprocess": "import subprocess\nsubprocess.run([sys.executable, '-c', ''])\n",
    "posix-spawn": "os.waitpid(os.posix_spawn(sys.executable, [sys.executable], {}), 0)\n",
    "system": "if os.system('true') != 0:\n    raise OSError('no shell')\n",
    "fork-then-exec": """
pid = os.fork()
if pid == 0:
    try:
        os.execv(sys.executable, [sys.executable, '-c', ''])
    finally:
        os._exit(3)
if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0:
    raise PermissionError('the child was refused')
""",
    # no audit event: straight to the spawner, as subprocess holds it and as its module has it
    "fork-exec": """
import subprocess, _posixsubprocess
errors = os.pipe()
for spawn in (subprocess._fork_exec, _posixsubprocess.fork_exec):
    pid = spawn(
        [sys.executable, "-c", ""], [sys.executable.encode()], True, (errors[1],), None,
        None, -1, -1, -1, -1, -1, -1, *errors, False, False, -1, None, None, None, -1, None,
        False,
    )
    os.waitpid(pid, 0)
""",
}


@pytest.mark.parametrize("name", sorted(STARTS_A_PROGRAM))
def test_no_program_starts_under_the_inputs_check(name: str, sandbox: Sandbox) -> None:
    source = "import os, sys\n" + STARTS_A_PROGRAM[name] + SORTED_COPY
    verdict = _verify(_task("unchanged"), source, sandbox)
    assert verdict.status is Status.FAIL, verdict.summary
    assert "failed to load" in verdict.summary
    assert "refused" in verdict.summary
    # the same program starts where the inputs are not checked
    assert _verify(_task(None), source, sandbox).status is Status.PASS


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


def test_the_audits_batches_run_the_inputs_check_where_they_are() -> None:
    """A one-shot job may hold an agent's code: its harness starts afresh where ctypes is
    loaded (the job holds the source). The audit's batches run a task's own solutions and
    assay's hacks, and skip the fresh interpreter's 40 to 60 ms a run."""
    from assay.families.code.config import code_config  # noqa: PLC0415
    from assay.families.code.family import _task_run  # noqa: PLC0415

    task = _task("unchanged")
    solution = {"solution.py": SORTED_COPY.encode()}
    alone = _task_run(task, code_config(task), solution)
    batched = _task_run(task, code_config(task), solution, afresh=False)
    assert b'"source": ' in alone.run.stdin
    assert b'"source": ' not in batched.run.stdin
    assert b'"inputs": "unchanged"' in batched.run.stdin


def test_the_inputs_check_holds_in_the_audits_batches(sandbox: Sandbox) -> None:
    task = _task("unchanged")
    sources = [SORTS_IN_PLACE, "x = 1\n", SORTED_COPY]
    verdicts = family.verify_many(
        [(task, {"solution.py": source.encode()}) for source in sources], sandbox
    )
    assert [v.status for v in verdicts] == [Status.FAIL, Status.FAIL, Status.PASS]
    assert "changed argument 1 of 1" in str([c.evidence for c in verdicts[0].criteria])
