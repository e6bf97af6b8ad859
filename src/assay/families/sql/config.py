"""The sql family's task settings (``[sql]`` in task.toml)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay.errors import TaskFormatError
from assay.families._tolerance import MAX_FLOAT_TOLERANCE
from assay.tasks.model import Task
from assay.tasks.spec import Count, Number

QUERY_FILE = "query.sql"
"""The file of a solution directory that holds its one query."""
NEIGHBOURS_DIR = "databases"
"""Directory of ``hidden/`` that holds the neighbour databases, one ``.sql`` file each."""
DEFAULT_TOLERANCE = 1e-6


class SqlConfig(BaseModel):
    """The engine, the visible database and how results compare, from ``[sql]`` of task.toml."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    engine: Literal["sqlite", "duckdb"] = Field(
        default="sqlite", description="The engine every query of the task runs on."
    )
    database: str = Field(
        default="database.sql",
        pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\.sql$",
        description="The visible database in workspace/, as SQL text (schema and rows).",
    )
    max_rows: Count = Field(
        default=10_000,
        ge=1,
        le=100_000,
        description="Most rows a query may return on one database; more is a failed query.",
    )
    time_limit_s: Number = Field(
        default=2.0, gt=0, le=600, description="Wall time one query may take on one database."
    )
    float_tolerance: Number = Field(
        default=DEFAULT_TOLERANCE,
        ge=0,
        lt=1,
        description="Relative and absolute tolerance between two numbers of a result; from 1 "
        "any two numbers of the same sign would match, above 0.01 the audit quarantines the task.",
    )
    order: Literal["auto", "unordered"] = Field(
        default="auto",
        description="auto: row order matters where the reference has ORDER BY (up to ties in "
        "its keys); unordered: results always compare as multisets of rows.",
    )
    seed: Count = Field(
        default=0, description="Seed the neighbour databases were generated with (provenance)."
    )


def sql_config(task: Task) -> SqlConfig:
    """The task's ``[sql]`` settings; raises :class:`TaskFormatError` naming the field."""
    try:
        return SqlConfig.model_validate(task.spec.config)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = "sql." + ".".join(str(p) for p in first["loc"])
        raise TaskFormatError(
            first["msg"], path=f"{task.id}/task.toml", field=field, fix=_FIXES.get(field, _FIX)
        ) from None


_FIX = "correct the [sql] table"
_FIXES = {
    "sql.float_tolerance": "set float_tolerance in the [sql] table to a number of at least 0 "
    f"and below 1, at most {MAX_FLOAT_TOLERANCE:g} to pass the audit without review; the "
    f"default is {DEFAULT_TOLERANCE:g}",
}
"""A fix more telling than :data:`_FIX`, by field."""
