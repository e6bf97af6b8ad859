"""Several runs of one Python program in one sandbox job, for the audit.

The audit verifies a task's own solutions, mutants of its reference and the red-team's reward
hacks: about ninety runs of the same harness a task, each a few milliseconds of work, each a
sandbox job whose set-up (fresh mounts, a network namespace, a cgroup, the seccomp filter) costs
more than the run. :func:`run_many` runs them in one job instead, each in a forked child of the
batch harness (:mod:`assay.sandbox._batch`) with its own files, stdin, pipes, wall-time, CPU-time
and output limits, and everything it started killed before the next; the job keeps the
sandbox's isolation towards the host. Between the runs of one batch there is less isolation
than between jobs, so a batch is only for programs of one origin: the audit never puts an
agent's submission in one.

Whatever ends a batch early (a run that kills or stops the harness, a batch that outlives its
limits, a harness line that does not parse) costs no result: the run that has no line is run
alone, as :meth:`Sandbox.run` runs it, and the runs after it go in a new batch (unless the
batch answered nothing at all: then every run left is run alone). Commands that
are not ``python -I -S -c CODE`` (the only kind a batch can hold) are all run alone.
"""

from __future__ import annotations

import base64
import functools
import json
import marshal
import math
import os
import secrets
import signal
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.resources import files as package_files
from typing import Any

from assay.sandbox.protocol import ExecResult, Sandbox
from assay.tasks.spec import Limits

BATCH = package_files("assay.sandbox").joinpath("_batch.py").read_text(encoding="utf-8")
"""The batch harness's source, run as ``python -I -S -c``; trusted code for warm workers."""
MAX_RUNS = 64
"""Runs in one batch at most."""
MAX_SECONDS = 3000.0
"""A batch's wall-time and CPU-time limits (the sums of its runs') stay under this."""
MAX_OUTPUT_KB = 65536
"""The largest output limit a job may have, which the lines of a batch's runs share."""
_PYTHON_FLAGS = ("-I", "-S", "-c")
_RECORD_KEYS = {
    "status",
    "timed_out",
    "cpu_exceeded",
    "wall_s",
    "cpu_s",
    "peak_kb",
    "stdout",
    "stderr",
    "stdout_truncated",
    "stderr_truncated",
}


@dataclass(frozen=True)
class Run:
    """One run of the program: its working directory's files, its limits and its stdin."""

    files: Mapping[str, bytes]
    limits: Limits
    stdin: bytes = b""


def batchable(sandbox: Sandbox, command: Sequence[str]) -> bool:
    """Whether ``command`` is ``<the sandbox's python> -I -S -c CODE [ARG ...]``."""
    return (
        len(command) >= 5 and command[0] == sandbox.python and tuple(command[1:4]) == _PYTHON_FLAGS
    )


def run_many(
    sandbox: Sandbox,
    command: Sequence[str],
    runs: Sequence[Run],
    *,
    packages: Sequence[str] = (),
    entry: str | None = None,
) -> list[ExecResult]:
    """The result of each of ``runs`` of ``command`` in ``sandbox``, as :meth:`Sandbox.run`
    reports it, with batches of them in one job where the command allows (see the module
    docstring). Raises what :meth:`Sandbox.run` raises.

    ``entry`` names the function a trusted program calls when run as ``__main__``, and that is
    all it does then besides defining things: a batch runs the definitions once, before its
    runs, and each run calls the function (fewer pages copied a run, see
    :mod:`assay.sandbox._batch`)."""
    results: list[ExecResult | None] = [None] * len(runs)
    pending = list(range(len(runs)))
    if batchable(sandbox, command):
        while len(pending) > 1:
            chunk = _chunk(runs, pending)
            answered = _batch(sandbox, command, [runs[i] for i in chunk], packages, entry)
            for index, result in zip(chunk, answered, strict=False):
                results[index] = result
            taken = len(answered)
            if taken < len(chunk):  # this run ended the batch, or could not be set up in it
                results[chunk[taken]] = _alone(sandbox, command, runs[chunk[taken]], packages)
                taken += 1
            pending = pending[taken:]
            if not answered:
                break  # a batch that answers nothing (a host without what it needs): all alone
    for index in pending:
        results[index] = _alone(sandbox, command, runs[index], packages)
    return [result for result in results if result is not None]


def _alone(
    sandbox: Sandbox, command: Sequence[str], run: Run, packages: Sequence[str]
) -> ExecResult:
    return sandbox.run(
        command, files=dict(run.files), limits=run.limits, stdin=run.stdin, packages=packages
    )


def _budget_kb(run: Run) -> int:
    """What a run's line may take of the batch's output: both streams, in base64, and more."""
    return math.ceil(2 * run.limits.max_output_kb * 4 / 3) + 4


def _shape(limits: Limits) -> Limits:
    """The limits a batch's runs must share: all but the time ones."""
    return limits.model_copy(update={"timeout_s": 1.0, "cpu_s": 1.0})


def _chunk(runs: Sequence[Run], pending: list[int]) -> list[int]:
    """The longest prefix of ``pending`` that one batch can hold."""
    first = runs[pending[0]]
    shape = _shape(first.limits)
    chunk: list[int] = []
    output = seconds = cpu = 0.0
    for index in pending[:MAX_RUNS]:
        limits = runs[index].limits
        output += _budget_kb(runs[index])
        seconds += limits.timeout_s
        cpu += limits.cpu_s
        fits = output <= MAX_OUTPUT_KB - 64
        if chunk and (
            _shape(limits) != shape or not fits or seconds > MAX_SECONDS or cpu > MAX_SECONDS
        ):
            break
        chunk.append(index)
    return chunk


def _batch(
    sandbox: Sandbox,
    command: Sequence[str],
    runs: list[Run],
    packages: Sequence[str],
    entry: str | None,
) -> list[ExecResult]:
    """Run ``runs`` in one job; the results of those that got a line, in order."""
    nonce = f"@assay-batch:{secrets.token_hex(12)}:"
    spec = {
        "nonce": nonce,
        "code": command[4],
        "compiled": _compiled(command[4]),
        "entry": entry,
        "argv": list(command[5:]),
        "runs": [
            {
                "files": {
                    name: base64.b64encode(data).decode() for name, data in run.files.items()
                },
                "stdin": base64.b64encode(run.stdin).decode(),
                "timeout_s": run.limits.timeout_s,
                "cpu_s": run.limits.cpu_s,
                "output": run.limits.max_output_kb * 1024,
            }
            for run in runs
        ],
    }
    base = runs[0].limits
    limits = base.model_copy(
        update={
            "timeout_s": min(3600.0, sum(r.limits.timeout_s for r in runs) + 5 + 0.1 * len(runs)),
            "cpu_s": min(3600.0, sum(r.limits.cpu_s for r in runs) + 2 + 0.1 * len(runs)),
            "max_output_kb": min(MAX_OUTPUT_KB, sum(_budget_kb(r) for r in runs) + 64),
        }
    )
    job = sandbox.run(
        [command[0], *_PYTHON_FLAGS, BATCH],
        limits=limits,
        stdin=json.dumps(spec).encode(),
        packages=packages,
    )
    answered: list[ExecResult] = []
    for line in job.stdout.split("\n"):
        if not line.startswith(nonce) or len(answered) == len(runs):
            continue
        record = _record(line[len(nonce) :])
        if record is None:
            break
        answered.append(_result(record, job))
    return answered


@functools.lru_cache(maxsize=16)
def _compiled(source: str) -> dict[str, Any]:
    """``source`` compiled once here, for a harness whose interpreter is this one's version
    (the programs are the families' few harnesses): compiling in every batch cost more than the
    batch's set-up."""
    code = compile(source, "<string>", "exec")
    return {
        "version": [sys.hexversion, sys.implementation.cache_tag],
        "code": base64.b64encode(marshal.dumps(code)).decode(),
    }


def _record(text: str) -> dict[str, Any] | None:
    """A run's line, checked field by field; None for anything else (the ``done`` line too)."""
    try:
        record = json.loads(text)
    except ValueError:
        return None
    if not isinstance(record, dict) or set(record) != _RECORD_KEYS:
        return None
    numbers = (record["wall_s"], record["cpu_s"], record["peak_kb"])
    flags = (
        record["timed_out"],
        record["cpu_exceeded"],
        record["stdout_truncated"],
        record["stderr_truncated"],
    )
    if (
        type(record["status"]) is not int
        or not all(type(n) in (int, float) and n >= 0 for n in numbers)
        or not all(type(f) is bool for f in flags)
        or not all(type(record[k]) is str for k in ("stdout", "stderr"))
    ):
        return None
    try:
        record["stdout"] = base64.b64decode(record["stdout"], validate=True)
        record["stderr"] = base64.b64decode(record["stderr"], validate=True)
    except ValueError:
        return None
    return record


def _result(record: dict[str, Any], job: ExecResult) -> ExecResult:
    """A run's result from its line. Without a cgroup of its own the run's memory is the
    batch's: a run killed by ``SIGKILL`` that the harness did not send, in a batch the memory
    limit stopped, is the run that ran out of memory."""
    status = record["status"]
    signalled = os.WIFSIGNALED(status)
    killed = (
        signalled
        and os.WTERMSIG(status) == signal.SIGKILL
        and not (record["timed_out"] or record["cpu_exceeded"])
    )
    return ExecResult(
        exit_code=os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else None,
        signal=os.WTERMSIG(status) if signalled else None,
        timed_out=record["timed_out"],
        out_of_memory=killed and job.out_of_memory,
        cpu_exceeded=record["cpu_exceeded"],
        wall_s=float(record["wall_s"]),
        cpu_s=float(record["cpu_s"]),
        peak_memory_mb=record["peak_kb"] / 1024,
        stdout=record["stdout"].decode(errors="replace"),
        stderr=record["stderr"].decode(errors="replace"),
        stdout_truncated=record["stdout_truncated"],
        stderr_truncated=record["stderr_truncated"],
        notes=job.notes,
    )
