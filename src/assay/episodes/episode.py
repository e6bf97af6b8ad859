"""An episode: one attempt at one task, over a sandbox and the family's tools.

``reset()`` gives the prompt and the tool schemas; ``step(call)`` runs one tool call and returns
the observation; ``verdict(...)`` judges the submission. The verdict never trusts the episode's
own state in a sandbox: the submission (for code, the workspace's files, which live on the host)
is judged by the family's ``verify`` in a fresh sandbox job, exactly as ``assay verify`` does.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from assay.episodes.prompts import last_fenced_block, prompt_messages
from assay.episodes.records import Budget, EndReason, Mode
from assay.errors import InputError
from assay.families import family_of, version_label
from assay.families.base import ToolResult, Toolset, gives_tools, no_episodes
from assay.policies.messages import MAX_ARGUMENT_CHARS, Message, ToolCall, Usage
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task
from assay.verdicts import Status, Timings, Verdict, Versions


@dataclass(frozen=True)
class Observation:
    """What an agent starts from."""

    messages: tuple[Message, ...]
    """The system prompt and the task's prompt."""
    tools: list[dict[str, Any]]
    """The tools in OpenAI function format; empty in single-turn mode."""


@dataclass(frozen=True)
class Judged:
    """How an episode ended, its verdict and the files it judged."""

    end: EndReason
    verdict: Verdict
    submission: Files


class Episode:
    """One attempt at ``task``: its workspace lives here and dies with the episode."""

    def __init__(
        self,
        task: Task,
        sandbox: Sandbox,
        *,
        mode: Mode = "tools",
        budget: Budget | None = None,
        toolset: Toolset | None = None,
    ) -> None:
        if mode not in ("tools", "single"):
            raise InputError(f"unknown mode {mode!r}", field="mode", fix="use tools or single")
        self.task = task
        self.sandbox = sandbox
        self.mode: Mode = mode
        self.budget = budget or Budget()
        self.family = family_of(task)
        self.toolset = toolset or _toolset_of(task)
        self.submitted = False
        self.turns = 0
        self.usage = Usage()
        self.sandbox_cpu_s = 0.0
        self.failed_calls = 0
        self.waited_s = 0.0
        self._started = time.monotonic()

    @property
    def label(self) -> str:
        """The family's name and version, as on verdicts."""
        return version_label(self.family)

    def reset(self) -> Observation:
        """The prompt as messages and the tool schemas; starts the episode's clock."""
        self._started, self.waited_s = time.monotonic(), 0.0
        single = self.mode == "single"
        messages = prompt_messages(self.task, single=single, fence=self.toolset.fence)
        return Observation(messages=messages, tools=[] if single else self.toolset.schemas())

    def step(self, call: ToolCall) -> ToolResult:
        """Run one tool call. Failures are observations, counted; ``submit`` ends the episode.

        Raises :class:`assay.errors.SandboxError` only when the sandbox itself failed.
        """
        if self.submitted:
            result = ToolResult(output="the episode has ended: the work was submitted", ok=False)
        elif self.mode == "single":
            result = ToolResult(output="no tools in single-turn mode", ok=False)
        else:
            result = self._call(call)
        self.sandbox_cpu_s += result.sandbox_cpu_s
        self.failed_calls += 0 if result.ok else 1
        self.submitted = self.submitted or result.submitted
        return result

    def record_turn(self, usage: Usage, waited_s: float = 0.0) -> None:
        """Count one policy turn and its tokens against the budget; ``waited_s`` of its time
        went to the infrastructure (see :meth:`record_wait`)."""
        self.turns += 1
        self.usage = self.usage + usage
        self.record_wait(waited_s)

    def record_dropped(self, count: int) -> None:
        """Count ``count`` tool calls a turn held past the most a policy takes, never run,
        among the failed calls."""
        self.failed_calls += count

    def record_wait(self, seconds: float) -> None:
        """Leave ``seconds`` out of the wall-time budget: time spent waiting on the
        infrastructure (a free request slot or sandbox thread, a model endpoint's failed
        attempts), which depends on the run's caps and load, not on the policy."""
        self.waited_s += max(0.0, seconds)

    def exhausted(self) -> str | None:
        """Which budget has run out, in words, or None while all hold."""
        budget = self.budget
        if self.turns >= budget.max_turns:
            return f"turn budget spent ({budget.max_turns} turns)"
        return self.overspent()

    def overspent(self) -> str | None:
        """Which budget besides turns (tokens, wall time, sandbox CPU) has run out, or None:
        checked on each turn as it comes back and between the calls of one turn, which may hold
        many, so that a turn that spends a budget cannot submit or answer after it."""
        budget = self.budget
        if budget.max_tokens is not None and self.usage.total >= budget.max_tokens:
            return f"token budget spent ({self.usage.total} of {budget.max_tokens} tokens)"
        if budget.max_wall_s is not None and self.wall_s - self.waited_s >= budget.max_wall_s:
            return f"wall-time budget spent ({budget.max_wall_s:g} s)"
        cpu = budget.max_sandbox_cpu_s
        if cpu is not None and self.sandbox_cpu_s >= cpu:
            return f"sandbox CPU budget spent ({self.sandbox_cpu_s:.2f} of {cpu:g} CPU-seconds)"
        return None

    @property
    def wall_s(self) -> float:
        """Seconds since reset."""
        return time.monotonic() - self._started

    def judge(self, final: Message | None) -> Judged:
        """Choose the submission and judge it in a fresh sandbox job.

        Single-turn: the last fenced block of ``final``. Tools: the workspace; when nothing was
        submitted through the tools and ``final`` holds a fenced block, that block over it.
        """
        block = last_fenced_block(final.content if final else None, self.toolset.fence)
        if block is not None and not _is_unicode(block):
            summary = "the answer's block holds a lone surrogate, which is not Unicode text"
            return self.unjudged(EndReason.ANSWERED, Status.FAIL, summary)
        if self.mode == "single":
            if block is None:
                fence = self.toolset.fence
                summary = f"the answer holds no ```{fence} block"
                return self.unjudged(EndReason.ANSWERED, Status.FAIL, summary)
            return self._verify(EndReason.ANSWERED, self.toolset.answer_files(block))
        files = self.toolset.submission()
        if self.submitted:
            return self._verify(EndReason.SUBMITTED, files)
        if block is not None:
            answered = {**files, **self.toolset.answer_files(block)}
            return self._verify(EndReason.ANSWERED, answered)
        return self._verify(EndReason.STOPPED, files)

    def unjudged(self, end: EndReason, status: Status, summary: str) -> Judged:
        """A verdict given without running the verifier: a fail (budget, the policy's failure)
        or an error (infrastructure)."""
        verdict = Verdict(
            task_id=self.task.id,
            status=status,
            score=0.0,
            summary=summary,
            timings=Timings(wall_s=0.0),
            versions=self._versions(),
        )
        return Judged(end=end, verdict=verdict, submission={})

    def _call(self, call: ToolCall) -> ToolResult:
        started = time.monotonic()
        arguments = _arguments(call.arguments)
        if isinstance(arguments, str):
            return ToolResult(output=arguments, ok=False, wall_s=time.monotonic() - started)
        return self.toolset.call(call.name, arguments, self.sandbox)

    def _verify(self, end: EndReason, files: Files) -> Judged:
        verdict = self.family.verify(self.task, files, self.sandbox)
        return Judged(end=end, verdict=verdict, submission=files)

    def _versions(self) -> Versions:
        from assay import __version__  # noqa: PLC0415 - avoids an import cycle at module load

        return Versions(
            task=self.task.content_version(self.label), family=self.label, assay=__version__
        )


def _arguments(text: str) -> dict[str, Any] | str:
    """The call's arguments as a JSON object, or the observation explaining why they are not."""
    if len(text) > MAX_ARGUMENT_CHARS:
        return f"the arguments are longer than {MAX_ARGUMENT_CHARS} characters"
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
        written = json.dumps(value, ensure_ascii=False)
    except (ValueError, RecursionError) as exc:
        return f"the arguments are not valid JSON ({str(exc)[:200]}); send one JSON object"
    if not isinstance(value, dict):
        return "the arguments must be one JSON object"
    if not _is_unicode(written):
        return "the arguments hold a lone surrogate (an unpaired \\ud800-\\udfff), not text"
    return value


def _is_unicode(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8: JSON's ``\\ud800`` escapes decode to lone
    surrogates, which no file, database or process argument can hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _toolset_of(task: Task) -> Toolset:
    family = family_of(task)
    if not gives_tools(family):
        raise InputError(
            no_episodes(family, task),
            field="family",
            fix="run episodes on tasks of a family with tools, such as code",
        )
    return family.tools(task)
