"""The reports show what a task or a candidate wrote as it is: characters that reorder the text
around them (Trojan Source) are shown as escapes, on the page and on the terminal."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest

from assay._render import plain
from assay._render_html import audit_html
from assay.audit.report import (
    AuditReport,
    Diversity,
    ExploitResult,
    MutationResult,
    RedTeamResult,
    SurvivingMutant,
    TaskAudit,
)
from assay.findings import Decision, Finding, Severity
from assay.verdicts import Status

OVERRIDE = "\u202e"
ISOLATE = "\u2066"
CODE = f"if access_level != 'user{OVERRIDE} {ISOLATE}// Check if admin{ISOLATE} {OVERRIDE}':"


def _report() -> AuditReport:
    now = datetime.now(UTC)
    task = TaskAudit(
        task_id="t",
        task_version="v",
        path="tasks/t",
        decision=Decision.QUARANTINED,
        findings=(
            Finding(
                check="lint",
                severity=Severity.WARNING,
                message=f"message {CODE}",
                evidence=f"evidence {CODE}",
                review=True,
            ),
        ),
        mutation=MutationResult(
            killed=1,
            errors=0,
            score=0.5,
            survivors=(SurvivingMutant(name="drop", diff=f"-{CODE}\n+{CODE}"),),
        ),
        red_team=RedTeamResult(
            tried=1,
            won=(
                ExploitResult(
                    name="x", what="w", status=Status.PASS, summary="s", code=f"--- a.py\n{CODE}"
                ),
            ),
        ),
    )
    return AuditReport(
        run_id="r",
        root="tasks",
        started_at=now,
        finished_at=now,
        checks=("lint",),
        tasks=(task,),
        diversity=Diversity(tasks=1, families={"code": 1}, tags={f"tag{OVERRIDE}": 1}),
    )


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_the_html_report_shows_bidirectional_controls_as_escapes() -> None:
    page = audit_html(_report())
    assert OVERRIDE not in page
    assert ISOLATE not in page
    parser = _Text()
    parser.feed(page)
    text = "".join(parser.text)
    assert text.count("\\u202e") >= 6
    assert "\\u2066" in text


def test_the_terminal_shows_bidirectional_controls_as_escapes() -> None:
    shown = plain(CODE).plain
    assert OVERRIDE not in shown
    assert ISOLATE not in shown
    assert "\\u202e" in shown


HIDDEN = "ok\u200b\ufeff\U000e0069\U000e0067\x08\x1b[8m"
"""A zero-width space, a byte-order mark, tag characters spelling hidden text, a backspace and
an escape: each shows as nothing, so ``ok`` would look like whatever else reads ``ok``."""


def test_characters_that_show_as_nothing_are_escapes_on_the_page_and_the_terminal() -> None:
    report = _report()
    task = report.tasks[0].model_copy(update={"task_id": HIDDEN})
    page = audit_html(report.model_copy(update={"tasks": (task,)}))
    parser = _Text()
    parser.feed(page)
    text = "".join(parser.text)
    for hidden in ("\u200b", "\ufeff", "\U000e0069", "\x08", "\x1b"):
        assert hidden not in page
        assert hidden not in plain(HIDDEN).plain
    assert "ok\\u200b\\ufeff\\U000e0069\\U000e0067\\x08\\x1b[8m" in text
    assert "ok\\u200b\\ufeff\\U000e0069\\U000e0067\\x08\\x1b[8m" in plain(HIDDEN).plain


@pytest.mark.parametrize("blank", ["\u3164", "\uffa0", "\u115f", "\u1160", "\u034f", "\u17b4"])
def test_fillers_that_render_blank_are_escapes_on_the_page_and_the_terminal(blank: str) -> None:
    """The Hangul fillers, the Khmer invisible vowels and the combining grapheme joiner show
    as nothing: ``ok\u3164`` looked like ``ok``."""
    escape = ascii(blank)[1:-1]
    assert plain(f"ok{blank}").plain == f"ok{escape}"
    report = _report()
    task = report.tasks[0].model_copy(update={"task_id": f"ok{blank}"})
    page = audit_html(report.model_copy(update={"tasks": (task,)}))
    assert blank not in page
    assert f"ok{escape}" in page


def test_a_diff_line_is_one_line_whatever_separators_it_holds() -> None:
    """A line of the reference holding a line separator is one deleted line, not a deleted
    line and an added one that the reference never had."""
    line = '-    return "a\u2028+evil()\x0c- b\x1c+c"'
    report = _report()
    mutation = MutationResult(
        killed=1, errors=0, score=0.5, survivors=(SurvivingMutant(name="m", diff=line),)
    )
    task = report.tasks[0].model_copy(update={"mutation": mutation})
    page = audit_html(report.model_copy(update={"tasks": (task,)}))
    [diff] = re.findall(r'<pre class="diff">(.*?)</pre>', page, re.DOTALL)
    assert diff == (
        '<span class="del">-    return &quot;a\\u2028+evil()\\x0c- b\\x1c+c&quot;</span>'
    )
