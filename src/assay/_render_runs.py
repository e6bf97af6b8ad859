"""How the command line shows durable runs: progress, the summary, the list of runs, and
trajectories as text. Everything shown came from the store, a model or a sandbox, so it goes
through :func:`assay._render.plain` (never markup, control characters escaped)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from assay._render import STATUS_STYLE, ProgressLines, console, plain
from assay.episodes.records import Trajectory
from assay.profiles import Profile, histogram_lines
from assay.runs import Outcome, RunRow
from assay.store import EpisodeTotals, JobCounts, StoredEpisode

SHOWN_CHARS = 4000
"""Longest text of one message or tool result in ``assay show`` (``--json`` has it whole)."""


class RunProgress:
    """Counts of a run as its episodes end, on a progress bar on stderr when it is a terminal."""

    def __init__(
        self, progress: Progress, counts: JobCounts, lines: ProgressLines | None = None
    ) -> None:
        self.progress, self.lines = progress, lines
        self.done = counts.done
        self.passed, self.failed, self.errors = counts.passed, counts.failed, counts.errors
        self.retries = 0
        self.started = time.monotonic()
        self.finished_here = 0
        self.bar = progress.add_task(
            "episodes", total=counts.total, completed=counts.done, tally=""
        )
        self._update()

    def __call__(self, outcome: Outcome) -> None:
        """Count one outcome."""
        if outcome.status is None:
            self.retries += 1
        elif outcome.kept:
            self.finished_here += 1
            self.passed += outcome.status.value == "pass"
            self.failed += outcome.status.value == "fail"
            self.errors += outcome.status.value == "error"
            self.done += 1
            self.progress.advance(self.bar)
        self._update()

    def _update(self) -> None:
        elapsed = max(1e-9, time.monotonic() - self.started)
        rate = self.finished_here / elapsed
        tally = (
            f"pass {self.passed}  fail {self.failed}  error {self.errors}  "
            f"retried {self.retries}  {rate:.1f} episodes/s"
        )
        self.progress.update(self.bar, tally=tally)
        if self.lines is not None:
            self.lines.show(self.done, tally)


@contextmanager
def run_progress(counts: JobCounts) -> Iterator[RunProgress]:
    """Progress of a run on stderr: a bar on a terminal, a line now and then elsewhere."""
    stderr = console(stderr=True)
    lines = None if stderr.is_terminal else ProgressLines("episodes", counts.total)
    with (
        nullcontext() if lines is None else lines.ticking(),
        Progress(
            TextColumn("running"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[tally]}"),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            console=stderr,
            transient=True,
            disable=not stderr.is_terminal,
        ) as progress,
    ):
        yield RunProgress(progress, counts, lines)


def summary_table(name: str, totals: EpisodeTotals, counts: JobCounts) -> Table:
    """The run's totals: pass rate over scored episodes, errors apart, tokens, cost, CPU."""
    table = Table(title=plain(f"run {name}"), title_justify="left", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    rate = totals.pass_rate
    usd = "unknown (no price for the model)" if totals.usd is None else f"${totals.usd:.4f}"
    rows = [
        ("episodes", f"{counts.done} of {counts.total}"),
        ("passed", str(totals.passed)),
        ("failed", str(totals.failed)),
        ("errors (not scored)", str(totals.errors)),
        ("pass rate", "-" if rate is None else f"{rate:.1%} of {totals.passed + totals.failed}"),
        ("tokens in / out", f"{totals.input_tokens} / {totals.output_tokens}"),
        ("cost", usd),
        ("sandbox CPU-seconds", f"{totals.sandbox_cpu_s:.2f}"),
        ("episode wall time, summed", f"{totals.wall_s:.1f} s"),
    ]
    for label, value in rows:
        style = "yellow" if label.startswith("errors") and totals.errors else ""
        table.add_row(plain(label), plain(value, style))
    return table


def profile_table(profile: Profile) -> Table:
    """One row a task: samples, passes, errors, pass rate, pass@1, pass@k."""
    table = Table(
        title=plain(f"pass-rate profile of run {profile.run} (k={profile.k})"),
        title_justify="left",
    )
    table.add_column("task")
    for column in ("samples", "passed", "errors", "pass rate", "pass@1", f"pass@{profile.k}"):
        table.add_column(column, justify="right")
    for task in profile.tasks:
        table.add_row(
            plain(task.task_id),
            str(task.samples),
            str(task.passed),
            plain(str(task.errors), "yellow" if task.errors else ""),
            _rate(task.pass_rate),
            _rate(task.pass_at_1),
            _rate(task.pass_at_k),
        )
    return table


def profile_text(profile: Profile) -> Text:
    """The histogram of pass rates and the triage of the tails, as plain lines."""
    lines = ["pass rates (tasks per bucket):", *histogram_lines(profile)]
    review, too_easy = profile.triage.review, profile.triage.too_easy
    lines.append(f"review (0%, broken or frontier-hard): {len(review)} tasks")
    lines.extend(f"  {task}" for task in review)
    lines.append(f"too easy (100%): {len(too_easy)} tasks")
    lines.extend(f"  {task}" for task in too_easy)
    return plain("\n".join(lines))


def _rate(value: float | None) -> Text:
    """A rate to a tenth of a percent; one between 0 and 1 never shows as either (2 fails in
    5,000 are not 100.0%, which only a task in the too-easy triage is)."""
    if value is None:
        return plain("-")
    shown = f"{value:.1%}"
    if 0 < value < 1 and shown in ("0.0%", "100.0%"):
        shown = "<0.1%" if value < 0.5 else ">99.9%"
    return plain(shown)


def runs_table(rows: Sequence[RunRow], db: Path) -> Table:
    """Runs of both kinds, one row each."""
    table = Table(title=plain(f"runs in {db}"), title_justify="left")
    for column in ("run", "kind", "started (UTC)", "finished", "what"):
        table.add_column(column)
    for row in rows:
        finished = row.finished_at.isoformat(sep=" ")[:19] if row.finished_at else "-"
        table.add_row(
            plain(row.name),
            plain(row.kind),
            plain(row.created_at.isoformat(sep=" ")[:19]),
            plain(finished),
            plain(_what(row)),
        )
    return table


def _what(row: RunRow) -> str:
    d = row.details
    if row.kind == "audit":
        more = "".join(
            f", {d[key]} {word}"
            for key, word in (("quarantined", "quarantined"), ("errors", "error"))
            if d.get(key)
        )
        return (
            f"{d.get('tasks')} tasks of {d.get('root')}: {d.get('accepted')} accepted, "
            f"{d.get('rejected')} rejected{more}"
        )
    shown = {key: "?" if d.get(key) is None else d[key] for key in ("policy", "k", "mode")}
    return (
        f"{shown['policy']} k={shown['k']} {shown['mode']}: {d.get('done')}/{d.get('total')} "
        f"episodes, {d.get('passed')} pass, {d.get('failed')} fail, {d.get('errors')} error"
    )


def episode_text(episode: StoredEpisode) -> Text:
    """One trajectory as text a person reads top to bottom."""
    t = episode.trajectory
    status = t.verdict.status.value
    text = Text()
    text.append_text(plain(f"{t.task_id} sample {episode.sample}  ", "bold"))
    text.append_text(plain(status.upper(), STATUS_STYLE[status]))
    text.append_text(plain(f"  {t.verdict.summary}\n"))
    text.append_text(
        plain(
            f"policy {t.policy.spec} ({t.policy.served_model or t.policy.model or t.policy.kind})"
            f", mode {t.mode}, ended: {t.end.value}"
            f"{': ' + t.end_detail if t.end_detail else ''}\n"
        )
    )
    text.append_text(plain(_cost_line(t) + "\n", "dim"))
    for message in t.prompt:
        text.append_text(plain(f"\n[{message.role}]\n", "cyan"))
        text.append_text(plain(_cut(message.content or "") + "\n"))
    for step in t.steps:
        text.append_text(plain(f"\n[assistant, turn {step.index + 1}]", "cyan"))
        text.append_text(plain(f"  {step.model_s:.2f} s, {step.usage.total} tokens\n", "dim"))
        if step.message.content:
            text.append_text(plain(_cut(step.message.content) + "\n"))
        if step.failure:
            text.append_text(plain(f"policy failed: {step.failure}\n", "red"))
        for tool in step.tools:
            text.append_text(plain(f"→ {tool.call.name}({_cut(tool.call.arguments, 400)})\n"))
            style = "" if tool.result.ok else "red"
            text.append_text(plain(_indent(_cut(tool.result.output)) + "\n", style))
        if step.dropped_tool_calls:
            text.append_text(plain(_dropped_line(step.dropped_tool_calls) + "\n", "red"))
    return text


def _dropped_line(count: int) -> str:
    """Says that ``count`` tool calls of a turn were dropped, past the most a turn takes."""
    calls = "tool call" if count == 1 else "tool calls"
    return f"→ {count} more {calls} dropped, never run: past the most one turn takes"


def episodes_json(episodes: Sequence[StoredEpisode]) -> str:
    """The whole records, as a JSON list."""
    return json.dumps([e.model_dump(mode="json") for e in episodes], indent=2)


def _cost_line(t: Trajectory) -> str:
    cost = t.cost
    usd = "" if cost.usd is None else f", ${cost.usd:.4f}"
    return (
        f"{len(t.steps)} turns, {t.failed_tool_calls} failed tool calls, tokens "
        f"{cost.input_tokens} in / {cost.output_tokens} out{usd}, sandbox "
        f"{cost.sandbox_cpu_s:.2f} CPU-s, {cost.wall_s:.2f} s"
    )


def _cut(text: str, limit: int = SHOWN_CHARS) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[... {len(text) - limit} more characters; --json shows all]"


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines()) or "  (no output)"
