"""``assay generate sql``: diverse, self-checked question tasks over four real-workflow schemas.

For each task the generator draws a template, a locale and a prompt style; builds the visible
database from the schema's seeded data; runs the references on it in the sandbox and adds a
known-bad query that hard-codes that visible answer as literals; generates the neighbour
databases once from the references' queries (stored in ``hidden/``); and then verifies, in the
sandbox, that every reference passes and every known-bad query fails on the suite. A draw whose
reference answers nothing on the visible database, or whose known-bad queries are not all
caught, is redrawn, so a generated task set passes its own audit. The same seed and engine give
the same tasks.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

from assay.errors import VerifierError
from assay.families.sql._authoring import (
    HARD_CODED,
    LIMITS,
    literal_query,
    neighbour_files,
    query_files,
    self_check,
    visible_answer,
)
from assay.families.sql.config import SqlConfig
from assay.families.sql.family import SqlFamily
from assay.families.sql.prompts import STYLES
from assay.families.sql.results import Failed
from assay.families.sql.templates import LOCALES, TEMPLATES, Template
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task
from assay.tasks.spec import TaskSpec

MAX_DRAWS = 8
Engine = Literal["sqlite", "duckdb"]


def generate_sql_tasks(
    count: int,
    seed: int,
    sandbox: Sandbox,
    *,
    engine: Engine = "sqlite",
    workers: int = 2,
    on_task: Callable[[Task], None] | None = None,
) -> list[Task]:
    """Make ``count`` tasks for ``engine`` from the bank, deterministic in ``seed``, in a
    stable order. Raises :class:`VerifierError` when a template cannot make a sound task."""
    order = _template_order(count, seed)
    family = SqlFamily()

    def make(index: int) -> Task:
        task = _make_task(order[index], seed, index, engine=engine, sandbox=sandbox, family=family)
        if on_task is not None:
            on_task(task)
        return task

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(make, range(count)))


def _template_order(count: int, seed: int) -> list[Template]:
    """Every template once per round, each round shuffled, so the bank is covered evenly."""
    rng = random.Random(f"assay-sql-order:{seed}")
    order: list[Template] = []
    while len(order) < count:
        batch = list(TEMPLATES)
        rng.shuffle(batch)
        order.extend(batch)
    return order[:count]


def _make_task(
    template: Template,
    seed: int,
    index: int,
    *,
    engine: Engine,
    sandbox: Sandbox,
    family: SqlFamily,
) -> Task:
    problems = []
    for draw in range(MAX_DRAWS):
        rng = random.Random(f"assay-sql:{engine}:{seed}:{index}:{draw}")
        digest = hashlib.sha256(f"{engine}:{seed}:{index}".encode()).hexdigest()[:8]
        name = f"sql-{template.id}-{engine}-{digest}"
        task = _draft(template, rng, name, engine=engine, sandbox=sandbox)
        if isinstance(task, str):
            problems.append(task)
            continue
        wrong = self_check(task, sandbox, family)
        if wrong is None:
            return task
        problems.append(wrong)
    raise VerifierError(
        f"template {template.id}: no sound task in {MAX_DRAWS} draws (seed {seed}, task {index}, "
        f"{engine}): {problems[-1]}"
    )


def _draft(
    template: Template,
    rng: random.Random,
    task_id: str,
    *,
    engine: Engine,
    sandbox: Sandbox,
) -> Task | str:
    """One candidate task, or why this draw cannot make one."""
    formats = rng.choice(LOCALES)
    schema = template.schema
    visible = schema.build(rng)
    question = template.build(rng, formats)
    style = rng.choice(sorted(STYLES))
    config = SqlConfig(engine=engine, database=schema.file, seed=rng.randrange(1 << 30))
    answer = visible_answer(task_id, visible, question.references["reference"], config, sandbox)
    if isinstance(answer, Failed):
        raise VerifierError(
            f"{task_id}: the reference failed on the visible database: {answer.message}"
        )
    if not answer.rows:
        return "the reference answers nothing on the visible database"
    solutions: dict[str, Files] = {
        name: query_files(text) for name, text in sorted(question.references.items())
    }
    solutions.update(
        {f"bad-{label}": query_files(text) for label, text in sorted(question.bad.items())}
    )
    solutions[HARD_CODED] = query_files(literal_query(answer))
    references = list(question.references.values())
    hidden = neighbour_files(visible, references, engine=engine, seed=config.seed)
    tags = (schema.name, template.id, f"style:{style}", engine, *question.tags)
    if len(question.references) > 1:
        tags += ("readings",)
    spec = TaskSpec(
        id=task_id,
        family="sql",
        tags=tags,
        locale=formats.locale,
        difficulty=template.difficulty,
        limits=LIMITS,
        config=config.model_dump(exclude_defaults=True) | {"engine": engine},
    )
    return Task(
        spec=spec,
        prompt=STYLES[style](question, schema, engine, rng),
        workspace={schema.file: visible.encode()},
        hidden=hidden,
        solutions=solutions,
    )
