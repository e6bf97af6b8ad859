"""The built-in families as Gymnasium environments: ``assay/code-v0``, ``assay/sql-v0``,
``assay/workflow-v0`` and ``assay/config-v0``, registered when this module is imported.

Text in, text out. ``reset`` draws a task (with the environment's seeded generator, or the one
``options={"task_id": ...}`` names) and returns the task's prompt with the tools and the action
format; ``info`` holds the system prompt, the tool schemas and the task's id. An action is one
tool call as JSON, ``{"tool": "write_file", "arguments": {"path": "solution.py", "content":
"..."}}``, and the observation is what the tool gave back; ``submit`` ends the episode, and the
verdict, computed from a fresh run of the submission (or, for workflows, the emulator's final
state), is the reward: its score, in [0, 1]. With ``mode="single"`` an action is the whole answer
with a fenced block, judged at once. An action that is not a ``str`` (bytes, a dict, None) is
refused with :class:`assay.errors.InputError`, the episode untouched.

Which ends are which:

- ``terminated``: the episode reached an outcome: submitted (or answered) and judged, pass or
  fail; the reward is the verdict's score.
- ``truncated`` with reward 0.0: the episode's budget (turns, tool calls, time) ran out first; the
  verdict is a fail, and ``info["status"]`` says ``fail``.
- ``truncated`` with reward NaN: the verifier could not judge (the sandbox or the emulator
  failed, or the family's verify or tool raised; ``info["status"] == "error"``), or could not
  make the score (a rubric's judge unreachable: the status stands,
  ``info["verdict"]["score_error"]`` says why). An infrastructure error is not an
  outcome of the agent's actions, so it is never a number a learner could mistake for one: drop
  such episodes (the NaN makes a learner that does not look fail loudly instead of learning from
  a false 0).

Tasks come from ``tasks=`` (a directory or a sequence of tasks), else from the directory in
``ASSAY_TASKS``, else a small set the family's generator makes (seed 0), so that
``gymnasium.make("assay/code-v0")`` works anywhere. Sandbox jobs run in one warm pool shared by
the process's environments (or the ``sandbox=`` given), closed when the process exits. An
episode's ``budget=`` is a :class:`assay.episodes.records.Budget` or a dict of its fields (as a
configuration file gives it); an action that comes once the wall-time or sandbox-CPU budget is
spent is not carried out, even a submit: the episode ends truncated, a fail, as in a run.
"""

from __future__ import annotations

import json
import math
import os
import string
import threading
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium
from gymnasium import spaces
from pydantic import ValidationError

from assay.episodes.episode import Episode, Judged
from assay.episodes.loop import described
from assay.episodes.records import Budget, EndReason, Mode
from assay.errors import InputError, SandboxError
from assay.families.generators import GENERATED_FAMILIES, generator_of
from assay.integrations._pool import shared_sandbox
from assay.integrations.rewards import load_tasks
from assay.policies.messages import Message, ToolCall, Usage
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Task
from assay.tasks.spec import Split
from assay.verdicts import Status

MAX_TEXT = 1_000_000
"""Longest observation or action, in characters."""
DEFAULT_TASKS = 4
"""Tasks generated per family when none are given."""
ENV_IDS = {family: f"assay/{family}-v0" for family in GENERATED_FAMILIES}
"""The registered id of each family's environment."""
CLOCK_FIELDS = ("created_at", "timings")
"""What ``info["verdict"]`` leaves out of the verdict: the clock's readings (when it was made,
how long it took), so that the same seed and actions give the same info, as Gymnasium's
checker asks."""


class AnyText(spaces.Text):
    """Strings of any characters (but NUL and lone surrogates), up to ``max_length``; samples
    are printable ASCII."""

    def __init__(self, max_length: int = MAX_TEXT) -> None:
        super().__init__(max_length, min_length=0, charset=string.printable)

    def contains(self, x: Any) -> bool:
        if not isinstance(x, str) or len(x) > self.max_length or "\0" in x:
            return False
        try:
            x.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AnyText) and other.max_length == self.max_length

    def __hash__(self) -> int:
        return hash((AnyText, self.max_length))


class AssayEnv(gymnasium.Env[str, str]):
    """One family's tasks as a text environment; see the module's docstring."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 - as Gymnasium has it

    def __init__(
        self,
        family: str = "code",
        *,
        tasks: str | Path | Sequence[Task] | None = None,
        mode: Mode = "tools",
        budget: Budget | Mapping[str, Any] | None = None,
        sandbox: Sandbox | None = None,
        render_mode: str | None = None,
        split: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InputError(
                f"unknown render mode {render_mode!r}", field="render_mode", fix="use ansi"
            )
        if mode not in ("tools", "single"):
            raise InputError(f"unknown mode {mode!r}", field="mode", fix="use tools or single")
        self.family = family
        self.mode: Mode = mode
        self.budget = _budget(budget)
        self.render_mode = render_mode
        self.observation_space = AnyText()
        self.action_space: AnyText = AnyText()
        self._sandbox = sandbox
        self._tasks = _of_split(_family_tasks(family, tasks, sandbox), split, family)
        self._episode: Episode | None = None
        self._last = ""

    @property
    def tasks(self) -> tuple[Task, ...]:
        """The tasks ``reset`` draws from."""
        return self._tasks

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self._end_episode()
        task = self._pick(_task_option(options))
        episode = Episode(task, self._box(), mode=self.mode, budget=self.budget)
        observation = episode.reset()
        self._episode = episode
        system, user = observation.messages
        text = user.content or ""
        if self.mode == "tools":
            text += "\n\n" + _tools_text(observation.tools)
        text = _observed(text)
        self._last = text
        return text, {
            "task_id": task.id,
            "system": system.content or "",
            "tools": observation.tools,
            "mode": self.mode,
        }

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        episode = self._episode
        if episode is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        if episode.submitted:
            raise gymnasium.error.ResetNeeded("the episode has ended: call reset()")
        _check_action(action)
        episode.record_turn(Usage())
        spent = episode.overspent()  # an answer or a submit past the budget is not judged
        if spent:
            return self._unjudged(episode, EndReason.BUDGET, Status.FAIL, spent)
        outside = _outside_space(action, self.action_space)
        if outside:  # the model's own text: a fail it made, never passed on to the family
            return self._unjudged(episode, EndReason.POLICY_FAILED, Status.FAIL, outside)
        if self.mode == "single":
            return self._judged(episode, Message(role="assistant", content=action))
        return self._act(episode, _tool_call(action))

    def render(self) -> str | None:
        return self._last if self.render_mode == "ansi" else None

    def close(self) -> None:
        self._end_episode()
        super().close()

    def _act(
        self, episode: Episode, call: ToolCall | str
    ) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """Run the tool call, or show what is wrong with the action (``call`` as text) as a
        refused call would be shown."""
        if isinstance(call, str):
            episode.failed_calls += 1
            return self._observe(episode, call)
        try:
            result = episode.step(call)
        except SandboxError as exc:
            return self._unjudged(episode, EndReason.INFRASTRUCTURE, Status.ERROR, str(exc))
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - a family's tool that crashed, as in a run
            problem = f"the family's tool {call.name[:100]!r} raised {described(exc)}"
            return self._unjudged(episode, EndReason.INFRASTRUCTURE, Status.ERROR, problem)
        if episode.submitted:
            return self._judged(episode, None)
        return self._observe(episode, result.output)

    def _observe(
        self, episode: Episode, text: str
    ) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        spent = episode.exhausted()
        if spent:
            return self._unjudged(episode, EndReason.BUDGET, Status.FAIL, spent)
        text = _observed(text)
        self._last = text
        return text, 0.0, False, False, {"task_id": episode.task.id}

    def _judged(
        self, episode: Episode, final: Message | None
    ) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        try:
            judged = episode.judge(final)
        except SandboxError as exc:
            return self._unjudged(episode, EndReason.INFRASTRUCTURE, Status.ERROR, str(exc))
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - a verifier that crashed judged nothing
            problem = f"the family's verify raised {described(exc)}"
            return self._unjudged(episode, EndReason.INFRASTRUCTURE, Status.ERROR, problem)
        episode.submitted = True
        return self._ended(judged, truncated=not judged.verdict.scored)

    def _unjudged(
        self, episode: Episode, end: EndReason, status: Status, summary: str
    ) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        episode.submitted = True
        judged = episode.unjudged(end, status, summary)
        return self._ended(judged, truncated=end is not EndReason.POLICY_FAILED)

    def _ended(
        self, judged: Judged, *, truncated: bool
    ) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        verdict = judged.verdict
        status = verdict.status
        reward = float(verdict.score) if verdict.scored else math.nan
        text = f"the episode has ended ({judged.end.value}): {status.value}"
        if verdict.scored:
            text += f", score {verdict.score:.2f}"
        self._last = text
        info = {
            "task_id": verdict.task_id,
            "status": status.value,
            "end": judged.end.value,
            "verdict": verdict.model_dump(mode="json", exclude=set(CLOCK_FIELDS)),
        }
        return text, reward, not truncated, truncated, info

    def _pick(self, task_id: object) -> Task:
        if task_id is not None:
            for task in self._tasks:
                if task.id == task_id:
                    return task
            raise InputError(
                f"no task {task_id!r:.100} in this environment's set",
                field="task_id",
                fix="pass the id of one of env.tasks",
            )
        return self._tasks[int(self.np_random.integers(len(self._tasks)))]

    def _box(self) -> Sandbox:
        return self._sandbox if self._sandbox is not None else shared_sandbox()

    def _end_episode(self) -> None:
        if self._episode is not None:
            close = getattr(self._episode.toolset, "close", None)
            if callable(close):
                close()
            self._episode = None


def register_envs() -> None:
    """Register every built-in family's environment (done when this module is imported)."""
    for family, env_id in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="assay.integrations.gymnasium:AssayEnv",
                kwargs={"family": family},
                disable_env_checker=False,
            )


_generated: dict[str, tuple[Task, ...]] = {}
_generating = threading.Lock()


def _family_tasks(
    family: str, tasks: str | Path | Sequence[Task] | None, sandbox: Sandbox | None
) -> tuple[Task, ...]:
    if not isinstance(family, str) or family not in ENV_IDS:
        raise InputError(
            f"no environment for family {family!r:.100}",
            field="family",
            fix="use one of " + ", ".join(ENV_IDS),
        )
    if tasks is None:
        if not os.environ.get("ASSAY_TASKS"):
            return _default_tasks(family, sandbox)
        tasks = Path(os.environ["ASSAY_TASKS"])
    loaded = load_tasks(tasks)
    where = str(tasks) if isinstance(tasks, str | Path) else "the tasks given"
    chosen = tuple(task for task in loaded if task.spec.family == family)
    if not chosen:
        raise InputError(
            f"no {family} task in {where}",
            field="tasks",
            fix=f"give a set with {family} tasks, or none for a generated one",
        )
    return chosen


def _budget(budget: object) -> Budget | None:
    """``budget`` as a :class:`Budget`: one, or a mapping of its fields (as configuration files
    and ``gymnasium.make``'s keyword arguments give it), or None for the defaults. Anything else
    would surface as an attribute error at the first step."""
    if budget is None or isinstance(budget, Budget):
        return budget
    fix = "pass a Budget, or a dict of its fields: " + ", ".join(Budget.model_fields)
    if not isinstance(budget, Mapping):
        raise InputError(
            f"budget is {type(budget).__name__}, not a Budget", field="budget", fix=fix
        )
    try:
        return Budget.model_validate(dict(budget))
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in error["loc"])[:100]
        raise InputError(error["msg"], field=f"budget.{where}", fix=fix) from None


def _of_split(tasks: tuple[Task, ...], split: str | None, family: str) -> tuple[Task, ...]:
    """The tasks of ``split``; with none named, those of every split but ``frozen``, which is
    for evaluation only and is drawn only when asked for by name (as the server draws)."""
    splits = [s.value for s in Split]
    if split is not None and split not in splits:
        raise InputError(
            f"unknown split {split!r}", field="split", fix="use one of " + ", ".join(splits)
        )
    chosen = tuple(task for task in tasks if task.spec.split.drawn_for(split))
    if not chosen:
        named = f"split {split}" if split else "a split but frozen"
        raise InputError(
            f"no {family} task of {named} in the tasks given",
            field="split",
            fix="pass split='frozen' to evaluate on the frozen split"
            if split is None
            else "name a split the tasks have",
        )
    return chosen


def _default_tasks(family: str, sandbox: Sandbox | None) -> tuple[Task, ...]:
    with _generating:
        if family not in _generated:
            made = generator_of(family)(DEFAULT_TASKS, 0, sandbox or shared_sandbox())
            _generated[family] = tuple(made)
        return _generated[family]


def _task_option(options: object) -> object:
    """The task id ``reset``'s options name, or None to draw one. Any other option is refused:
    a misspelt ``task_id`` would draw a task at random, unnoticed."""
    if options is None:
        return None
    if not isinstance(options, dict):
        raise InputError(
            f"options is {type(options).__name__}, not a dict",
            field="options",
            fix='pass options={"task_id": ID}, or none to draw a task',
        )
    unknown = sorted(str(key) for key in options if key != "task_id")
    if unknown:
        raise InputError(
            f"unknown option {unknown[0][:100]!r}",
            field="options",
            fix="the only option is task_id, the id of one of env.tasks",
        )
    return options.get("task_id")


def _observed(text: str) -> str:
    """``text`` as an observation of :class:`AnyText`: a NUL (a command may print one) and
    what is not Unicode text shown as U+FFFD, and past :data:`MAX_TEXT` characters (a task's
    prompt may hold a MiB) cut, saying so, so that every observation lies in the space."""
    text = text.replace("\0", "\ufffd")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if len(text) > MAX_TEXT:
        note = f"\n[truncated: {len(text)} characters in all, the first ones shown]"
        text = text[: MAX_TEXT - len(note)] + note
    return text


def _check_action(action: object) -> None:
    """Refuse an action that is not text, before it costs the episode a turn: its ``str()`` (a
    dict's or bytes' repr, ``"None"``) is no tool call and no answer, and judged it would be a
    fail the agent never made."""
    if not isinstance(action, str):
        raise InputError(
            f"the action is {type(action).__name__}, not str",
            field="action",
            fix="pass the model's text: a tool call as JSON text (json.dumps), or the answer",
        )


def _outside_space(action: str, space: AnyText) -> str | None:
    """Why a text action is not in the action space, or None: longer than its ``max_length``
    (a model that never stopped), a NUL, or a lone surrogate, which no UTF-8 file, tool
    argument or stored trajectory can hold."""
    if len(action) > space.max_length:
        return (
            f"the action is {len(action):,} characters, past the action space's "
            f"{space.max_length:,}: not judged, a fail"
        )
    if not space.contains(action):
        return "the action holds a NUL or a lone surrogate, outside the action space: a fail"
    return None


def _tool_call(action: str) -> ToolCall | str:
    """The tool call an action holds, or what is wrong with it (shown to the agent)."""
    expected = 'an action is one tool call as JSON: {"tool": NAME, "arguments": {...}}'
    try:
        data = json.loads(action)
    except (ValueError, RecursionError):
        return f"not JSON: {expected}"
    if not isinstance(data, dict):
        return expected
    name = data.get("tool", data.get("name"))
    arguments = data.get("arguments", {})
    if not isinstance(name, str) or not name:
        return f"no tool named: {expected}"
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ToolCall(id=f"call-{uuid.uuid4().hex[:12]}", name=name, arguments=text)


def _tools_text(schemas: Sequence[dict[str, Any]]) -> str:
    lines = ['Act with one tool call per step, as JSON: {"tool": NAME, "arguments": {...}}.']
    lines.append("The tools:")
    for schema in schemas:
        function = schema.get("function", {})
        parameters = function.get("parameters", {}).get("properties", {})
        names = ", ".join(parameters)
        lines.append(f"- {function.get('name')}({names}): {function.get('description', '')}")
    return "\n".join(lines)


register_envs()

__all__ = ["ENV_IDS", "AnyText", "AssayEnv", "register_envs", "shared_sandbox"]
