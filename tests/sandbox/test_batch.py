"""Several runs in one job (the audit's batches): each run gets what it would get alone, and
nothing one run does reaches the next or the lines the host reads. Attacked from inside a run:
files and a hidden daemon left behind, a forged result line written with the batch's own nonce
(read from memory), the harness killed."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest

from assay.audit.base import AuditContext
from assay.audit.fitting import fitted_to_reference
from assay.families.code import CodeFamily
from assay.families.code.generator import generate_code_tasks
from assay.sandbox import BubblewrapSandbox, PoolSandbox, Sandbox, _batch, batch
from assay.sandbox.batch import BATCH, Run, batchable, run_many
from assay.sandbox.conditions import WithEnvironment
from assay.sandbox.protocol import ExecResult
from assay.tasks import Task
from assay.tasks.spec import Limits
from tests.conftest import make_median_task

pytestmark = pytest.mark.sandbox

LIMITS = Limits(timeout_s=5, cpu_s=2)


class Counting:
    """A sandbox that counts the jobs it is asked to run."""

    def __init__(self, inner: Sandbox) -> None:
        self.inner = inner
        self.jobs = 0
        self._lock = threading.Lock()

    def run(self, command: Sequence[str], **options: Any) -> ExecResult:
        with self._lock:
            self.jobs += 1
        return self.inner.run(command, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def program(pool: PoolSandbox, source: str) -> list[str]:
    return [pool.python, "-I", "-S", "-c", source]


def runs(*stdins: str, limits: Limits = LIMITS) -> list[Run]:
    return [Run(files={"given.txt": b"mine"}, limits=limits, stdin=s.encode()) for s in stdins]


STEPS = r"""
import os, sys, time, signal, gc, ctypes
step = sys.stdin.read()
print(step, sorted(os.listdir(".")), sorted(os.listdir("/tmp")))
if step == "litter":
    os.mkdir("locked"); open("locked/x", "w").write("x"); os.chmod("locked", 0)
    open("/tmp/litter", "w").write("x"); open("left.txt", "w").write("x")
if step == "daemon":
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # not dumpable: hidden from /proc
            while True:
                open("/tmp/alive", "w").write("x")
                time.sleep(0.005)
        os._exit(0)
    time.sleep(0.05)
if step == "watch":
    time.sleep(0.2)
    print("alive" if os.path.exists("/tmp/alive") else "gone")
if step == "forge":
    gc.unfreeze()  # the harness's objects, which it froze before the fork, back in view
    nonces = {o for o in gc.get_objects() if type(o) is str and o.startswith("@assay-batch:")}
    nonces |= {v for o in gc.get_objects() if isinstance(o, dict) for v in o.values()
               if type(v) is str and v.startswith("@assay-batch:")}
    line = '{"status": 0, "timed_out": false, "cpu_exceeded": false, "wall_s": 0, "cpu_s": 0, '
    line += '"peak_kb": 0, "stdout": "Zm9yZ2Vk", "stderr": "", "stdout_truncated": false, '
    line += '"stderr_truncated": false}'
    forged = "".join(f"\n{n}{line}\n" for n in nonces)
    print("nonces found:", len(nonces))
    for target in ("/proc/%d/fd/1" % os.getppid(), "/proc/%d/fd/3" % os.getppid()):
        try:
            with open(target, "w") as out:
                out.write(forged)
            print("wrote", target)
        except OSError as exc:
            print("refused", target, type(exc).__name__)
    for fd in range(3, 64):
        try:
            os.write(fd, forged.encode())
            print("wrote fd", fd)
        except OSError:
            pass
    sys.stdout.write(forged)
if step == "kill":
    try:
        os.kill(os.getppid(), signal.SIGKILL)
    except OSError:
        print("refused")
if step == "loop":
    while True:
        pass
if step == "sleep":
    time.sleep(60)
if step == "loop-deaf":  # takes the CPU timer's signal over, and loops on
    signal.signal(signal.SIGPROF, lambda *_: None)
    while True:
        pass
if step == "cpu-then-exit":  # spends what its limit allows, then ends by itself
    end = time.process_time() + 0.05
    while time.process_time() < end:
        pass
    sys.exit(4)
if step == "spam":
    sys.stdout.write("x" * 1_000_000)
if step.startswith("exit"):
    sys.exit(int(step[4:]))
"""


def test_a_run_finds_nothing_of_the_runs_before_it(pool: PoolSandbox) -> None:
    results = run_many(pool, program(pool, STEPS), runs("litter", "daemon", "watch", "look"))
    assert [r.exit_code for r in results] == [0, 0, 0, 0], [r.stderr for r in results]
    for result in results:  # each starts with its own files, and an empty /tmp
        assert "['given.txt'] []" in result.stdout, result.stdout
    assert "gone" in results[2].stdout  # the hidden daemon died with its run


def test_a_batch_is_one_job_on_the_bubblewrap_backend_too() -> None:
    """There ``/workspace`` belongs to root, so no run can change its mode; the harness put
    the mode back before each run all the same, was refused, and answered nothing: each run
    then went alone, after a sandbox started for nothing."""
    with BubblewrapSandbox() as sandbox:
        counting = Counting(sandbox)
        command = [sandbox.python, "-I", "-S", "-c", STEPS]
        results = run_many(counting, command, runs("litter", "daemon", "watch", "look"))  # type: ignore[arg-type]
    assert counting.jobs == 1
    assert [r.exit_code for r in results] == [0, 0, 0, 0], [r.stderr for r in results]
    for result in results:
        assert "['given.txt'] []" in result.stdout, result.stdout
    assert "gone" in results[2].stdout


LISTING = r"""
import os
for top, _, names in sorted(os.walk(".")):
    for name in sorted(names):
        path = os.path.join(top, name)[2:]
        print(path, os.path.getsize(path), open(path, "rb").read(1).decode())
"""


def test_each_run_gets_its_files_in_nested_directories_whole(pool: PoolSandbox) -> None:
    first = {"a/b/c.txt": b"1", "a/b/d.txt": b"22", "a/e.txt": b"333", "f.txt": b"4444"}
    second = {"a/b/g/h.txt": b"x" * 100_000, "a/b/c.txt": b"5"}
    batch = [Run(files=files, limits=LIMITS, stdin=b"") for files in (first, second)]
    counting = Counting(pool)
    results = run_many(counting, program(pool, LISTING), batch)
    assert counting.jobs == 1  # both in one batch: the harness wrote their files
    for files, result in zip((first, second), results, strict=True):
        assert sorted(result.stdout.splitlines()) == [
            f"{path} {len(data)} {data[:1].decode()}" for path, data in sorted(files.items())
        ], result.stderr


@pytest.mark.parametrize("fresh", [False, True], ids=["warm", "fresh-interpreter"])
def test_no_run_can_write_a_result_line_for_another(pool: PoolSandbox, fresh: bool) -> None:
    # A fresh interpreter (the flaky check's varied runs) is dumpable after its execve until
    # the harness says otherwise; a warm worker's job never was.
    inner: Sandbox = WithEnvironment(pool, {"TZ": "UTC"}) if fresh else pool
    counting = Counting(inner)
    results = run_many(counting, program(pool, STEPS), runs("forge", "exit7"))  # type: ignore[arg-type]
    assert counting.jobs == 1  # one batch, which the forger did not end
    forger, victim = results
    assert "nonces found: 0" not in forger.stdout  # it did find the nonce in its memory
    assert "wrote /proc" not in forger.stdout
    assert "wrote fd" not in forger.stdout
    assert "forged" not in forger.stdout  # its lines are its own output, base64 and all
    assert "Zm9yZ2Vk" in forger.stdout
    assert victim.exit_code == 7
    assert victim.stdout.startswith("exit7")


def test_a_run_that_kills_the_harness_gets_its_own_result_and_the_rest_a_new_batch(
    pool: PoolSandbox,
) -> None:
    counting = Counting(pool)
    command = program(pool, STEPS)
    steps = ("exit1", "kill", "exit2", "exit3", "exit4")
    results = run_many(counting, command, runs(*steps))  # type: ignore[arg-type]
    alone = [pool.run(command, files={"given.txt": b"mine"}, limits=LIMITS, stdin=b"kill")]
    assert [r.exit_code for r in results] == [1, alone[0].exit_code, 2, 3, 4]
    assert results[1].stdout == alone[0].stdout  # the killer, run alone as an agent's would be
    assert counting.jobs == 3  # the batch it ended, itself alone, and a batch of the rest


def test_a_run_that_closes_its_stdin_unread_ends_nothing_but_itself(pool: PoolSandbox) -> None:
    deaf = "import os, sys\nos.close(0)\nsys.exit(len(os.listdir('.')))\n"
    counting = Counting(pool)
    big = Run(files={}, limits=LIMITS, stdin=b" " * 1_000_000)  # more than a pipe holds
    results = run_many(counting, program(pool, deaf), [big, *runs("", "")])  # type: ignore[arg-type]
    assert counting.jobs == 1  # the harness wrote into a closed pipe, and lived on
    assert [r.exit_code for r in results] == [0, 1, 1]


def test_each_run_has_its_own_limits(pool: PoolSandbox) -> None:
    tight = LIMITS.model_copy(update={"timeout_s": 1.0, "cpu_s": 0.2, "max_output_kb": 4})
    results = run_many(
        pool, program(pool, STEPS), runs("loop", "sleep", "spam", "exit5", limits=tight)
    )
    loop, sleep, spam, last = results
    assert loop.cpu_exceeded
    assert not loop.timed_out
    assert loop.cpu_s < 1.0
    assert sleep.timed_out
    assert sleep.wall_s < 3.0
    assert spam.stdout_truncated
    assert len(spam.stdout) == 4096
    assert last.exit_code == 5
    assert not last.timed_out
    assert not last.cpu_exceeded
    assert not last.stdout_truncated


def test_only_isolated_python_programs_are_batched(pool: PoolSandbox) -> None:
    assert batchable(pool, program(pool, "pass"))
    assert not batchable(pool, ["sh", "-c", "echo hi"])
    assert not batchable(pool, [pool.python, "-c", "pass"])
    counting = Counting(pool)
    shell = run_many(counting, ["sh", "-c", "cat given.txt"], runs("", "", ""))  # type: ignore[arg-type]
    assert [r.stdout for r in shell] == ["mine"] * 3
    assert counting.jobs == 3
    assert run_many(pool, program(pool, "pass"), []) == []


def _items(task: Task, family: CodeFamily) -> list[tuple[str, dict[str, bytes]]]:
    named = [(f"exploit {e.name}", e.files) for e in family.exploits(task)]
    named += [(f"mutant {m.name}", m.files) for m in family.mutants(task)]
    named += [(label, files) for label, files in {**task.references(), **task.known_bad()}.items()]
    return named


def _outcome(verdict: Any) -> tuple[str, tuple[bool, ...]]:
    return verdict.status.value, tuple(c.passed for c in verdict.criteria)


def test_a_batch_judges_every_hack_mutant_and_solution_as_a_job_of_its_own_does(
    pool: PoolSandbox,
) -> None:
    """Under the task's own limits, and under the limits the audit fits to the reference for
    its hacks and mutants (the memory floor is lowest there: the hack that answers a huge list
    must still end in the harness's refusal in a batch, as it does alone)."""
    family = CodeFamily()
    generated = generate_code_tasks(3, 11, pool, workers=2)
    fitted = [fitted_to_reference(t, AuditContext(family=family, sandbox=pool)) for t in generated]
    assert all(t is not None for t in fitted)
    tasks = [make_median_task(), *generated, *(t for t in fitted if t is not None)]
    for task in tasks:
        named = _items(task, family)
        assert len(named) > 30
        together = family.verify_many([(task, files) for _, files in named], pool)
        for (label, files), verdict in zip(named, together, strict=True):
            alone = family.verify(task, files, pool)
            assert _outcome(verdict) == _outcome(alone), (
                task.id,
                label,
                verdict.summary,
                alone.summary,
            )


def test_under_other_conditions_too(pool: PoolSandbox) -> None:
    family = CodeFamily()
    task = make_median_task()
    named = [(label, files) for label, files in {**task.references(), **task.known_bad()}.items()]
    named += [(f"exploit {e.name}", e.files) for e in family.exploits(task)][:6]
    varied = WithEnvironment(pool, {"PYTHONHASHSEED": "3", "TZ": "America/Adak"})
    together = family.verify_many([(task, files) for _, files in named], varied)
    for (label, files), verdict in zip(named, together, strict=True):
        assert _outcome(verdict) == _outcome(family.verify(task, files, varied)), label


def test_after_a_batch_that_answers_nothing_every_run_left_goes_alone(pool: PoolSandbox) -> None:
    counting = Counting(pool)
    results = run_many(counting, program(pool, STEPS), runs("kill", "exit2", "exit3"))  # type: ignore[arg-type]
    assert [r.exit_code for r in results][1:] == [2, 3]
    assert counting.jobs == 4  # the batch that answered nothing, then each run alone


def test_runs_that_would_be_the_same_job_run_once_each_judged_on_its_own(
    pool: PoolSandbox,
) -> None:
    """The sensitivity check's probes differ from their task only in expected values, which
    never reach the sandbox: one run serves them all, and each is judged against its own."""
    family = CodeFamily()
    task = make_median_task()
    reference = task.references()["reference"]
    probes = family.probes(task)
    assert len(probes) > 2
    items = [(task, reference), *((probe.task, reference) for probe in probes)]
    items.append((task, task.known_bad()[sorted(task.known_bad())[0]]))
    sizes: list[int] = []

    class Sizes(Counting):
        def run(self, command: Sequence[str], **options: Any) -> ExecResult:
            sizes.append(len(json.loads(options["stdin"])["runs"]) if BATCH in command else 1)
            return super().run(command, **options)

    together = family.verify_many(items, Sizes(pool))  # type: ignore[arg-type]
    assert sizes == [2]  # one batch of two runs: the reference's and the known-bad one's
    assert [v.status.value for v in together] == ["pass", *["fail"] * len(probes), "fail"]
    for (each, files), verdict in zip(items, together, strict=True):
        assert _outcome(verdict) == _outcome(family.verify(each, files, pool))


def test_the_harness_takes_the_hosts_compiled_program_only_for_its_own_version() -> None:
    """The host compiles the program once for every batch; a harness whose interpreter is
    another version compiles the source itself (bytecode is not portable)."""
    compiled = batch._compiled("result = 'compiled by the host'")
    spec = {"code": "result = 'from the source'", "compiled": compiled}
    for given, expected in (
        (compiled, "compiled by the host"),
        ({**compiled, "version": [0, "cpython-00"]}, "from the source"),
        (None, "from the source"),
    ):
        namespace: dict[str, Any] = {}
        exec(_batch._program({**spec, "compiled": given}), namespace)  # noqa: S102 - ours
        assert namespace["result"] == expected


def test_a_runs_peak_memory_is_what_it_added_as_a_jobs_is(pool: PoolSandbox) -> None:
    """A run is forked from a harness that holds the worker's memory; its peak counts what the
    run added to that, as a job's counts what the job added to its worker's (the audit fits the
    limits of mutants and hacks to the reference's peak, and checks its headroom)."""
    hoard = "import sys\nx = bytearray(int(sys.stdin.read()) << 20)\n"
    sizes = ("0", "40", "0", "40")
    batched = run_many(pool, program(pool, hoard), runs(*sizes, limits=LIMITS))
    for size, result in zip(sizes, batched, strict=True):
        alone = pool.run(program(pool, hoard), limits=LIMITS, stdin=size.encode())
        assert alone.peak_memory_mb is not None
        assert result.peak_memory_mb is not None
        assert result.exit_code == alone.exit_code == 0
        assert int(size) <= result.peak_memory_mb < int(size) + 4
        assert abs(result.peak_memory_mb - alone.peak_memory_mb) < 4, (size, alone, result)


def test_with_an_entry_the_definitions_run_once_and_each_run_calls_it(pool: PoolSandbox) -> None:
    source = (
        "import os, sys\n"
        "DEFINED_IN = os.getpid()\n"
        "def main():\n"
        "    step = sys.stdin.read()\n"
        "    print(DEFINED_IN, os.getpid(), step)\n"
        "    if step == 'exit3':\n"
        "        sys.exit(3)\n"
        "    if step == 'raise':\n"
        "        raise ValueError('no')\n"
        "if __name__ == '__main__':\n"
        "    main()\n"
    )
    steps = ("a", "exit3", "raise", "b")
    entered = run_many(pool, program(pool, source), runs(*steps), entry="main")
    plain = run_many(pool, program(pool, source), runs(*steps))
    defined = {r.stdout.split()[0] for r in entered}
    assert len(defined) == 1  # the definitions ran once, in the harness, before the runs
    assert all(r.stdout.split()[1] not in defined for r in entered)
    assert [r.stdout.split()[2] for r in entered] == list(steps)
    assert [r.exit_code for r in entered] == [r.exit_code for r in plain] == [0, 3, 1, 0]
    assert "ValueError: no" in entered[2].stderr
    assert len({r.stdout.split()[0] for r in plain}) == len(steps)  # each run defined its own


def test_the_harness_sees_a_run_end_when_it_ends_not_at_its_next_tick(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run that closes its output and ends a moment later: the harness's wait wakes at the
    end (it used to sleep a whole tick once the pipes had closed, 20 ms a run); here the tick
    is an hour, so a wait that sleeps through it never returns."""
    monkeypatch.setattr(_batch, "_POLL_S", 3600.0)
    child = subprocess.Popen(
        [sys.executable, "-c", "import os, time; os.close(1); os.close(2); time.sleep(0.3)"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdin is not None
    assert child.stdout is not None
    assert child.stderr is not None
    outputs: dict[int, list[Any]] = {child.stdout.fileno(): [b"", False]}
    outputs[child.stderr.fileno()] = [b"", False]
    stdin = _batch._Feed(os.dup(child.stdin.fileno()), b"")
    run = {"timeout_s": 7200.0, "cpu_s": 7200.0, "output": 1024}
    waited: list[tuple[int, Any, str]] = []

    def watch() -> None:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        waited.append(
            _batch._watch(
                child.pid, stdin, outputs, run=run, started=time.monotonic(), before=before
            )
        )

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    watcher.join(60)
    if not waited:
        child.kill()
        child.wait()
    assert waited, "the harness slept through the run's end"
    status, _usage, stopped = waited[0]
    child.returncode = os.waitstatus_to_exitcode(status)  # the harness reaped it
    assert child.returncode == 0
    assert stopped == ""
    for stream in (child.stdin, child.stdout, child.stderr):
        stream.close()


def test_a_run_collects_its_own_cyclic_garbage_as_a_job_does(pool: PoolSandbox) -> None:
    """The harness freezes its own objects before each fork (the run's collections then leave
    its pages alone); the run's collector still runs and frees the cycles the run makes."""
    source = (
        "import gc, sys\n"
        "freed = []\n"
        "class Node:\n"
        "    def __del__(self):\n"
        "        freed.append(1)\n"
        "for _ in range(int(sys.stdin.read())):\n"
        "    a, b = Node(), Node()\n"
        "    a.other, b.other = b, a\n"
        "del a, b\n"
        "gc.collect()\n"
        "print(gc.isenabled(), len(freed))\n"
    )
    batched = run_many(pool, program(pool, source), runs("3", "5"))
    alone = [pool.run(program(pool, source), limits=LIMITS, stdin=n) for n in (b"3", b"5")]
    assert [r.stdout for r in batched] == [r.stdout for r in alone] == ["True 6\n", "True 10\n"]


def test_a_runs_cpu_limit_stops_it_whoever_handles_the_timers_signal(pool: PoolSandbox) -> None:
    """Each run's CPU limit is armed as a timer in the run (it stops a loop at the tick); a run
    that takes the timer's signal over is stopped by the harness all the same, and one within
    its limit is not stopped."""
    tight = LIMITS.model_copy(update={"timeout_s": 5.0, "cpu_s": 0.3})
    loop, deaf, within = run_many(
        pool, program(pool, STEPS), runs("loop", "loop-deaf", "cpu-then-exit", limits=tight)
    )
    for stopped in (loop, deaf):
        assert stopped.cpu_exceeded, stopped
        assert not stopped.timed_out
        assert stopped.exit_code is None
        # not stopped early: the timer fires on the kernel's tick (4 ms here), the CPU time
        # reported afterwards is read another way, and the two differ by up to a tick or two
        assert stopped.cpu_s >= 0.3 - 0.012
    assert within.exit_code == 4
    assert not within.cpu_exceeded


IN_FLIGHT = r"""
import os, socket, sys, time
if sys.stdin.read() == "hold":
    held = []
    for _ in range(12):  # 96 MiB in memory files
        fd = os.memfd_create("ballast")
        for _ in range(8):
            os.write(fd, b"x" * (1 << 20))
        held.append(fd)
    # sent to the pair's other end with that end itself: a loop nothing outside it holds once
    # the run is gone (the sending end closed first: closing one has the kernel collect loops)
    ends = socket.socketpair()
    socket.send_fds(ends[0], [b"x"], [*held, ends[1].fileno()])
    ends[0].close()
    time.sleep(0.2)
else:
    block = bytearray(120 << 20)
    print("allocated", len(block) >> 20)
"""


def test_what_a_run_left_in_flight_is_gone_for_the_next_run(pool: PoolSandbox) -> None:
    """Descriptors sent over a Unix socket that holds itself outlive the run's processes until
    the kernel next collects such loops: 96 MiB of memory files held that way stayed charged to
    the batch's job, and the next run under the same 192 MiB limit, which needed 120 MiB, was
    killed for lack of memory."""
    limits = Limits(timeout_s=5, cpu_s=2, memory_mb=192)
    counting = Counting(pool)
    results = run_many(counting, program(pool, IN_FLIGHT), runs("hold", "use", limits=limits))
    assert counting.jobs == 1
    assert [r.exit_code for r in results] == [0, 0], results
    assert "allocated 120" in results[1].stdout


ORPHAN_BURNERS = r"""
import os, sys, time
done_r, done_w = os.pipe()
for _ in range(2 if sys.stdin.read() == "burn" else 0):
    if os.fork() == 0:
        if os.fork() == 0:  # an orphan at once: nothing reaps it before the run ends
            os.close(done_r)
            end = time.process_time() + 0.4
            while time.process_time() < end:
                pass
            os._exit(0)
        os._exit(0)
os.close(done_w)
os.read(done_r, 1)  # until the burners are done
print("done")
"""


def test_a_runs_orphans_count_against_its_cpu_limit_as_a_jobs_do(pool: PoolSandbox) -> None:
    """A run's CPU time was what its first process and the processes it reaped had used: two
    orphans burning 0.4 s each, reaped by the harness only once the run was over, took 0.8 s
    under a 0.5 s limit and passed, where a job of its own is stopped at 0.5 s (its cgroup
    counts every process)."""
    limits = Limits(timeout_s=10, cpu_s=0.5)
    command = program(pool, ORPHAN_BURNERS)
    alone = pool.run(command, limits=limits, stdin=b"burn")
    assert alone.cpu_exceeded, alone
    burner, quiet = run_many(pool, command, runs("burn", "", limits=limits))
    assert burner.cpu_s > 0.7, burner
    assert burner.cpu_exceeded, burner
    assert not burner.ok
    assert quiet.ok, quiet


def test_a_run_finds_its_own_definitions_through_main_as_a_job_does(pool: PoolSandbox) -> None:
    """``unittest.main()`` looks for tests in ``sys.modules["__main__"]``: in a batch that was
    the harness, and every run of a failing test passed ("Ran 0 tests, OK")."""
    source = (
        "import sys, unittest\n"
        "class Answer(unittest.TestCase):\n"
        "    def test_answer(self):\n"
        "        self.assertEqual(sys.stdin.read(), 'right')\n"
        "unittest.main()\n"
    )
    alone = pool.run(program(pool, source), stdin=b"wrong", limits=LIMITS)
    assert alone.exit_code == 1, alone
    batched = run_many(pool, program(pool, source), runs("wrong", "right", "wrong"))
    assert [result.exit_code for result in batched] == [1, 0, 1], batched
    assert all("Ran 1 test" in result.stderr for result in batched), batched
