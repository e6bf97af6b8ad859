"""The sql generator: deterministic, diverse, neighbours made once and stored, every known-bad
query caught, and a template that cannot make a sound task is an error, not a weak task."""

from __future__ import annotations

import datetime as dt
import random
import shutil
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from assay.cli import cli
from assay.errors import VerifierError
from assay.families.sql import generator
from assay.families.sql.generator import generate_sql_tasks
from assay.families.sql.neighbours import write_neighbours
from assay.families.sql.templates import (
    LOCALES,
    TEMPLATES,
    Formats,
    Question,
    Template,
    retail,
    sql,
)
from assay.sandbox import PoolSandbox
from assay.tasks import load_task, save_task

KINDS = ("join", "group-by", "window", "date-range", "null", "ties")
MISTAKES = (
    "dropped-filter",
    "inner-join",
    "date-boundary",
    "null-mishandled",
    "count-star",
    "missing-distinct",
)


def test_the_bank_has_25_templates_over_4_schemas_and_every_kind_of_question() -> None:
    assert len(TEMPLATES) >= 25
    assert len({t.id for t in TEMPLATES}) == len(TEMPLATES)
    assert {t.schema.name for t in TEMPLATES} == {"retail", "hospital", "claims", "ledger"}
    questions = [t.build(random.Random(1), LOCALES[0]) for t in TEMPLATES]
    tags = {tag for q in questions for tag in q.tags}
    assert set(KINDS) <= tags
    labels = {label for q in questions for label in q.bad}
    assert set(MISTAKES) <= labels
    readings = [q for q in questions if len(q.references) > 1]
    assert len(readings) >= 2
    assert all(q.spec == () and "underspecified" in q.tags for q in readings)


@pytest.mark.parametrize(
    ("locale", "day", "amount"),
    [
        ("en-US", "March 1, 2024", "12,345.50"),
        ("en-GB", "1 March 2024", "12,345.50"),
        ("de-DE", "01.03.2024", "12.345,50"),
        ("fr-FR", "1 mars 2024", "12\u202f345,50"),
        ("es-ES", "1 de marzo de 2024", "12.345,50"),
        ("sv-SE", "2024-03-01", "12\u00a0345,50"),
        ("ja-JP", "2024年3月1日", "12,345.50"),
    ],
)
def test_locales_write_dates_and_amounts_their_own_way(locale: str, day: str, amount: str) -> None:
    formats = {f.locale: f for f in LOCALES}[locale]
    assert formats.date(dt.date(2024, 3, 1)) == day
    assert formats.amount(Decimal("12345.5")) == amount


def test_values_become_literals_that_cannot_break_out() -> None:
    text = sql(
        "SELECT 1 FROM t WHERE a = :name AND b >= :day AND c < :n AND d::TEXT = :name",
        name="O'Brien; DROP TABLE t",
        day=dt.date(2024, 2, 29),
        n=Decimal("2.50"),
    )
    assert text == (
        "SELECT 1 FROM t WHERE a = 'O''Brien; DROP TABLE t' AND b >= '2024-02-29' AND c < 2.50 "
        "AND d::TEXT = 'O''Brien; DROP TABLE t'"
    )


def test_same_seed_same_tasks_other_seed_other_tasks(pool: PoolSandbox) -> None:
    first = generate_sql_tasks(3, 11, pool)
    assert first == generate_sql_tasks(3, 11, pool)
    other = generate_sql_tasks(3, 12, pool)
    assert {t.id for t in first}.isdisjoint({t.id for t in other})
    assert [t.workspace for t in first] != [t.workspace for t in other]


def test_tasks_are_complete_and_keep_answers_hidden(pool: PoolSandbox, tmp_path: Path) -> None:
    for task in generate_sql_tasks(8, 3, pool, engine="duckdb"):
        assert load_task(save_task(task, tmp_path)) == task
        config = task.spec.config
        assert config["engine"] == "duckdb"
        assert list(task.workspace) == [config["database"]]
        neighbours = [f"databases/n0{i}.sql" for i in range(1, 6)]
        assert sorted(task.hidden) in (neighbours[:4], neighbours)  # n05: rows for choices
        assert "reference" in task.solutions
        assert "bad-hard-coded" in task.known_bad()
        assert len(task.known_bad()) >= 3
        assert "DuckDB" in task.prompt
        assert config["database"] in task.prompt
        for files in task.solutions.values():
            assert files["query.sql"].decode().strip() not in task.prompt
        hard_coded = task.solutions["bad-hard-coded"]["query.sql"].decode()
        assert "FROM" not in hard_coded.upper()


def test_neighbours_are_made_once_and_can_be_made_again(pool: PoolSandbox, tmp_path: Path) -> None:
    """The stored neighbours are what the task's seed and references give: nothing else in
    them, and no verification regenerates them."""
    task = generate_sql_tasks(1, 4, pool)[0]
    directory = save_task(task, tmp_path)
    copy = tmp_path / "again"
    shutil.copytree(directory, copy)
    write_neighbours(copy)
    assert load_task(copy).hidden == task.hidden


def test_a_set_covers_the_bank_styles_and_locales(pool: PoolSandbox) -> None:
    tasks = generate_sql_tasks(len(TEMPLATES), 5, pool)
    ids = {t.id for t in TEMPLATES}
    covered = {tag for task in tasks for tag in task.spec.tags if tag in ids}
    assert covered == ids
    styles = Counter(tag for t in tasks for tag in t.spec.tags if tag.startswith("style:"))
    assert set(styles) == {"style:spec", "style:ticket", "style:email", "style:chat"}
    assert len({t.spec.locale for t in tasks}) >= 4
    assert {t.spec.difficulty for t in tasks} == {"easy", "medium", "hard"}
    assert any(len(t.references()) > 1 for t in tasks)


def _unsound(rng: random.Random, formats: Formats) -> Question:
    del formats
    country = rng.choice(("DE", "FR"))
    query = sql("SELECT name FROM customers WHERE country = :c", c=country)
    same = sql("SELECT name FROM customers WHERE :c = country", c=country)
    return Question(ask="Who?", spec=(), references={"reference": query}, bad={"same": same})


def test_a_template_whose_known_bad_query_is_right_is_an_error(
    pool: PoolSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = Template("retail-unsound", retail.SCHEMA, "easy", _unsound)
    monkeypatch.setattr(generator, "TEMPLATES", (broken,))
    with pytest.raises(VerifierError) as raised:
        generate_sql_tasks(1, 0, pool)
    message = str(raised.value)
    assert "retail-unsound" in message
    assert "solutions/bad-same is not caught" in message


def test_generate_sql_writes_tasks(tmp_path: Path) -> None:
    out = tmp_path / "tasks"
    result = CliRunner().invoke(
        cli,
        ["generate", "sql", "--n", "2", "--seed", "9", "--engine", "duckdb", "--out", str(out)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert f"wrote 2 tasks to {out}" in result.stdout
    written = sorted(out.iterdir())
    assert len(written) == 2
    assert all(load_task(path).spec.config["engine"] == "duckdb" for path in written)


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["--engine", "oracle"], "'oracle' is not one of 'sqlite', 'duckdb'"),
        (["--n", "0"], "0 is not in the range"),
    ],
)
def test_generate_sql_refuses_bad_options(tmp_path: Path, args: list[str], shown: str) -> None:
    result = CliRunner().invoke(cli, ["generate", "sql", *args, "--out", str(tmp_path / "t")])
    assert result.exit_code == 2
    assert shown in result.output


def test_generate_sql_into_a_file_or_an_unwritable_place_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.write_text("mine")
    result = CliRunner().invoke(cli, ["generate", "sql", "--n", "1", "--out", str(target)])
    assert result.exit_code == 2
    assert "is a file" in result.output
    result = CliRunner().invoke(cli, ["generate", "sql", "--n", "1", "--out", "/proc/foo"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: /proc/foo: cannot write a directory here")
