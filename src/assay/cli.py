"""The ``assay`` command: thin commands over the library. Exit codes: 0 ok or pass, 1 fail or
rejected, 2 bad input, 3 infrastructure error.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from assay.audit import render_table, run_audit, summary_line
from assay.errors import AssayError, InputError
from assay.families import family_of, harness_code
from assay.families.code.generator import generate_code_tasks
from assay.sandbox import BACKENDS, Sandbox, open_sandbox
from assay.settings import DB, SANDBOX, WORKERS, Setting
from assay.store import Store
from assay.tasks import TaskSet, load_task, save_task
from assay.tasks.spec import Limits
from assay.verdicts import Status, Verdict

EXIT_FAIL, EXIT_INPUT, EXIT_INFRA = 1, 2, 3
F = TypeVar("F", bound=Callable[..., Any])
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


def setting_option(setting: Setting, **kwargs: Any) -> Callable[[F], F]:
    """A click option fed by a :class:`Setting`: flag, environment variable, default, help."""
    return click.option(
        setting.flag,
        setting.name,
        envvar=setting.env,
        default=setting.default,
        show_default=True,
        show_envvar=True,
        help=setting.help,
        **kwargs,
    )


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="assay")
def cli() -> None:
    """assay: build, audit and run verifiable environments for LLM agents.

    \b
    Example:
      assay demo
    """


@cli.group()
def generate() -> None:
    """Generate tasks.

    \b
    Example:
      assay generate code --n 200 --seed 7 --out tasks/
    """


@generate.command("code")
@click.option(
    "--n",
    "count",
    type=click.IntRange(1, 100000),
    default=30,
    show_default=True,
    help="How many tasks.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same tasks.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Directory to write task directories into.",
)
@setting_option(WORKERS, type=click.IntRange(1, 256))
@setting_option(SANDBOX, type=click.Choice(BACKENDS))
def generate_code(count: int, seed: int, out: Path, workers: int, sandbox: str) -> None:
    """Generate Python function tasks from the template bank, each self-checked in the sandbox.

    \b
    Example:
      assay generate code --n 50 --seed 1 --out tasks/
    """
    with _errors(), _sandbox(sandbox, workers) as box, _progress("generating", count) as advance:
        tasks = generate_code_tasks(count, seed, box, workers=workers, on_task=lambda _t: advance())
        for task in tasks:
            save_task(task, out)
    out_console_line(f"wrote {len(tasks)} tasks to {out}")


@cli.command()
@click.argument("task_dir", type=click.Path(path_type=Path))
@click.option(
    "--solution",
    type=click.Path(path_type=Path),
    required=True,
    help="A solution directory (like solutions/reference/) or, for one-file families, the file.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
@setting_option(DB, type=click.Path(dir_okay=False, path_type=Path))
@setting_option(SANDBOX, type=click.Choice(BACKENDS))
def verify(task_dir: Path, solution: Path, as_json: bool, db: Path, sandbox: str) -> None:
    """Verify one attempt at one task and keep the verdict. Exit 0 pass, 1 fail, 2 bad input,
    3 infrastructure error.

    \b
    Example:
      assay verify tasks/code-parse-duration-1a2b3c4d --solution my_solution.py
    """
    with _errors():
        task = load_task(task_dir)
        family = family_of(task, task_dir)
        files = family.load_solution(solution)
        with _sandbox(sandbox, 1) as box:
            verdict = family.verify(task, files, box)
        with Store(db) as store:
            store.add_verdict(verdict, solution=str(solution))
    _print_verdict(verdict, as_json)
    if verdict.status is Status.ERROR:
        sys.exit(EXIT_INFRA)
    sys.exit(0 if verdict.passed else EXIT_FAIL)


@cli.command()
@click.argument("directory", type=click.Path(path_type=Path))
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the full report as JSON to this file ('-' for stdout).",
)
@setting_option(DB, type=click.Path(dir_okay=False, path_type=Path))
@setting_option(WORKERS, type=click.IntRange(1, 256))
@setting_option(SANDBOX, type=click.Choice(BACKENDS))
def audit(directory: Path, json_path: Path | None, db: Path, workers: int, sandbox: str) -> None:
    """Audit a task or a directory of tasks: lint, references pass, known-bad solutions fail,
    an empty submission fails. Exit 1 when any task is rejected.

    \b
    Example:
      assay audit tasks/ --json audit.json
    """
    with _errors():
        taskset = TaskSet.load(directory)
        verdicts: list[tuple[str, Verdict]] = []
        total = len(taskset) + len(taskset.failures)
        with _sandbox(sandbox, workers) as box, _progress("auditing", total) as advance:
            report = run_audit(
                taskset,
                box,
                workers=workers,
                on_task=lambda _t: advance(),
                on_verdict=lambda _task, v: verdicts.append((v.solution, v.verdict)),
            )
        with Store(db) as store:
            store.add_audit(report, verdicts)
    text = report.model_dump_json(indent=2)
    if json_path is not None and str(json_path) == "-":
        click.echo(text)
    else:
        if json_path is not None:
            json_path.write_text(text, encoding="utf-8")
        out.print(render_table(report))
        out_console_line(summary_line(report))
        if json_path is not None:
            out_console_line(f"report: {json_path}")
    sys.exit(0 if report.all_accepted else EXIT_FAIL)


@cli.group()
def sandbox() -> None:
    """Run commands in the sandbox.

    \b
    Example:
      assay sandbox run --timeout 5 -- python3 -c 'print(1)'
    """


@sandbox.command("run")
@click.option(
    "--timeout",
    type=click.FloatRange(0.01, 3600),
    default=10.0,
    show_default=True,
    help="Wall-time limit in seconds.",
)
@click.option(
    "--memory",
    type=click.IntRange(16, 65536),
    default=512,
    show_default=True,
    help="Memory limit in MiB.",
)
@click.option(
    "--workspace",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Directory whose files are copied into the sandbox's working directory.",
)
@setting_option(SANDBOX, type=click.Choice(BACKENDS))
@click.argument("command", nargs=-1, required=True)
def sandbox_run(
    timeout: float, memory: int, workspace: Path | None, sandbox: str, command: tuple[str, ...]
) -> None:
    """Run COMMAND in a fresh sandbox and print the result as JSON.

    \b
    Example:
      assay sandbox run --timeout 2 --memory 256 -- python3 -c 'print("hi")'
      assay sandbox run --sandbox bubblewrap -- sh -c 'id; ls /'
    """
    from assay.tasks.taskdir import read_files  # noqa: PLC0415 - only this command reads a dir

    with _errors():
        files = read_files(workspace) if workspace is not None else {}
        limits = Limits(timeout_s=timeout, cpu_s=timeout, memory_mb=memory)
        with _sandbox(sandbox, 1) as box:
            result = box.run(list(command), files=files, limits=limits)
    click.echo(result.model_dump_json(indent=2))


@cli.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("demo-out"),
    show_default=True,
    help="Where to write the tasks and the report.",
)
@click.option(
    "--n",
    "count",
    type=click.IntRange(1, 1000),
    default=24,
    show_default=True,
    help="How many tasks to generate.",
)
@setting_option(DB, type=click.Path(dir_okay=False, path_type=Path))
@setting_option(WORKERS, type=click.IntRange(1, 256))
@setting_option(SANDBOX, type=click.Choice(BACKENDS))
def demo(out: Path, count: int, db: Path, workers: int, sandbox: str) -> None:
    """Generate a small suite of code tasks, audit it, store the results and print a summary.

    \b
    Example:
      assay demo --out demo-out
    """
    from assay.demo import run_demo  # noqa: PLC0415 - keeps start-up light for other commands

    progress = _progress("generating and auditing", 2 * count)
    with _errors(), Store(db) as store, _sandbox(sandbox, workers) as box, progress as advance:
        result = run_demo(
            out,
            store,
            box,
            n=count,
            workers=workers,
            on_generated=lambda _t: advance(),
            on_audited=lambda _t: advance(),
        )
    out.mkdir(parents=True, exist_ok=True)
    report = result.report
    out_console_line(summary_line(report))
    out_console_line(f"tasks:  {result.tasks_dir}")
    out_console_line(f"report: {result.report_path}")
    out_console_line(f"store:  {db} (audit run {report.run_id})")
    sys.exit(0 if report.all_accepted else EXIT_FAIL)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the runs as JSON.")
@setting_option(DB, type=click.Path(dir_okay=False, path_type=Path))
def runs(as_json: bool, db: Path) -> None:
    """List the audit runs kept in the results database, newest first.

    \b
    Example:
      assay runs --db assay.db
    """
    with _errors(), _existing_store(db) as store:
        rows = store.audit_runs()
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    table = Table(title=f"audit runs in {db}", title_justify="left")
    for column in (
        "run",
        "started (UTC)",
        "root",
        "tasks",
        "accepted",
        "rejected",
        "known-bad caught",
    ):
        table.add_column(column)
    for row in rows:
        table.add_row(
            str(row["run_id"]),
            str(row["started_at"])[:19],
            str(row["root"]),
            str(row["tasks"]),
            str(row["accepted"]),
            str(row["rejected"]),
            f"{row['known_bad_caught']}/{row['known_bad']}",
        )
    out.print(table)


@cli.command()
@click.option("--task", "task_id", help="Only verdicts on this task id.")
@click.option("--run", "run_id", help="Only verdicts of this audit run.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON.")
@setting_option(DB, type=click.Path(dir_okay=False, path_type=Path))
def verdicts(task_id: str | None, run_id: str | None, as_json: bool, db: Path) -> None:
    """List kept verdicts with the versions that produced them, oldest first.

    \b
    Example:
      assay verdicts --task code-parse-duration-1a2b3c4d
    """
    with _errors(), _existing_store(db) as store:
        kept = store.verdicts(task_id=task_id, run_id=run_id)
    if as_json:
        click.echo(json.dumps([k.model_dump(mode="json") for k in kept], indent=2))
        return
    table = Table(title=f"verdicts in {db}", title_justify="left")
    for column in ("id", "task", "task version", "solution", "status", "score", "summary"):
        table.add_column(column)
    for item in kept:
        v = item.verdict
        table.add_row(
            str(item.id),
            v.task_id,
            v.versions.task,
            item.solution,
            v.status.value,
            f"{v.score:.2f}",
            v.summary,
        )
    out.print(table)


@contextmanager
def _existing_store(db: Path) -> Iterator[Store]:
    """The results database, which a read command must not create."""
    if not db.is_file():
        raise InputError(
            "no results database here", path=db, fix="run an audit first, or point --db at one"
        )
    with Store(db) as store:
        yield store


def out_console_line(text: str) -> None:
    """Print one plain line to stdout."""
    out.print(text, highlight=False, markup=False)


def _print_verdict(verdict: Verdict, as_json: bool) -> None:
    if as_json:
        click.echo(verdict.model_dump_json(indent=2))
        return
    colour = {"pass": "green", "fail": "red", "error": "yellow"}[verdict.status.value]
    out.print(
        f"[{colour}]{verdict.status.value.upper()}[/{colour}] {verdict.task_id}: "
        f"{verdict.summary} (score {verdict.score:.2f})",
        highlight=False,
    )
    for criterion in verdict.criteria:
        mark = "[green]✓[/green]" if criterion.passed else "[red]✗[/red]"
        out.print(f"  {mark} {criterion.name}: ", end="", highlight=False)
        out.print(criterion.evidence, markup=False, highlight=False)


@contextmanager
def _errors() -> Iterator[None]:
    """Turn assay's errors into one line on stderr and the documented exit code."""
    try:
        yield
    except InputError as exc:
        err.print(f"error: {exc}", markup=False, highlight=False)
        sys.exit(EXIT_INPUT)
    except AssayError as exc:
        err.print(f"error: {exc}", markup=False, highlight=False)
        sys.exit(EXIT_INFRA)


@contextmanager
def _sandbox(backend: str, workers: int) -> Iterator[Sandbox]:
    """Open the backend, say once what protection this host lacks, close it at the end."""
    box = open_sandbox(backend, workers=workers, trusted_code=harness_code())
    try:
        for note in box.notes:
            err.print(f"warning: {note}", markup=False, highlight=False)
        yield box
    finally:
        box.close()


@contextmanager
def _progress(label: str, total: int) -> Iterator[Callable[[], None]]:
    with Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as progress:
        bar = progress.add_task(label, total=total)
        yield lambda: progress.advance(bar)


def main() -> None:
    """Entry point of the ``assay`` script."""
    cli()


__all__ = ["cli", "main"]
