"""How the command line shows records to a person.

Everything shown here came from a task, a sandbox or the store, so none of it is markup: it goes
into rich ``Text`` objects, which rich never parses, and control characters (a terminal escape
sequence printed by a candidate, say) are shown as escapes instead of being sent to the terminal.
Only the styles written in this module are styles.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from assay._text import escaped, one_line
from assay.audit.drift import COPY, FAR, Drift
from assay.audit.report import AuditReport, Diversity
from assay.findings import Decision, Severity
from assay.store import StoredRun, StoredVerdict
from assay.verdicts import Verdict

STATUS_STYLE = {"pass": "green", "fail": "red", "error": "yellow"}
DECISION_STYLE = {
    Decision.ACCEPTED: "green",
    Decision.QUARANTINED: "yellow",
    Decision.REJECTED: "red",
    Decision.ERROR: "yellow",
}


def console(*, stderr: bool = False) -> Console:
    """A console on stdout (or stderr), sized for the terminal as it is now."""
    return Console(stderr=stderr, soft_wrap=True)


PROGRESS_EVERY_S = 30.0
"""Where stderr is not a terminal, the seconds between two lines of progress."""


class ProgressLines:
    """Progress for a log (stderr not a terminal, where no bar is drawn): one plain line at most
    every :data:`PROGRESS_EVERY_S` seconds, so that a long audit or run in CI shows it is moving
    and how far it is. Nothing is written for work that ends sooner. Inside :meth:`ticking`, a
    line is also written when nothing has advanced for that long (a phase that finishes nothing
    for minutes still shows the work is alive)."""

    def __init__(
        self,
        label: str,
        total: int,
        *,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        every: float | None = None,
    ) -> None:
        self.label, self.total = label, total
        self.every = PROGRESS_EVERY_S if every is None else every
        self.stream, self.clock = stream, clock
        self.started = self.last = clock()
        self.done, self.detail = 0, ""
        self._lock = threading.Lock()

    def show(self, done: int, detail: str = "") -> None:
        """Note ``done`` of the total; write it when the last line is ``every`` seconds old."""
        with self._lock:
            self.done, self.detail = done, detail
            now = self.clock()
            if now - self.last < self.every:
                return
            self.last = now
            of = f" of {self.total}" if self.total else ""
            tail = f", {detail}" if detail else ""
            line = f"{self.label}: {done}{of} after {now - self.started:.0f} s{tail}"
            stream = self.stream or sys.stderr
            stream.write(plain(line).plain + "\n")
            stream.flush()

    @contextmanager
    def ticking(self) -> Iterator[ProgressLines]:
        """While the block runs, the line is due every ``every`` seconds whether or not the
        work advanced (from a daemon thread, which the block's end stops)."""
        stop = threading.Event()

        def tick() -> None:
            while not stop.wait(max(self.every, 0.01)):
                self.show(self.done, self.detail)

        ticker = threading.Thread(target=tick, name="progress-lines", daemon=True)
        ticker.start()
        try:
            yield self
        finally:
            stop.set()
            ticker.join()


def plain(text: object, style: str = "") -> Text:
    """``text`` as literal text: no markup, control characters written as escapes."""
    return Text(escaped(str(text)), style=style)


_SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
NOTE_CHARS = 300
"""Characters of one finding, or of a task id, shown in the audit table (a task can make a
finding of megabytes; the JSON report has it whole)."""


def _short(text: str) -> str:
    return (
        text
        if len(text) <= NOTE_CHARS
        else f"{text[:NOTE_CHARS]}[... {len(text) - NOTE_CHARS} more]"
    )


def audit_table(report: AuditReport, *, limit: int = 50) -> Table:
    """Tasks not accepted first, each with its three worst findings and how many more there
    are; the rest are in the JSON report."""
    title = one_line(f"audit {report.run_id} of {report.root}")
    table = Table(title=plain(title), title_justify="left")
    table.add_column("task", overflow="fold")
    table.add_column("decision")
    table.add_column("known-bad caught", justify="right")
    table.add_column("findings", overflow="fold")
    ordered = sorted(report.tasks, key=lambda t: (t.decision is Decision.ACCEPTED, t.task_id))
    for audit in ordered[:limit]:
        colour = DECISION_STYLE[audit.decision]
        worst = sorted(audit.findings, key=lambda f: _SEVERITY_ORDER[f.severity])
        notes = "; ".join(_short(f"[{f.check}] {f.message}") for f in worst[:3]) or "-"
        if len(worst) > 3:
            notes += f" (and {len(worst) - 3} more in the JSON report)"
        table.add_row(
            plain(_short(audit.task_id)),
            plain(audit.decision.value, colour),
            plain(f"{audit.known_bad_caught}/{audit.known_bad}"),
            plain(notes),
        )
    if len(ordered) > limit:
        table.caption = f"{len(ordered) - limit} more tasks in the JSON report"
    return table


def diversity_lines(spread: Diversity | None, *, shown: int = 4) -> list[str]:
    """How the set spreads in one line (the ``shown`` commonest labels of each kind), then,
    with seeds, how far it drifted from them; nothing for a report without a diversity."""
    if spread is None:
        return []

    def top(counts: dict[str, int]) -> str:
        listed = ", ".join(f"{one_line(label)} {n}" for label, n in list(counts.items())[:shown])
        more = len(counts) - shown
        return listed + (f" (+{more} more)" if more > 0 else "")

    evenness = "" if spread.evenness is None else f"; tag evenness {spread.evenness:.2f}"
    line = (
        f"diversity: {spread.tasks} tasks; families: {top(spread.families)}; locales: "
        f"{top(spread.locales)}; {len(spread.tags)} tags{evenness}"
    )
    return [line, *_drift_lines(spread.drift, shown)]


def _drift_lines(drift: Drift | None, shown: int) -> list[str]:
    if drift is None:
        return []
    median = "n/a" if drift.median is None else f"{drift.median:.2f}"
    distances = ", ".join(f"{kind} {d.distance:.2f}" for kind, d in drift.labels.items())
    moved = _most_moved(drift, shown)
    lines = [
        f"drift from {drift.seeds} seed tasks in {one_line(drift.seeds_root)}: nearest-seed "
        f"similarity median {median}; {drift.copies} near copies (>= {COPY}), {drift.far} far "
        f"from every seed (< {FAR}); label distance: {distances}"
    ]
    if moved:
        lines.append("  shares moved most: " + "; ".join(moved))
    return lines


def _most_moved(drift: Drift, shown: int) -> list[str]:
    """The ``shown`` labels whose share moved most, any kind."""
    moves = [(kind, s) for kind, d in drift.labels.items() for s in d.shares]
    moves.sort(key=lambda ks: (-abs(ks[1].tasks - ks[1].seeds), ks[0], ks[1].label))
    return [
        f"{kind} {one_line(s.label)} {s.seeds:.0%} -> {s.tasks:.0%}"
        for kind, s in moves[:shown]
        if s.tasks != s.seeds
    ]


def runs_table(runs: Sequence[StoredRun], db: Path) -> Table:
    """The audit runs kept in ``db``, one row each."""
    table = Table(title=plain(f"audit runs in {db}"), title_justify="left")
    for column in ("run", "started (UTC)", "root", "tasks", "accepted", "rejected"):
        table.add_column(column)
    table.add_column("known-bad caught")
    for run in runs:
        table.add_row(
            plain(run.run_id),
            plain(run.started_at.isoformat(sep=" ")[:19]),
            plain(run.root),
            plain(run.tasks),
            plain(run.accepted),
            plain(run.rejected),
            plain(f"{run.known_bad_caught}/{run.known_bad}"),
        )
    return table


def verdicts_table(kept: Sequence[StoredVerdict], db: Path) -> Table:
    """Kept verdicts with the versions that produced them."""
    table = Table(title=plain(f"verdicts in {db}"), title_justify="left")
    for column in ("id", "task", "task version", "solution", "status", "score", "summary"):
        table.add_column(column)
    for item in kept:
        v = item.verdict
        table.add_row(
            plain(item.id),
            plain(v.task_id),
            plain(v.versions.task),
            plain(item.solution),
            plain(v.status.value, STATUS_STYLE[v.status.value]),
            plain(f"{v.score:.2f}"),
            plain(v.summary),
        )
    return table


def verdict_text(verdict: Verdict) -> Text:
    """The status and summary on one line, then one line per criterion with its evidence."""
    status = verdict.status.value
    text = Text.assemble(
        plain(status.upper(), STATUS_STYLE[status]),
        plain(f" {verdict.task_id}: {verdict.summary} (score {verdict.score:.2f})"),
    )
    for criterion in verdict.criteria:
        mark = plain("✓", "green") if criterion.passed else plain("✗", "red")
        text.append("\n  ")
        text.append_text(mark)
        text.append_text(plain(f" {criterion.name}: {criterion.evidence}"))
    return text


__all__ = [
    "audit_table",
    "console",
    "diversity_lines",
    "plain",
    "runs_table",
    "verdict_text",
    "verdicts_table",
]
