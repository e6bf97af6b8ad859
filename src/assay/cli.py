"""The ``assay`` command: thin commands over the library. Exit codes: 0 ok or pass, 1 fail or
rejected, 2 bad input, 3 infrastructure or internal error, 130 interrupted.

Whatever escapes a command ends as one line on stderr and one of these codes, never a traceback.
The library is imported inside the commands that use it, so that ``assay --help`` starts fast.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from assay.errors import AssayError, InputError
from assay.settings import DB, SANDBOX, WORKERS, Setting

if TYPE_CHECKING:
    from assay.audit import AuditReport
    from assay.sandbox import Sandbox
    from assay.store import Store
    from assay.verdicts import Verdict

EXIT_FAIL, EXIT_INPUT, EXIT_INFRA, EXIT_INTERRUPTED = 1, 2, 3, 130
BACKENDS = ("pool", "bubblewrap")
"""``assay.sandbox.BACKENDS``, spelled out so that parsing the command line imports no sandbox."""
F = TypeVar("F", bound=Callable[..., Any])


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


class _Commands(click.Group):
    """The command group; it turns whatever a command raises into one line and an exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; click's own exceptions (usage, exit, abort) and a closed pipe
        (``assay runs --json | head``) pass through to click, which handles them.
        """
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except BrokenPipeError:  # click quietens the pipe and exits 1
            raise
        except KeyboardInterrupt:
            _exit("interrupted; nothing more was written", EXIT_INTERRUPTED)
        except InputError as exc:
            _exit(str(exc), EXIT_INPUT)
        except AssayError as exc:
            _exit(str(exc), EXIT_INFRA)
        except Exception as exc:  # noqa: BLE001 - the last line of defence against a traceback
            _exit(
                f"internal error: {type(exc).__name__}: {exc} (a bug in assay or in a plugin; "
                "please report it with the command that caused it)",
                EXIT_INFRA,
            )


def _exit(message: str, code: int) -> NoReturn:
    """One line on stderr, then exit with ``code``."""
    line = " ".join(message.split())
    if len(line) > 2000:
        line = line[:2000] + " [...]"
    click.echo(f"error: {line}", err=True)
    sys.exit(code)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
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
    from assay._output import require_directory  # noqa: PLC0415
    from assay.families.code.generator import generate_code_tasks  # noqa: PLC0415
    from assay.tasks.taskdir import save_tasks  # noqa: PLC0415

    require_directory(out)
    with _sandbox(sandbox, workers) as box, _progress("generating", count) as advance:
        tasks = generate_code_tasks(count, seed, box, workers=workers, on_task=lambda _t: advance())
    saved = save_tasks(tasks, out)
    kept = f" ({saved.unchanged} already there, unchanged)" if saved.unchanged else ""
    click.echo(f"wrote {saved.written} tasks to {out}{kept}")


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
      assay verify tasks/code-parse-duration-8bbedbf0 --solution attempt.py
    """
    from assay.families import family_of  # noqa: PLC0415
    from assay.tasks import load_task  # noqa: PLC0415
    from assay.verdicts import Status  # noqa: PLC0415

    task = load_task(task_dir)
    family = family_of(task, task_dir)
    files = family.load_solution(solution)
    with _sandbox(sandbox, 1) as box:
        try:
            verdict = family.verify(task, files, box)
        except InputError as exc:
            raise exc.under(task.id, task_dir) from None
    with _store(db) as store:
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
    an empty submission fails. Exit 1 when any task is rejected, 3 when any could not be
    audited (an infrastructure error; the report is still written).

    \b
    Example:
      assay audit tasks/ --json audit.json
    """
    from assay._output import require_writable_file, write_atomically  # noqa: PLC0415
    from assay._render import audit_table, console  # noqa: PLC0415
    from assay.audit import run_audit_into, summary_line  # noqa: PLC0415
    from assay.tasks import TaskSet  # noqa: PLC0415

    to_stdout = json_path is not None and str(json_path) == "-"
    report_file = None if to_stdout else json_path
    taskset = TaskSet.load(directory)
    if report_file is not None:
        require_writable_file(report_file)
    total = len(taskset) + len(taskset.failures)
    with (
        _sandbox(sandbox, workers) as box,
        _progress("auditing", total) as advance,
        _store(db) as store,
    ):
        report = run_audit_into(store, taskset, box, workers=workers, on_task=lambda _t: advance())
    text = report.model_dump_json(indent=2)
    if to_stdout:
        click.echo(text)
    else:
        console().print(audit_table(report))
        click.echo(summary_line(report))
    if report_file is not None:
        try:
            write_atomically(report_file, text)
        except OSError as exc:
            raise AssayError(
                f"{report_file}: cannot write the report: {exc.strerror or exc} (the audit is "
                f"kept as run {report.run_id} in {db}; `assay runs` lists it)"
            ) from None
        click.echo(f"report: {report_file}")
    sys.exit(_audit_status(report))


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
    from assay.tasks import Limits  # noqa: PLC0415
    from assay.tasks.taskdir import read_files  # noqa: PLC0415

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
    from assay.audit import summary_line  # noqa: PLC0415
    from assay.demo import check_demo_out, run_demo  # noqa: PLC0415

    check_demo_out(out)
    progress = _progress("generating and auditing", 2 * count)
    with _store(db) as store, _sandbox(sandbox, workers) as box, progress as advance:
        result = run_demo(
            out,
            store,
            box,
            n=count,
            workers=workers,
            on_generated=lambda _t: advance(),
            on_audited=lambda _t: advance(),
        )
    report = result.report
    click.echo(summary_line(report))
    click.echo(f"tasks:  {result.tasks_dir}")
    click.echo(f"report: {result.report_path}")
    click.echo(f"store:  {db} (audit run {report.run_id})")
    sys.exit(_audit_status(report))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the runs as JSON.")
@setting_option(DB, type=click.Path(dir_okay=False, path_type=Path))
def runs(as_json: bool, db: Path) -> None:
    """List the audit runs kept in the results database, newest first.

    \b
    Example:
      assay runs --db assay.db
    """
    with _existing_store(db) as store:
        kept = store.audit_runs()
    if as_json:
        click.echo(json.dumps([run.model_dump(mode="json") for run in kept], indent=2))
        return
    from assay._render import console, runs_table  # noqa: PLC0415

    console().print(runs_table(kept, db))


@cli.command()
@click.option("--task", "task_id", help="Only verdicts on this task id.")
@click.option("--run", "run_id", help="Only verdicts of this audit run.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON.")
@setting_option(DB, type=click.Path(dir_okay=False, path_type=Path))
def verdicts(task_id: str | None, run_id: str | None, as_json: bool, db: Path) -> None:
    """List kept verdicts with the versions that produced them, oldest first.

    \b
    Example:
      assay verdicts --task code-parse-duration-8bbedbf0
    """
    with _existing_store(db) as store:
        kept = store.verdicts(task_id=task_id, run_id=run_id)
    if as_json:
        click.echo(json.dumps([k.model_dump(mode="json") for k in kept], indent=2))
        return
    from assay._render import console, verdicts_table  # noqa: PLC0415

    console().print(verdicts_table(kept, db))


@contextmanager
def _store(db: Path) -> Iterator[Store]:
    """The results database, created if it does not exist yet."""
    from assay.store import Store  # noqa: PLC0415

    with Store(db) as store:
        yield store


@contextmanager
def _existing_store(db: Path) -> Iterator[Store]:
    """The results database, which a read command must not create."""
    if not db.is_file():
        raise InputError(
            "no results database here", path=db, fix="run an audit first, or point --db at one"
        )
    with _store(db) as store:
        yield store


def _audit_status(report: AuditReport) -> int:
    """3 when any task could not be audited, else 1 when any was rejected, else 0."""
    from assay.findings import Decision  # noqa: PLC0415

    if report.count(Decision.ERROR):
        return EXIT_INFRA
    return 0 if report.all_accepted else EXIT_FAIL


def _print_verdict(verdict: Verdict, as_json: bool) -> None:
    if as_json:
        click.echo(verdict.model_dump_json(indent=2))
        return
    from assay._render import console, verdict_text  # noqa: PLC0415

    console().print(verdict_text(verdict))


@contextmanager
def _sandbox(backend: str, workers: int) -> Iterator[Sandbox]:
    """Open the backend, say once what protection this host lacks, close it at the end."""
    from assay.families import harness_code  # noqa: PLC0415
    from assay.sandbox import open_sandbox  # noqa: PLC0415

    box = open_sandbox(backend, workers=workers, trusted_code=harness_code())
    try:
        for note in box.notes:
            click.echo(f"warning: {note}", err=True)
        yield box
    finally:
        box.close()


@contextmanager
def _progress(label: str, total: int) -> Iterator[Callable[[], None]]:
    """A progress bar on stderr while the block runs; the block gets a function to advance it."""
    from rich.progress import (  # noqa: PLC0415
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from assay._render import console  # noqa: PLC0415

    stderr = console(stderr=True)
    with Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr,
        transient=True,
        disable=not stderr.is_terminal,
    ) as progress:
        bar = progress.add_task(label, total=total)
        yield lambda: progress.advance(bar)


def main() -> None:
    """Entry point of the ``assay`` script."""
    cli()


__all__ = ["cli", "main"]
