"""The audit report's JSON has a documented, versioned schema: the file in docs/ is the one the
report's model gives, and an earlier report (format 1) still reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from assay.audit.diversity import diversity
from assay.audit.report import REPORT_FORMAT, AuditReport
from tests.conftest import make_median_task

SCHEMA = Path(__file__).parents[2] / "docs" / "audit-report.schema.json"


def test_the_documented_schema_is_the_reports_own() -> None:
    documented = json.loads(SCHEMA.read_text())
    assert documented == AuditReport.model_json_schema(), (
        "the report's layout changed: raise REPORT_FORMAT and write docs/audit-report.schema.json "
        "again (json.dumps(AuditReport.model_json_schema(), indent=2, sort_keys=True))"
    )
    assert documented["properties"]["format"]["default"] == REPORT_FORMAT


def test_a_format_1_report_still_reads() -> None:
    old = {
        "run_id": "abc",
        "root": "tasks",
        "started_at": "2026-11-01T10:00:00Z",
        "finished_at": "2026-11-01T10:01:00Z",
        "checks": ["lint"],
        "tasks": [
            {
                "task_id": "t",
                "task_version": "v",
                "path": "tasks/t",
                "decision": "rejected",
                "findings": [{"check": "lint", "severity": "error", "message": "m"}],
            }
        ],
    }
    report = AuditReport.model_validate(old)
    assert report.diversity is None
    assert report.tasks[0].findings[0].review is False
    assert report.tasks[0].checks_run is None  # unknown: --since compares as it always did


def test_a_solution_score_outside_zero_to_one_is_no_report() -> None:
    solution = {"solution": "reference", "status": "pass", "score": 1.5, "summary": "s"}
    task = {"task_id": "t", "task_version": "v", "path": "p", "decision": "accepted"}
    report = {
        "run_id": "abc",
        "root": "tasks",
        "started_at": "2026-11-01T10:00:00Z",
        "finished_at": "2026-11-01T10:01:00Z",
        "checks": [],
        "tasks": [{**task, "solutions": [solution]}],
    }
    with pytest.raises(ValidationError, match="less than or equal to 1"):
        AuditReport.model_validate(report)


def test_diversity_counts_every_label_and_measures_evenness() -> None:
    one = make_median_task("a", tags=("stats", "style:formal"), locale="de-DE")
    two = make_median_task("b", tags=("stats", "style:ticket"), difficulty="hard")
    spread = diversity([one, two])
    assert spread.tasks == 2
    assert spread.families == {"code": 2}
    assert spread.locales == {"de-DE": 1, "unset": 1}
    assert spread.difficulties == {"hard": 1, "unset": 1}
    assert spread.tags == {"stats": 2, "style:formal": 1, "style:ticket": 1}
    assert spread.evenness is not None
    assert 0.9 < spread.evenness < 1.0
    assert diversity([one]).evenness == 1.0  # two tags, once each
    assert diversity([]).evenness is None


def test_a_tag_a_task_names_twice_counts_that_task_once() -> None:
    """Tags count tasks: a task that repeats a tag does not weigh more, nor show a share of the
    set over 100%."""
    loud = make_median_task("a", tags=("stats",) * 50 + ("style:formal",))
    quiet = make_median_task("b", tags=("style:formal",))
    spread = diversity([loud, quiet])
    assert spread.tags == {"style:formal": 2, "stats": 1}
    assert spread.evenness is not None
    assert spread.evenness > 0.9


def test_a_format_2_report_still_reads_without_the_records_of_format_3() -> None:
    old = {
        "format": 2,
        "run_id": "abc",
        "root": "tasks",
        "started_at": "2026-11-01T10:00:00Z",
        "finished_at": "2026-11-01T10:01:00Z",
        "checks": ["lint", "mutation"],
        "tasks": [
            {
                "task_id": "t",
                "task_version": "v",
                "path": "tasks/t",
                "decision": "accepted",
                "findings": [],
            }
        ],
        "diversity": {"tasks": 1, "families": {"code": 1}},
    }
    report = AuditReport.model_validate(old)
    assert report.format == 2
    assert report.profile_run is None
    assert report.diversity is not None
    assert report.diversity.drift is None
    (task,) = report.tasks
    assert (task.mutation, task.red_team, task.profile) == (None, None, None)
