"""The audit report as one self-contained HTML page (``assay audit --html``, ``assay report``).

The page is built from the same :class:`AuditReport` the JSON report is, so the two never
disagree. It needs nothing from anywhere: styles are inline, charts are SVG drawn in Python
(:mod:`assay._render_svg`), there is no script, and a Content-Security-Policy forbids loading
anything, so it opens the same offline. Everything shown came from a task, a sandbox or the
store (evidence holds agent-written code), so every value is escaped: a ``<script>`` in a
finding is shown as text, never run. And every value is cut (:data:`TEXT_CHARS`,
:data:`BLOCK_CHARS`), so that a task that makes findings of megabytes still makes a page that
opens; the JSON report holds them whole.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from assay._render_svg import Bar, Marker, bar_chart, escape, share_bars
from assay.audit.drift import COPY, FAR, Drift
from assay.audit.mutation import WEAK_SCORE
from assay.audit.report import AuditReport, Diversity, SolutionResult, TaskAudit, summary_line
from assay.findings import Decision, Finding, Severity
from assay.verdicts import Status

CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'none'"
)
"""Nothing may be fetched, no script may run: the page is whole as written."""
TASK_SECTIONS = 1000
"""Tasks given a section of their own, the ones that need attention first; the rest are in the
index and the JSON report."""
FINDING_ROWS = 5000
"""Rows of the findings table, the most severe first."""
TASK_FINDINGS = 50
"""Findings listed in one task's section, and surviving mutants shown there."""
ANCHOR_CHARS = 100
"""Characters of a task id that make its fragment id (written in every link to the task)."""
TEXT_CHARS = 2000
"""Characters shown of one text (an id, a message, a summary); the JSON report has it whole."""
BLOCK_CHARS = 8000
"""Characters shown of one block (evidence, an exploit's code, a mutant's diff)."""
_SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
_DECISION_ORDER = {
    Decision.REJECTED: 0,
    Decision.ERROR: 1,
    Decision.QUARANTINED: 2,
    Decision.ACCEPTED: 3,
}
_SLUG = re.compile(r"[^A-Za-z0-9_.-]+")


def audit_html(report: AuditReport) -> str:
    """The whole page for ``report``."""
    anchors = _anchors(report.tasks)
    body = [
        _header(report),
        _summary(report),
        _pass_rates(report),
        _mutation(report),
        _diversity(report.diversity),
        _findings(report, anchors),
        _task_index(report, anchors),
        _tasks(report, anchors),
    ]
    title = f"assay audit {report.run_id}"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )


def _header(report: AuditReport) -> str:
    checks = ", ".join(report.checks) or "none"
    return (
        '<header><div class="brand">assay audit</div>'
        f"<h1>Audit {_e(report.run_id)}</h1>"
        f'<p class="meta">of <code>{_e(report.root)}</code> &middot; '
        f"started {_e(report.started_at.isoformat(sep=' ', timespec='seconds'))} &middot; "
        f"finished {_e(report.finished_at.isoformat(sep=' ', timespec='seconds'))} &middot; "
        f"report format {report.format}</p>"
        f'<p class="meta">checks run: {_e(checks)}</p>'
        '<nav><a href="#summary">Summary</a><a href="#pass-rates">Pass rates</a>'
        '<a href="#mutation">Mutation scores</a><a href="#diversity">Diversity</a>'
        '<a href="#findings">Findings</a><a href="#tasks">Tasks</a></nav></header>'
    )


def _summary(report: AuditReport) -> str:
    cards = "".join(
        f'<div class="card {d.value}"><div class="n">{report.count(d)}</div>'
        f'<div class="what">{d.value}</div></div>'
        for d in (Decision.ACCEPTED, Decision.QUARANTINED, Decision.REJECTED, Decision.ERROR)
    )
    exploits = sum(len(t.red_team.won) for t in report.tasks if t.red_team)
    tried = sum(t.red_team.tried for t in report.tasks if t.red_team)
    survivors = sum(len(t.mutation.survivors) for t in report.tasks if t.mutation)
    facts = [
        ("tasks", str(len(report.tasks))),
        ("known-bad solutions caught", f"{report.known_bad_caught} of {report.known_bad}"),
        ("exploits that won", f"{exploits} of {tried} tried"),
        ("surviving mutants", str(survivors)),
        ("pass-rate profile", report.profile_run or "none joined"),
    ]
    rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in facts)
    return (
        '<section id="summary"><h2>Summary</h2>'
        f'<div class="cards">{cards}</div><p>{_e(summary_line(report))}</p>'
        f'<table class="facts">{rows}</table></section>'
    )


def _pass_rates(report: AuditReport) -> str:
    head = '<section id="pass-rates"><h2>Pass rates</h2>'
    if report.profile_run is None:
        return (
            head + '<p class="empty">No profile: this audit joined no pass-rate profile. Audit '
            "with <code>--profile RUN</code> (a run of <code>assay profile</code>) to see how "
            "often a policy solves each task.</p></section>"
        )
    rates = [
        t.profile.pass_rate for t in report.tasks if t.profile and t.profile.pass_rate is not None
    ]
    bars = [Bar("0", rates.count(0.0), "exactly 0%: quarantined for review")]
    bars += [
        Bar(
            _tenth(i),
            sum(i / 10 <= r < (i + 1) / 10 and r > 0 for r in rates),
            _tip(i, "") if i else "over 0% to under 10%",
        )
        for i in range(10)
    ]
    bars.append(Bar("100", rates.count(1.0), "exactly 100%: too easy"))
    unprofiled = len(report.tasks) - len(rates)
    note = f"; {unprofiled} tasks have no pass rate at their audited version" if unprofiled else ""
    return (
        head + f"<p>From rollout run <code>{_e(report.profile_run)}</code>: "
        f"{len(rates)} tasks with a pass rate{_e(note)}.</p>"
        + bar_chart(
            "Tasks by pass rate",
            bars,
            caption="pass rate, % of scored samples (exactly 0 and 100 have bars of their own)",
        )
        + "</section>"
    )


def _mutation(report: AuditReport) -> str:
    scores = [t.mutation.score for t in report.tasks if t.mutation and t.mutation.score is not None]
    head = '<section id="mutation"><h2>Mutation scores</h2>'
    if not scores:
        return head + '<p class="empty">No mutation scores: no mutant was run.</p></section>'
    bars = [
        Bar(_tenth(i), sum(i / 10 <= s < (i + 1) / 10 for s in scores), _tip(i, " killed"))
        for i in range(10)
    ]
    bars.append(Bar("100", scores.count(1.0), "every mutant killed"))
    weak = sum(s < WEAK_SCORE for s in scores)
    marker = Marker(WEAK_SCORE * 10 / len(bars), f"weak under {WEAK_SCORE}")
    return (
        head + f"<p>Share of the reference's mutants each task's verifier fails: {len(scores)} "
        f"tasks scored, {weak} under {WEAK_SCORE} (a weak verifier).</p>"
        + bar_chart(
            "Tasks by mutation score",
            bars,
            caption="mutation score, % of the reference's mutants the verifier fails",
            marker=marker,
        )
        + "</section>"
    )


def _diversity(spread: Diversity | None) -> str:
    head = '<section id="diversity"><h2>Diversity</h2>'
    if spread is None:
        return head + '<p class="empty">Not recorded (a report before format 2).</p></section>'
    evenness = "n/a (fewer than two tags)" if spread.evenness is None else f"{spread.evenness}"
    blocks = "".join(
        f'<div class="block"><h3>{name}</h3>{share_bars(counts, spread.tasks)}</div>'
        for name, counts in (
            ("Families", spread.families),
            ("Splits", spread.splits),
            ("Difficulties", spread.difficulties),
            ("Locales", spread.locales),
            ("Tags", spread.tags),
        )
    )
    return (
        head + f"<p>{spread.tasks} tasks loaded; evenness of the tags {_e(evenness)} "
        "(1: every tag labels as many tasks).</p>"
        f'<div class="blocks">{blocks}</div>{_drift(spread.drift)}</section>'
    )


def _drift(drift: Drift | None) -> str:
    head = '<h3 id="drift">Drift from the seed tasks</h3>'
    if drift is None:
        return (
            head + '<p class="empty">No seed tasks given: audit with <code>--seed-tasks DIR</code> '
            "to see how far a generated set moved from the tasks it was expanded from.</p>"
        )
    bars = [
        Bar(_tenth(i), n, _tip(i, " similar to the nearest seed")) for i, n in enumerate(drift.bins)
    ]
    median = "n/a" if drift.median is None else f"{drift.median:.2f}"
    labels = "".join(
        f'<div class="block"><h4>{_e(kind)}: distance {shift.distance:.2f}</h4>'
        '<table class="shifts"><tr><th>label</th><th>seeds</th><th>set</th></tr>'
        + "".join(
            f'<tr><td class="label">{_e(s.label)}</td><td class="num">{s.seeds:.0%}</td>'
            f'<td class="num">{s.tasks:.0%}</td></tr>'
            for s in shift.shares[:8]
        )
        + "</table></div>"
        for kind, shift in drift.labels.items()
    )
    return (
        head + f"<p>Against {drift.seeds} seed tasks in <code>{_e(drift.seeds_root)}</code>: "
        f"median similarity to the nearest seed {median}; {drift.copies} near copies (at least "
        f"{COPY}), {drift.far} sharing next to no phrasing with any seed (under {FAR}).</p>"
        + bar_chart(
            "Tasks by similarity to their nearest seed",
            bars,
            caption="similarity to the nearest seed, % (Jaccard of the prompts' word 3-grams)",
        )
        + "<p>How the mix of labels moved (total variation distance, 0: the seeds' mix kept; "
        "1: no label in common); the labels that moved most first:</p>"
        f'<div class="blocks">{labels}</div>'
    )


def _findings(report: AuditReport, anchors: dict[str, str]) -> str:
    found = [(t, f) for t in report.tasks for f in t.findings]
    found.sort(key=lambda tf: (_SEVERITY_ORDER[tf[1].severity], tf[0].task_id))
    head = f'<section id="findings"><h2>Findings ({len(found)})</h2>'
    if not found:
        return head + '<p class="empty">No findings.</p></section>'
    rows = "".join(
        f'<tr><td><a href="#{anchors[t.task_id]}">{_e(t.task_id)}</a></td>'
        f"<td>{_e(f.check)}</td>{_severity(f)}<td>{_message(f)}</td></tr>"
        for t, f in found[:FINDING_ROWS]
    )
    more = len(found) - FINDING_ROWS
    note = f'<p class="muted">{more} more findings in the JSON report.</p>' if more > 0 else ""
    return (
        head + '<table class="findings"><tr><th>task</th><th>check</th><th>severity</th>'
        f"<th>finding and evidence</th></tr>{rows}</table>{note}</section>"
    )


def _task_index(report: AuditReport, anchors: dict[str, str]) -> str:
    rows = "".join(
        f'<tr><td><a href="#{anchors[t.task_id]}">{_e(t.task_id)}</a></td>'
        f"{_decision(t.decision)}<td class='num'>{t.known_bad_caught}/{t.known_bad}</td>"
        f"<td class='num'>{_score(t)}</td><td class='num'>{_won(t)}</td>"
        f"<td class='num'>{_rate(t)}</td><td class='num'>{len(t.findings)}</td></tr>"
        for t in _ordered(report.tasks)
    )
    return (
        f'<section id="tasks"><h2>Tasks ({len(report.tasks)})</h2>'
        '<table class="index"><tr><th>task</th><th>decision</th><th>known-bad caught</th>'
        "<th>mutation score</th><th>exploits won</th><th>pass rate</th><th>findings</th></tr>"
        f"{rows}</table></section>"
    )


def _tasks(report: AuditReport, anchors: dict[str, str]) -> str:
    nearest = (
        {}
        if report.diversity is None or report.diversity.drift is None
        else {m.task_id: m for m in report.diversity.drift.nearest}
    )
    ordered = _ordered(report.tasks)
    parts = []
    for task in ordered[:TASK_SECTIONS]:
        seed = nearest.get(task.task_id)
        seed_line = (
            ""
            if seed is None
            else f"<p>Nearest seed: <code>{_e(seed.seed_id)}</code>, "
            f"{seed.similarity:.2f} similar.</p>"
        )
        parts.append(
            f'<section class="task" id="{anchors[task.task_id]}">'
            f"<h3>{_e(task.task_id)} {_badge(task.decision)}</h3>"
            f'<p class="meta">version <code>{_e(task.task_version or "-")}</code> &middot; '
            f"<code>{_e(task.path)}</code></p>{seed_line}"
            + _solutions(task)
            + _task_profile(task)
            + _survivors(task)
            + _exploits(task)
            + _task_findings(task.findings)
            + '<p class="top"><a href="#tasks">back to the tasks</a></p></section>'
        )
    more = len(ordered) - TASK_SECTIONS
    if more > 0:
        parts.append(
            f'<p class="muted">{more} more tasks, all accepted or lower in the order above, '
            "have no section here; the JSON report holds them whole.</p>"
        )
    return '<section id="task-pages">' + "\n".join(parts) + "</section>"


def _solutions(task: TaskAudit) -> str:
    if not task.solutions:
        return ""
    rows = "".join(
        f"<tr><td>{_e(s.solution)}</td>{_verdict(s)}"
        f"<td class='num'>{s.score:.2f}</td><td>{_e(s.summary)}</td></tr>"
        for s in task.solutions
    )
    return (
        "<h4>Solutions</h4><table><tr><th>solution</th><th>verdict</th><th>score</th>"
        f"<th>summary</th></tr>{rows}</table>"
    )


def _verdict(solution: SolutionResult) -> str:
    """The verdict, green where it is the one the solution must get (a reference passes, the
    rest fail), red where it is not."""
    status = solution.status.value
    if solution.status is Status.ERROR:
        return f'<td class="error">{status}</td>'
    must = Status.PASS if solution.solution.startswith("reference") else Status.FAIL
    if solution.status is must:
        return f'<td class="expected">{status}</td>'
    return f'<td class="unexpected">{status} (must {must.value})</td>'


def _task_profile(task: TaskAudit) -> str:
    p = task.profile
    if p is None:
        return ""
    rate = "n/a" if p.pass_rate is None else f"{p.pass_rate:.0%}"
    return (
        f"<p>Pass rate {rate}: {p.passed} of {p.samples - p.errors} scored samples passed"
        f"{f' ({p.errors} errors left out)' if p.errors else ''}.</p>"
    )


def _survivors(task: TaskAudit) -> str:
    m = task.mutation
    if m is None:
        return ""
    score = "n/a" if m.score is None else f"{m.score:.2f}"
    decided = m.killed + len(m.survivors)
    errors = f", {m.errors} ended in error" if m.errors else ""
    head = (
        f"<h4>Mutation: score {score}</h4><p>{m.killed} of {decided} mutants killed"
        f"{errors}; {len(m.survivors)} survive.</p>"
    )
    diffs = "".join(
        f'<div class="survivor"><div class="label">{_e(s.name)}</div>{_diff(s.diff)}</div>'
        for s in m.survivors[:TASK_FINDINGS]
    )
    more = len(m.survivors) - TASK_FINDINGS
    note = f'<p class="muted">{more} more survivors in the JSON report.</p>' if more > 0 else ""
    return head + diffs + note


def _exploits(task: TaskAudit) -> str:
    r = task.red_team
    if r is None:
        return ""
    head = f"<h4>Red team: {len(r.won)} of {r.tried} exploits won</h4>"
    won = "".join(
        f'<div class="exploit"><div class="label">{_e(x.name)}: {_e(x.what)}</div>'
        f'<p>verdict: <span class="{_e(x.status.value)}">{_e(x.status.value)}</span> '
        f"&mdash; {_e(x.summary)}</p><pre>{_block(x.code)}</pre></div>"
        for x in r.won
    )
    return head + won


def _task_findings(findings: Sequence[Finding]) -> str:
    if not findings:
        return "<h4>Findings</h4><p class='empty'>None.</p>"
    rows = "".join(
        f"<tr><td>{_e(f.check)}</td>{_severity(f)}<td>{_message(f)}</td></tr>"
        for f in findings[:TASK_FINDINGS]
    )
    more = len(findings) - TASK_FINDINGS
    note = f'<p class="muted">{more} more findings in the JSON report.</p>' if more > 0 else ""
    return f"<h4>Findings</h4><table class='findings'>{rows}</table>{note}"


def _message(finding: Finding) -> str:
    review = ' <span class="review">needs review</span>' if finding.review else ""
    evidence = (
        f"<details><summary>evidence</summary><pre>{_block(finding.evidence)}</pre></details>"
        if finding.evidence
        else ""
    )
    return f"{_e(finding.message)}{review}{evidence}"


def _diff(diff: str) -> str:
    """``diff`` with its added, deleted and hunk lines marked. Lines end at ``\\n`` only: a
    U+2028 or a form feed inside a line of the reference is shown as its escape, not taken
    for the start of a line of the diff (``+evil()`` inside a deleted string)."""
    lines = []
    for line in _cut(diff, BLOCK_CHARS).split("\n"):
        kind = {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "")
        lines.append(f'<span class="{kind}">{_e(line)}</span>' if kind else _e(line))
    return '<pre class="diff">' + "\n".join(lines) + "</pre>"


def _ordered(tasks: Iterable[TaskAudit]) -> list[TaskAudit]:
    """Tasks that need a person first, then those with survivors or winning exploits."""

    def rank(t: TaskAudit) -> tuple[int, int, str]:
        notable = bool(t.mutation and t.mutation.survivors) or bool(t.red_team and t.red_team.won)
        return _DECISION_ORDER[t.decision], 0 if notable else 1, t.task_id

    return sorted(tasks, key=rank)


def _anchors(tasks: Iterable[TaskAudit]) -> dict[str, str]:
    """A unique fragment id per task id, made of the safe characters of the id's first
    :data:`ANCHOR_CHARS`, numbered when another task has it already."""
    anchors: dict[str, str] = {}
    taken: set[str] = set()
    seen: Counter[str] = Counter()
    for task in tasks:
        safe = _SLUG.sub("-", task.task_id[:ANCHOR_CHARS]).strip("-")
        slug = "task-" + (safe or "unnamed")
        anchor = slug
        while anchor in taken:
            seen[slug] += 1
            anchor = f"{slug}-{seen[slug] + 1}"
        taken.add(anchor)
        anchors[task.task_id] = anchor
    return anchors


def _tenth(index: int) -> str:
    """The label of the bucket from ``index`` tenths to the next, in percent."""
    return f"{index * 10}\u2013{index * 10 + 10}"


def _tip(index: int, what: str) -> str:
    return f"{index * 10}% to under {index * 10 + 10}%{what}"


def _score(task: TaskAudit) -> str:
    if task.mutation is None or task.mutation.score is None:
        return "-"
    return f"{task.mutation.score:.2f}"


def _won(task: TaskAudit) -> str:
    return "-" if task.red_team is None else f"{len(task.red_team.won)}/{task.red_team.tried}"


def _rate(task: TaskAudit) -> str:
    if task.profile is None or task.profile.pass_rate is None:
        return "-"
    return f"{task.profile.pass_rate:.0%}"


def _decision(decision: Decision) -> str:
    return f"<td>{_badge(decision)}</td>"


def _badge(decision: Decision) -> str:
    return f'<span class="badge {decision.value}">{decision.value}</span>'


def _severity(finding: Finding) -> str:
    value = finding.severity.value
    return f'<td><span class="sev {value}">{value}</span></td>'


def _e(value: object) -> str:
    """``value`` as HTML text (see :func:`assay._render_svg.escape`), cut at
    :data:`TEXT_CHARS`."""
    return escape(_cut(str(value), TEXT_CHARS))


def _block(value: str) -> str:
    """``value`` as HTML text, cut at :data:`BLOCK_CHARS`."""
    return escape(_cut(value, BLOCK_CHARS))


def _cut(text: str, limit: int) -> str:
    """``text``, or its first ``limit`` characters and how many more the JSON report holds: a
    task or a sandbox may write megabytes, and a page of them would not open."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[... {len(text) - limit} more characters in the JSON report]"


_STYLE = """
:root{--fg:#1f2328;--muted:#656d76;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;--accent:#0969da;
--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e}
*{box-sizing:border-box}
body{margin:0;font:14px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:var(--fg);
background:var(--bg)}
header{background:#24292f;color:#fff;padding:20px 32px 0}
header .brand{font-size:12px;letter-spacing:.08em;text-transform:uppercase;color:#8c959f}
header h1{margin:4px 0 6px;font-size:24px}
header .meta{margin:2px 0;color:#d0d7de}
header code{color:#fff}
nav{margin-top:14px;display:flex;gap:4px;flex-wrap:wrap}
nav a{color:#d0d7de;text-decoration:none;padding:8px 12px;border-bottom:2px solid transparent}
nav a:hover{color:#fff;border-bottom-color:#fd8c73}
section{padding:8px 32px}
section>h2{border-bottom:1px solid var(--line);padding-bottom:6px;margin-top:28px}
h4{margin:18px 0 6px}
a{color:var(--accent)}
code,pre{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:10px;
overflow:auto;white-space:pre-wrap;word-break:break-word;max-height:480px}
table{border-collapse:collapse;margin:6px 0}
th,td{border-bottom:1px solid var(--line);padding:5px 10px;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}
.card{border:1px solid var(--line);border-radius:8px;padding:12px 18px;min-width:140px;
border-top:4px solid var(--line)}
.card .n{font-size:28px;font-weight:600}
.card .what{color:var(--muted);text-transform:capitalize}
.card.accepted{border-top-color:var(--ok)}.card.quarantined{border-top-color:var(--warn)}
.card.rejected{border-top-color:var(--bad)}.card.error{border-top-color:#8c959f}
.facts th{width:220px}
.badge,.sev,.review{display:inline-block;border-radius:12px;padding:0 8px;font-size:12px;
font-weight:600;border:1px solid;white-space:nowrap;overflow-wrap:normal}
.badge.accepted{color:var(--ok)}.badge.quarantined{color:var(--warn)}
.badge.rejected{color:var(--bad)}.badge.error{color:var(--muted)}
.sev.error{color:var(--bad)}.sev.warning{color:var(--warn)}.sev.info{color:var(--muted)}
.review{color:var(--warn);margin-left:6px}
.pass{color:var(--ok);font-weight:600}.fail{color:var(--bad);font-weight:600}
.expected{color:var(--ok)}.unexpected{color:var(--bad);font-weight:600}
.error{color:var(--muted)}
.empty,.muted{color:var(--muted)}
.chart{max-width:100%;height:auto;border:1px solid var(--line);border-radius:6px;
background:var(--bg)}
.chart .bar{fill:#54aeff}.chart .bar:hover{fill:var(--accent)}
.chart .axis{stroke:#8c959f}.chart .tick{font-size:11px;fill:var(--muted)}
.chart .count{font-size:11px;fill:var(--fg)}.chart .caption{font-size:12px;fill:var(--muted)}
.chart .marker{stroke:var(--bad);stroke-dasharray:4 3}
.chart .marker-caption{font-size:11px;fill:var(--bad)}
.blocks{display:flex;flex-wrap:wrap;gap:8px 32px}
.block h3,.block h4{margin:12px 0 4px;font-size:14px}
.shares td,.shifts td,.shifts th{border:0;padding:2px 8px}
.shares td.label,.shifts td.label{max-width:260px;overflow-wrap:anywhere}
.meter svg{vertical-align:middle}.meter .track{fill:#eaeef2}.meter .fill{fill:#54aeff}
.findings td:last-child{max-width:900px}
td,header .meta,section>p{overflow-wrap:anywhere}
details summary{cursor:pointer;color:var(--accent);font-size:12px}
.task{border:1px solid var(--line);border-radius:8px;margin:16px 32px;padding:4px 20px 12px}
.task h3{display:flex;gap:10px;align-items:center;overflow-wrap:anywhere}
.task .meta{color:var(--muted);margin:0}
.survivor,.exploit{margin:10px 0}
.survivor .label,.exploit .label{font-weight:600;font-size:13px}
.diff .add{color:var(--ok);background:#dafbe1;display:inline-block;width:100%}
.diff .del{color:var(--bad);background:#ffebe9;display:inline-block;width:100%}
.diff .hunk{color:#8250df}
.top{font-size:12px}
"""
