"""The HTML report: one self-contained page built from the report model, everything escaped;
rendered in headless Chromium, its charts, findings and task sections are there, nothing it
holds runs, and it asks the network for nothing."""

from __future__ import annotations

import json
import re
import subprocess
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest

from assay._render_html import CSP, audit_html
from assay.audit.drift import Drift, LabelDrift, LabelShare, SeedMatch
from assay.audit.report import (
    AuditReport,
    Diversity,
    ExploitResult,
    MutationResult,
    RedTeamResult,
    SolutionResult,
    SurvivingMutant,
    TaskAudit,
)
from assay.findings import Decision, Finding, Severity
from assay.profiles import TaskProfile
from assay.verdicts import Status

CHROMIUM = Path("/usr/bin/chromium")
INJECTED = "<script>document.title='pwned';document.body.dataset.pwned='1'</script>"
HANDLER = "<img src=x onerror=\"document.title='pwned'\">"
HOSTILE = INJECTED + HANDLER


def hostile_report() -> AuditReport:
    """A report with one task of each decision, survivors, a winning exploit, a profile and a
    drift, where every text a task or a sandbox wrote carries markup that must not run."""
    now = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    exploit = ExploitResult(
        name="always-equal",
        what="an object equal to anything",
        status=Status.PASS,
        summary=f"5/5 cases passed {HOSTILE}",
        code="--- solution.py\nclass Anything:\n    def __eq__(self, other): return True\n"
        f"# {HOSTILE}",
    )
    broken = TaskAudit(
        task_id=f"broken-{HOSTILE}",
        task_version="v1",
        path="tasks/broken",
        decision=Decision.REJECTED,
        findings=(
            Finding(
                check="red-team",
                severity=Severity.ERROR,
                message="exploit always-equal passes (an object equal to anything)",
                evidence=f"verdict: pass\n{exploit.code}",
            ),
        ),
        solutions=(
            SolutionResult(solution="reference", status=Status.PASS, score=1, summary="5/5"),
            SolutionResult(solution="bad-sloppy", status=Status.PASS, score=1, summary="5/5"),
            SolutionResult(solution="empty", status=Status.FAIL, score=0, summary="0/5"),
        ),
        red_team=RedTeamResult(tried=23, won=(exploit,)),
        mutation=MutationResult(
            killed=2,
            errors=0,
            score=0.4,
            survivors=tuple(
                SurvivingMutant(
                    name=f"flip < to <= {HOSTILE}",
                    diff=f"@@ -1,2 +1,2 @@\n-    if x < 0:\n+    if x <= 0:\n # {HOSTILE}",
                )
                for _ in range(3)
            ),
        ),
        profile=TaskProfile(
            task_id="broken", samples=4, passed=4, errors=0, pass_rate=1.0, pass_at_1=1.0,
            pass_at_k=1.0,
        ),
    )  # fmt: skip
    held = TaskAudit(
        task_id="held",
        task_version="v2",
        path="tasks/held",
        decision=Decision.QUARANTINED,
        findings=(
            Finding(
                check="profile",
                severity=Severity.WARNING,
                message="no sample passed (run p1, k=4)",
                evidence="0 of 4 scored samples passed",
                review=True,
            ),
        ),
        mutation=MutationResult(killed=10, errors=1, score=1.0),
        profile=TaskProfile(
            task_id="held", samples=4, passed=0, errors=0, pass_rate=0.0, pass_at_1=0.0,
            pass_at_k=0.0,
        ),
    )  # fmt: skip
    fine = TaskAudit(
        task_id="fine",
        task_version="v3",
        path="tasks/fine",
        decision=Decision.ACCEPTED,
        mutation=MutationResult(killed=17, errors=0, score=0.85),
        profile=TaskProfile(
            task_id="fine", samples=4, passed=2, errors=0, pass_rate=0.5, pass_at_1=0.5,
            pass_at_k=0.9,
        ),
    )  # fmt: skip
    drift = Drift(
        seeds_root=f"seeds/{HOSTILE}",
        seeds=2,
        bins=(1, 0, 0, 0, 0, 0, 1, 0, 0, 1),
        median=0.62,
        copies=1,
        far=1,
        nearest=(
            SeedMatch(task_id="fine", seed_id="seed-a", similarity=0.95),
            SeedMatch(task_id="held", seed_id=f"seed-{HOSTILE}", similarity=0.05),
        ),
        labels={
            "tags": LabelDrift(
                distance=0.5,
                shares=(LabelShare(label=f"style:{HOSTILE}", seeds=0.0, tasks=0.67),),
            )
        },
    )
    return AuditReport(
        run_id="a1b2c3",
        root=f"tasks/{HOSTILE}",
        started_at=now,
        finished_at=now,
        checks=("lint", "reference", "red-team", "mutation", "profile"),
        tasks=(broken, fine, held),
        diversity=Diversity(
            tasks=3,
            families={"code": 3},
            tags={f"tag-{HOSTILE}": 2, "stats": 1},
            evenness=0.9,
            drift=drift,
        ),
        profile_run="p1",
    )


class _Page(HTMLParser):
    """What a page loads and runs: tags, attributes, and the text of style elements."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str]] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [(name, value or "") for name, value in attrs]
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def test_the_page_escapes_everything_a_task_or_a_sandbox_wrote() -> None:
    page = audit_html(hostile_report())
    parsed = _Page()
    parsed.feed(page)
    assert "script" not in parsed.tags
    assert "img" not in parsed.tags
    assert not [name for name, _ in parsed.attributes if name.startswith("on")]
    assert "&lt;script&gt;document.title=&#x27;pwned&#x27;" in page
    assert page.count("&lt;script&gt;") >= 8  # id, root, evidence, code, diffs, labels, seeds


def test_the_page_loads_nothing_from_anywhere() -> None:
    page = audit_html(hostile_report())
    parsed = _Page()
    parsed.feed(page)
    assert not {"script", "link", "img", "iframe", "object", "embed"} & set(parsed.tags)
    links = [value for name, value in parsed.attributes if name in ("href", "src")]
    assert links
    assert all(link.startswith("#") for link in links), links
    assert not re.search(r"url\(|@import", "".join(parsed.styles))
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in page
    assert "default-src 'none'" in CSP


def test_the_page_holds_what_the_json_report_holds() -> None:
    report = hostile_report()
    page = audit_html(report)
    for section in ("summary", "pass-rates", "mutation", "diversity", "findings", "tasks"):
        assert f'<section id="{section}">' in page
    assert page.count('<section class="task" id="task-') == 3
    assert 'id="task-broken--script-document.title-pwned' in page
    assert "1 of 23 tried" in page
    assert page.count('<pre class="diff">') == 3
    assert '<span class="del">-    if x &lt; 0:</span>' in page
    assert "Pass rate 100%: 4 of 4 scored samples passed." in page
    assert '<td class="unexpected">pass (must fail)</td>' in page  # bad-sloppy
    assert page.count('<td class="expected">') == 2  # the reference passes, empty fails
    assert "median similarity to the nearest seed 0.62; 1 near copies" in page
    assert "Nearest seed: <code>seed-a</code>, 0.95 similar." in page
    # a report without profile, mutants or seeds says so instead of drawing empty charts
    bare = report.model_copy(
        update={
            "profile_run": None,
            "tasks": tuple(t.model_copy(update={"mutation": None}) for t in report.tasks),
            "diversity": report.diversity.model_copy(update={"drift": None})
            if report.diversity
            else None,
        }
    )
    plain = audit_html(bare)
    assert "No profile" in plain
    assert "No mutation scores" in plain
    assert "No seed tasks given" in plain
    assert plain.count('class="bar"') == 0


def test_histograms_count_the_tasks_in_each_bucket() -> None:
    page = audit_html(hostile_report())
    charts = re.findall(r'<svg class="chart".*?</svg>', page, flags=re.DOTALL)
    assert len(charts) == 3  # pass rates, mutation scores, drift
    values = [
        [int(v) for v in re.findall(r'class="bar"[^>]*data-value="(\d+)"', c)] for c in charts
    ]
    passes, mutation, drift = values
    assert len(passes) == 12
    assert passes[0] == 1
    assert passes[6] == 1
    assert passes[-1] == 1
    assert len(mutation) == 11
    assert mutation[4] == 1
    assert mutation[8] == 1
    assert mutation[-1] == 1
    assert drift == [1, 0, 0, 0, 0, 0, 1, 0, 0, 1]
    assert "weak under 0.6" in charts[1]


def test_a_lone_surrogate_from_a_sandbox_does_not_stop_the_page() -> None:
    report = hostile_report()
    odd = report.tasks[1].model_copy(update={"task_id": "odd-\ud800"})
    page = audit_html(report.model_copy(update={"tasks": (report.tasks[0], odd)}))
    assert "odd-?" in page
    page.encode("utf-8")


# In headless Chromium


def chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    """Run Chromium headless, with nothing of its own that reaches the network."""
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: `make unit` installs it"
    command = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)


@pytest.fixture
def page_file(tmp_path: Path) -> Path:
    path = tmp_path / "report.html"
    path.write_text(audit_html(hostile_report()), encoding="utf-8")
    return path


@pytest.mark.browser
def test_chromium_runs_a_pages_scripts_so_the_next_test_can_tell(tmp_path: Path) -> None:
    """The control: in a page that allows it, the injected script does change the title."""
    path = tmp_path / "control.html"
    path.write_text(f"<!DOCTYPE html><html><head><title>kept</title></head><body>{INJECTED}")
    dom = chromium("--dump-dom", path.as_uri(), profile=tmp_path / "profile").stdout
    assert "<title>pwned</title>" in dom
    assert 'data-pwned="1"' in dom


@pytest.mark.browser
def test_chromium_renders_the_charts_findings_and_tasks_and_runs_nothing(
    page_file: Path, tmp_path: Path
) -> None:
    dom = chromium("--dump-dom", page_file.as_uri(), profile=tmp_path / "profile").stdout
    assert "<title>assay audit a1b2c3</title>" in dom
    assert "data-pwned" not in dom
    assert "<script" not in dom
    assert "<img" not in dom
    assert "&lt;script&gt;document.title='pwned'" in dom  # shown as text
    charts = re.findall(r'<svg class="chart".*?</svg>', dom, flags=re.DOTALL)
    assert len(charts) == 3
    assert all(len(re.findall(r'<rect class="bar"', chart)) >= 10 for chart in charts)
    assert "exploit always-equal passes" in dom
    assert dom.count('<section class="task" id="task-') == 3
    assert 'id="task-held"' in dom
    assert 'href="#task-held"' in dom
    assert "Red team: 1 of 23 exploits won" in dom


def page_requests(page: Path, tmp_path: Path) -> set[str]:
    """The URLs that ``page`` itself asked for while Chromium rendered it (and took a
    screenshot): requests whose initiator is the page's origin (``null`` for a file), not those
    the browser makes for itself (``not an origin``)."""
    log = tmp_path / "net.json"
    screenshot = tmp_path / "page.png"
    chromium(
        f"--log-net-log={log}",
        "--window-size=1280,2000",
        f"--screenshot={screenshot}",
        page.as_uri(),
        profile=tmp_path / "profile",
    )
    assert screenshot.read_bytes().startswith(b"\x89PNG")
    kept = json.loads(_closed(log.read_text()))
    start = kept["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = set()
    for event in kept["events"]:
        params = event.get("params") or {}
        if event["type"] != start or "url" not in params:
            continue
        if params.get("initiator") != "not an origin" and not params["url"].startswith("file:"):
            urls.add(params["url"])
    return urls


@pytest.mark.browser
def test_a_page_that_loads_something_is_caught_so_the_next_test_can_tell(tmp_path: Path) -> None:
    """The control: an image and a stylesheet from elsewhere are requests of the page."""
    path = tmp_path / "control.html"
    path.write_text(
        '<!DOCTYPE html><html><body><img src="http://198.51.100.7/x.png">'
        '<link rel="stylesheet" href="https://198.51.100.8/s.css"></body></html>'
    )
    assert page_requests(path, tmp_path) == {
        "http://198.51.100.7/x.png",
        "https://198.51.100.8/s.css",
    }


@pytest.mark.browser
def test_the_page_asks_the_network_for_nothing(page_file: Path, tmp_path: Path) -> None:
    assert page_requests(page_file, tmp_path) == set()
    assert (tmp_path / "page.png").stat().st_size > 20_000  # a drawn page, not a blank one


def _closed(text: str) -> str:
    """A net log Chromium may leave without its closing brackets when it exits at once."""
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return text.rstrip().rstrip(",") + "]}"
    return text


def test_tasks_past_the_cap_are_listed_and_anchors_stay_unique(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import assay._render_html as page_module  # noqa: PLC0415 - the cap is the module's

    report = hostile_report()
    twins = tuple(
        t.model_copy(update={"task_id": task_id})
        for t, task_id in zip(report.tasks, ("a b", "a/b", "a?b"), strict=True)
    )
    monkeypatch.setattr(page_module, "TASK_SECTIONS", 2)
    page = audit_html(report.model_copy(update={"tasks": twins, "diversity": None}))
    assert page.count('<section class="task" id="task-a-b') == 2
    assert "1 more tasks, all accepted or lower in the order above" in page
    anchors = re.findall(r'<tr><td><a href="#(task-[^"]+)">', page)
    assert len(set(anchors)) == 3
    assert "Not recorded (a report before format 2)." in page


def test_megabytes_from_a_task_make_a_page_of_bounded_size() -> None:
    huge = "A" * 1_000_000
    report = hostile_report()
    broken = report.tasks[0]
    assert broken.mutation is not None
    assert broken.red_team is not None
    finding = Finding(check="lint", severity=Severity.ERROR, message=f"shows {huge}", evidence=huge)
    mutant = SurvivingMutant(name=f"m {huge}", diff=f"-{huge}\n+{huge}")
    exploit = broken.red_team.won[0].model_copy(update={"summary": huge, "code": huge})
    heavy = broken.model_copy(
        update={
            "task_id": f"t-{huge}",
            "findings": (finding,) * 200,
            "mutation": broken.mutation.model_copy(update={"survivors": (mutant,) * 200}),
            "red_team": broken.red_team.model_copy(update={"won": (exploit,)}),
        }
    )
    page = audit_html(report.model_copy(update={"tasks": (heavy,)}))
    assert len(page) < 5_000_000, len(page)
    assert "more characters in the JSON report" in page
    assert "150 more findings in the JSON report." in page
    assert "150 more survivors in the JSON report." in page


def test_every_task_gets_its_own_anchor_whatever_its_id() -> None:
    report = hostile_report()
    fine = report.tasks[1]
    ids = ("a!", "a?", "a-2", "a-2!")
    tasks = tuple(fine.model_copy(update={"task_id": i}) for i in ids)
    page = audit_html(report.model_copy(update={"tasks": tasks}))
    anchors = re.findall(r'<section class="task" id="([^"]+)"', page)
    assert len(anchors) == len(set(anchors)) == 4, anchors
