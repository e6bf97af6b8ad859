"""The ``assay`` command: thin commands over the library. Exit codes: 0 ok or pass (or a run
finished), 1 fail or rejected, 2 bad input, 3 infrastructure or internal error, 130 interrupted.

Whatever escapes a command ends as one line on stderr and one of these codes, never a traceback.
The library is imported inside the commands that use it, so that ``assay --help`` starts fast.
"""

from __future__ import annotations

import json
import math
import os
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn, TypeVar, cast

import click

from assay.errors import AssayError, InputError
from assay.settings import (
    DB,
    HOST,
    IDLE_TIMEOUT,
    MAX_REQUESTS,
    MAX_SANDBOXES,
    MAX_SESSIONS,
    PORT,
    SANDBOX,
    TOKEN,
    WORKERS,
    Setting,
)

if TYPE_CHECKING:
    from types import FrameType

    from pydantic import BaseModel

    from assay.audit import AuditReport, TaskAudit
    from assay.policies import Policy
    from assay.runs import RunnerOptions, RunSpec
    from assay.sandbox import Sandbox
    from assay.store import JobCounts, Store
    from assay.tasks import Task, TaskSet
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


if TYPE_CHECKING:
    _PathType = click.ParamType[Path]  # generic in the stubs of the click we lock
    _TextType = click.ParamType[str]
else:
    _PathType = _TextType = click.ParamType  # and not subscriptable in click 8.1


class _StoreLocation(_PathType):
    """``--db``: a SQLite file, given as a path or as ``sqlite:///PATH`` (as ``open_store``
    reads it; a path would fold the URL's slashes into a file name)."""

    name = "path"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        """The store's file; :class:`InputError` for another backend's URL, a directory, or a
        file that is there and is not a SQLite database: found now, before a command works for
        minutes only to fail to keep what it did."""
        from assay.store import store_path  # noqa: PLC0415

        path = value if isinstance(value, Path) else store_path(value)
        try:
            is_dir = path.is_dir()
        except OSError as exc:  # a name the system refuses (too long, say)
            raise InputError(
                f"cannot be a file here ({exc.strerror})",
                path=str(path)[:200],
                fix="point --db at a SQLite file with a shorter name",
            ) from None
        if is_dir:
            raise InputError("is a directory", path=path, fix="point --db at a SQLite file")
        if not _holds_sqlite_or_nothing(path):
            raise InputError(
                "is not a SQLite database",
                path=path,
                fix="point --db at a SQLite file, or at a new path to start one",
            )
        return path


_SQLITE_HEADER = b"SQLite format 3\x00"


def _holds_sqlite_or_nothing(path: Path) -> bool:
    """Whether ``path`` is missing, empty (SQLite starts a database there) or a SQLite file; a
    FIFO or device is neither, and is not opened."""
    try:
        status = path.stat()
    except OSError:
        return True  # missing or unreachable: opening the store says why, if it matters
    if not stat.S_ISREG(status.st_mode):
        return False
    if status.st_size == 0:
        return True
    try:
        with path.open("rb") as opened:
            return opened.read(len(_SQLITE_HEADER)) == _SQLITE_HEADER
    except OSError:
        return True  # unreadable: a read-only command or the store names it


_STORE = _StoreLocation()


class _NumberRange(click.FloatRange):
    """A float range that refuses NaN, which compares false with both bounds and so would pass
    any range, only to fail deep in the command."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The number, or a usage error for NaN."""
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value!r} is not a number.", param, ctx)
        return number


class _InputFile(click.Path):
    """A file the command reads whole: a FIFO, socket or device is refused before it is opened
    (reading one would wait for a writer, or never end)."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The path, or a usage error naming what else is there."""
        path = cast("Path", super().convert(value, param, ctx))
        try:
            mode = path.stat().st_mode
        except OSError:
            return path  # missing or unreachable: reading it says why
        if not stat.S_ISREG(mode):
            self.fail(f"{str(path)!r} is a FIFO, socket or device, not a regular file.", param, ctx)
        return path


class _Token(_TextType):
    """``--token``: text an ``Authorization`` header can carry as it is. The server compares
    the header's value stripped of surrounding whitespace, so a token that starts or ends with
    whitespace (a line read with its newline, an env file's trailing space) could never be sent,
    and every request would be refused; a control character cannot be sent at all."""

    name = "token"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The token, or a usage error that does not repeat it (it is a secret)."""
        text = str(value)
        if text != text.strip():
            self.fail("starts or ends with whitespace, which no request can send.", param, ctx)
        if any(ord(character) < 32 or ord(character) == 127 for character in text):
            self.fail("holds a control character, which no request can send.", param, ctx)
        return text


class _Commands(click.Group):
    """The command group; it turns whatever a command raises into one line and an exit code."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        """The context of ``assay``'s own options; a usage error in them is one line."""
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as exc:
            _usage_error(exc)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a usage error is one line, as any other error is; click's other
        exceptions (exit, abort) and a closed pipe (``assay runs --json | head``) pass through
        to click, which handles them.
        """
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            _usage_error(exc)
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


def _usage_error(exc: click.UsageError) -> NoReturn:
    """A wrong option, argument or command as one line naming it and where the help is; the
    bare ``assay`` or ``assay generate`` still shows its help."""
    if type(exc).__name__ == "NoArgsIsHelpError":  # click 8.2 on; a UsageError only by kind
        raise exc
    where = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx is not None else ""
    _exit(f"{exc.format_message()}{where}", exc.exit_code)


def _exit(message: str, code: int) -> NoReturn:
    """One line on stderr, then exit with ``code``: control characters from outside (a task
    directory's name) written as escapes, never sent to the terminal."""
    from assay._text import escaped  # noqa: PLC0415

    line = escaped(" ".join(message.split()))
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


def generate_options(command: F) -> F:
    """The options every `assay generate FAMILY` takes: how many, the seed, where to, and the
    workers and sandbox that self-check each task."""
    options = [
        click.option(
            "--n",
            "--count",
            "count",
            type=click.IntRange(1, 100000),
            default=30,
            show_default=True,
            help="How many tasks.",
        ),
        click.option(
            "--seed", type=int, default=0, show_default=True, help="Same seed, same tasks."
        ),
        click.option(
            "--out",
            type=click.Path(file_okay=False, path_type=Path),
            required=True,
            help="Directory to write task directories into.",
        ),
        setting_option(WORKERS, type=click.IntRange(1, 256)),
        setting_option(SANDBOX, type=click.Choice(BACKENDS)),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _generate_into(
    out: Path,
    count: int,
    workers: int,
    sandbox: str,
    make: Callable[[Sandbox, Callable[[Task], None]], list[Task]],
) -> None:
    """Run ``make(sandbox, on_task)`` with a progress bar and write its tasks into ``out``."""
    from assay._output import require_directory  # noqa: PLC0415
    from assay.tasks.taskdir import save_tasks  # noqa: PLC0415

    require_directory(out)
    with _sandbox(sandbox, workers) as box, _progress("generating", count) as advance:
        tasks = make(box, lambda _t: advance())
    saved = save_tasks(tasks, out)
    kept = f" ({saved.unchanged} already there, unchanged)" if saved.unchanged else ""
    click.echo(f"wrote {saved.written} tasks to {out}{kept}")


def _generate_family(
    family: str, *, count: int, seed: int, out: Path, workers: int, sandbox: str
) -> None:
    """`assay generate FAMILY` for a family whose generator takes no options of its own."""
    from assay.families.generators import generator_of  # noqa: PLC0415

    generate = generator_of(family)
    _generate_into(
        out,
        count,
        workers,
        sandbox,
        lambda box, on_task: generate(count, seed, box, workers=workers, on_task=on_task),
    )


@generate.command("code")
@generate_options
def generate_code(count: int, seed: int, out: Path, workers: int, sandbox: str) -> None:
    """Generate Python function tasks from the template bank, each self-checked in the sandbox.

    \b
    Example:
      assay generate code --n 50 --seed 1 --out tasks/
    """
    _generate_family("code", count=count, seed=seed, out=out, workers=workers, sandbox=sandbox)


@generate.command("sql")
@generate_options
@click.option(
    "--engine",
    type=click.Choice(("sqlite", "duckdb")),
    default="sqlite",
    show_default=True,
    help="The engine the tasks' queries run on.",
)
def generate_sql(
    *, count: int, seed: int, engine: str, out: Path, workers: int, sandbox: str
) -> None:
    """Generate SQL question tasks over four schemas (retail orders, hospital shifts, insurance
    claims, a general ledger), each with its neighbour databases and self-checked in the sandbox.

    \b
    Example:
      assay generate sql --n 100 --engine duckdb --seed 3 --out tasks/
    """
    from assay.families.sql.generator import generate_sql_tasks  # noqa: PLC0415

    _generate_into(
        out,
        count,
        workers,
        sandbox,
        lambda box, on_task: generate_sql_tasks(
            count,
            seed,
            box,
            engine="duckdb" if engine == "duckdb" else "sqlite",
            workers=workers,
            on_task=on_task,
        ),
    )


@generate.command("config")
@generate_options
def generate_config(count: int, seed: int, out: Path, workers: int, sandbox: str) -> None:
    """Generate Kubernetes configuration tasks (NetworkPolicy, RBAC, limits, security
    contexts, Services), each self-checked in the sandbox.

    \b
    Example:
      assay generate config --n 100 --seed 1 --out tasks/
    """
    _generate_family("config", count=count, seed=seed, out=out, workers=workers, sandbox=sandbox)


@generate.command("workflow")
@generate_options
def generate_workflow(count: int, seed: int, out: Path, workers: int, sandbox: str) -> None:
    """Generate cloud-API workflow tasks (object storage, queues, tables, logs), each
    self-checked against a real emulator: the reference passes, every known-bad fails.

    \b
    Example:
      assay generate workflow --n 100 --seed 1 --out tasks/
    """
    _generate_family("workflow", count=count, seed=seed, out=out, workers=workers, sandbox=sandbox)


@generate.command("repo")
@generate_options
def generate_repo(count: int, seed: int, out: Path, workers: int, sandbox: str) -> None:
    """Generate repository tasks: bug reports and tickets against small, real-looking Python
    projects (16 of them: an invoice importer, a shift-schedule exporter, a VAT return, payroll
    overtime, billing proration, claims triage, pick lists, meter readings and more), each with
    fail-to-pass and pass-to-pass cases and self-checked in the sandbox.

    \b
    Example:
      assay generate repo --count 50 --seed 1 --out tasks/
    """
    _generate_family("repo", count=count, seed=seed, out=out, workers=workers, sandbox=sandbox)


@cli.group("import")
def import_group() -> None:
    """Import tasks from public datasets.

    \b
    Example:
      assay import spider spider/ --out tasks/
    """


def import_options(command: F) -> F:
    """The options both dataset importers take."""
    for option in reversed(
        (
            click.argument("directory", type=click.Path(file_okay=False, path_type=Path)),
            click.option(
                "--out",
                type=click.Path(file_okay=False, path_type=Path),
                required=True,
                help="Directory to write task directories into.",
            ),
            click.option(
                "--limit",
                type=click.IntRange(1),
                help="Import only the first this many entries.",
            ),
            click.option(
                "--seed", type=int, default=0, show_default=True, help="Seed of the neighbours."
            ),
            setting_option(WORKERS, type=click.IntRange(1, 256)),
            setting_option(SANDBOX, type=click.Choice(BACKENDS)),
        )
    ):
        command = option(command)
    return command


@import_group.command("spider")
@import_options
def import_spider(**options: Any) -> None:
    """Import a Spider-style dataset: dev.json (or train_spider.json) entries with db_id,
    question and query; databases at database/<db_id>/<db_id>.sqlite. Entries whose gold query
    fails on its own database are listed, not imported; then the exit code is 1.

    \b
    Example:
      assay import spider spider/ --out tasks/ --limit 200
    """
    _import_dataset("spider", **options)


@import_group.command("bird")
@import_options
def import_bird(**options: Any) -> None:
    """Import a BIRD-style dataset: dev.json (or train.json) entries with db_id, question,
    evidence and SQL; databases at dev_databases/<db_id>/<db_id>.sqlite. Entries whose gold
    query fails on its own database are listed, not imported; then the exit code is 1.

    \b
    Example:
      assay import bird bird/dev/ --out tasks/ --limit 200
    """
    _import_dataset("bird", **options)


def _import_dataset(
    name: str,
    *,
    directory: Path,
    out: Path,
    limit: int | None,
    seed: int,
    workers: int,
    sandbox: str,
) -> None:
    from assay._output import require_directory  # noqa: PLC0415
    from assay.families.sql.importers import BIRD, SPIDER, import_dataset  # noqa: PLC0415
    from assay.tasks.taskdir import save_tasks  # noqa: PLC0415

    require_directory(out)
    layout = SPIDER if name == "spider" else BIRD
    with _sandbox(sandbox, workers) as box, _progress("importing", limit or 0) as advance:
        imported = import_dataset(
            layout, directory, box, limit=limit, seed=seed, workers=workers, on_entry=advance
        )
    saved = save_tasks(imported.tasks, out)
    kept = f" ({saved.unchanged} already there, unchanged)" if saved.unchanged else ""
    click.echo(f"wrote {saved.written} tasks to {out}{kept}")
    for skipped in imported.skipped:
        click.echo(f"not imported: {skipped.where} ({skipped.db_id}): {skipped.reason}")
    if imported.skipped:
        click.echo(f"{len(imported.skipped)} entries not imported")
        sys.exit(EXIT_FAIL)


def benchmark_options(command: F) -> F:
    """The options of the importers of Python benchmarks (JSON lines)."""
    for option in reversed(
        (
            click.argument("file", type=_InputFile()),
            click.option(
                "--out",
                type=click.Path(file_okay=False, path_type=Path),
                required=True,
                help="Directory to write task directories into.",
            ),
            click.option(
                "--limit", type=click.IntRange(1), help="Import only the first this many problems."
            ),
            setting_option(WORKERS, type=click.IntRange(1, 256)),
            setting_option(SANDBOX, type=click.Choice(BACKENDS)),
        )
    ):
        command = option(command)
    return command


@import_group.command("humaneval")
@benchmark_options
def import_humaneval(**options: Any) -> None:
    """Import HumanEval-style JSON lines (.jsonl or .jsonl.gz: task_id, prompt,
    canonical_solution, test, entry_point; HumanEval, EvalPlus and derivatives). Each check is
    run once in the sandbox against the recorded reference: its calls become hidden cases, or
    the check is kept as a legacy in-sandbox verifier, which the audit quarantines. Problems
    that cannot be imported are listed; then the exit code is 1.

    \b
    Example:
      assay import humaneval HumanEval.jsonl.gz --out tasks/
    """
    _import_benchmark("humaneval", **options)


@import_group.command("mbpp")
@benchmark_options
def import_mbpp(**options: Any) -> None:
    """Import MBPP-style JSON lines (task_id, text, code, test_list, and test_setup_code,
    challenge_test_list if present; or sanitized MBPP's prompt and test_imports, also as one JSON
    array), as humaneval does: asserts become hidden cases or a legacy verifier. Problems that
    cannot be imported are listed; then the exit code is 1.

    \b
    Example:
      assay import mbpp mbpp.jsonl --out tasks/ --limit 100
    """
    _import_benchmark("mbpp", **options)


@import_group.command("terminal-bench")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Directory to write task directories into.",
)
def import_terminal_bench(directory: Path, out: Path) -> None:
    """Import Terminal-Bench task directories (task.yaml, Dockerfile or docker-compose.yaml,
    run-tests.sh, tests/, solution.sh) or Harbor ones (task.toml, instruction.md,
    environment/, tests/test.sh, solution/solve.sh): DIRECTORY is one task or their parent.
    The tasks keep their metadata; lint and the audit's static checks run on them, while
    verifying them needs a container backend, which assay does not have.

    \b
    Example:
      assay import terminal-bench terminal-bench/tasks/ --out tasks/
      assay audit tasks/ --checks lint,duplicates,contamination
    """
    from assay._output import require_directory  # noqa: PLC0415
    from assay.families.terminal.importers import import_task_dirs  # noqa: PLC0415
    from assay.tasks.taskdir import save_tasks  # noqa: PLC0415

    require_directory(out)
    tasks = import_task_dirs(directory)
    saved = save_tasks(tasks, out)
    for task in tasks:
        click.echo(f"imported: {task.id} ({', '.join(task.spec.tags)})")
    kept = f" ({saved.unchanged} already there, unchanged)" if saved.unchanged else ""
    click.echo(f"wrote {saved.written} tasks to {out}{kept}")


def _import_benchmark(
    name: str, *, file: Path, out: Path, limit: int | None, workers: int, sandbox: str
) -> None:
    from assay._output import require_directory  # noqa: PLC0415
    from assay.families.code.importers import (  # noqa: PLC0415
        import_problems,
        read_humaneval,
        read_mbpp,
        report_lines,
    )
    from assay.tasks.taskdir import save_tasks  # noqa: PLC0415

    require_directory(out)
    problems = (read_humaneval if name == "humaneval" else read_mbpp)(file)[:limit]
    with _sandbox(sandbox, workers) as box, _progress("importing", len(problems)) as advance:
        imported = import_problems(problems, box, workers=workers, on_problem=advance)
    saved = save_tasks(imported.tasks, out)
    for line in report_lines(imported):
        click.echo(line)
    kept = f" ({saved.unchanged} already there, unchanged)" if saved.unchanged else ""
    click.echo(f"wrote {saved.written} tasks to {out}{kept}")
    if imported.failed:
        sys.exit(EXIT_FAIL)


@cli.command()
@click.argument("task_dir", type=click.Path(path_type=Path))
@click.option(
    "--solution",
    type=click.Path(path_type=Path),
    required=True,
    help="A solution directory (like solutions/reference/) or, for one-file families, the file.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
@setting_option(DB, type=_STORE)
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
@click.option(
    "--profile",
    "profile_run",
    help="A rollout run (`assay profile`) whose pass rates the audit reads: a task no sample "
    "solved is quarantined for review, one every sample solved is noted as too easy.",
)
@click.option(
    "--checks",
    "check_names",
    help="Only these checks, comma-separated ids (lint,reference,known-bad,...); all by default. "
    "Loading the tasks always runs; drift and profile run whenever --seed-tasks or --profile "
    "is given, and diversity is in every report.",
)
@click.option(
    "--since",
    "since_run",
    help="An earlier audit run (`assay runs` lists them): print what changed since, task by "
    "task: decisions, versions, findings that appeared or went away.",
)
@click.option(
    "--corpus",
    type=click.Path(path_type=Path),
    help="A text file or a directory of text files (a benchmark's dump, a crawl sample): tasks "
    "mostly found in it are quarantined by the contamination check.",
)
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the report as one self-contained HTML page to this file (opens offline).",
)
@click.option(
    "--seed-tasks",
    "seed_dir",
    type=click.Path(path_type=Path),
    help="The tasks a generated set was expanded from: the report's diversity says how far "
    "the set drifted from them (closeness to the nearest seed, shares of labels).",
)
@setting_option(DB, type=_STORE)
@setting_option(WORKERS, type=click.IntRange(1, 256))
@setting_option(SANDBOX, type=click.Choice(BACKENDS))
def audit(
    directory: Path,
    *,
    json_path: Path | None,
    profile_run: str | None,
    check_names: str | None,
    corpus: Path | None,
    since_run: str | None,
    html_path: Path | None,
    seed_dir: Path | None,
    db: Path,
    workers: int,
    sandbox: str,
) -> None:
    """Audit a task or a directory of tasks: lint, references pass, known-bad solutions fail,
    an empty submission fails; with --profile, the pass rates of a stored run too. Exit 1 when
    any task is rejected, 3 when any could not be audited (an infrastructure error; the report
    is still written), else 0; quarantined tasks are listed, and kept out of exports until a
    person clears them (`assay clear`).

    \b
    Example:
      assay audit tasks/ --json audit.json
      assay audit tasks/ --profile qwen-k8
      assay audit tasks/ --checks lint,reference,known-bad
      assay audit tasks/ --checks duplicates,contamination --corpus humaneval.jsonl
      assay audit tasks/ --since 3f9c2a81d4e0
      assay audit generated/ --seed-tasks seeds/ --html audit.html
    """
    from assay._render import audit_table, console, plain  # noqa: PLC0415
    from assay.audit import run_audit_into, select_checks  # noqa: PLC0415
    from assay.audit.changes import change_lines, compare  # noqa: PLC0415
    from assay.audit.runner import FLAG_CHECKS, default_checks  # noqa: PLC0415
    from assay.runs import run_profile  # noqa: PLC0415
    from assay.tasks import TaskSet  # noqa: PLC0415

    checks = select_checks(
        check_names, corpus, seeds=seed_dir is not None, profile=profile_run is not None
    )
    to_stdout = json_path is not None and str(json_path) == "-"
    taskset = TaskSet.load(directory)
    _refuse_task_files(taskset, json_path, html_path)
    seeds = None if seed_dir is None else _seed_tasks(seed_dir)
    report_file = _report_files(json_path, html_path, db)
    total = len(taskset) + len(taskset.failures)
    with _store(db) as store:
        profiled = None if profile_run is None else run_profile(store, profile_run)
        before = None if since_run is None else _earlier_audit(store, since_run)
        with (
            _terminate_as_interrupt(),
            _sandbox(sandbox, workers) as box,
            _progress("auditing", total) as advance,
        ):
            report = run_audit_into(
                store,
                taskset,
                box,
                workers=workers,
                on_task=lambda _t: advance(),
                profile=profiled,
                checks=checks,
                seeds=seeds,
            )
    if to_stdout:
        click.echo(_terminal_json(report))
    else:
        console().print(audit_table(report))
    _print_audit_totals(report, stderr=to_stdout)
    if before is not None and since_run is not None:
        shown = console(stderr=to_stdout)
        known = [check.name for check in default_checks()] + list(FLAG_CHECKS)
        for line in change_lines(compare(since_run, before, report, known)):
            shown.print(plain(line))
    _write_reports(report, json_path=report_file, html_path=html_path, db=db, stderr=to_stdout)
    sys.exit(_audit_status(report))


@cli.command()
@click.argument("task_ids", nargs=-1, required=True)
@click.option("--by", required=True, help="Who looked at the tasks and clears them.")
@click.option("--reason", required=True, help="Why they may be used, in a few words.")
@click.option(
    "--run",
    "run_id",
    help="The audit run that quarantined them (default: each task's latest audit).",
)
@setting_option(DB, type=_STORE)
def clear(task_ids: tuple[str, ...], by: str, reason: str, run_id: str | None, db: Path) -> None:
    """Clear quarantined tasks after a person has looked at them: exports take them from now on,
    and a later audit accepts them while the findings that held them are the same (a new
    finding, or another version of the task, quarantines it again). A rejected task cannot be
    cleared. All the tasks are cleared, or none.

    \b
    Example:
      assay clear HumanEval/32 HumanEval/38 --by ana --reason "legacy check read: sound"
    """
    from datetime import UTC, datetime  # noqa: PLC0415

    from assay.audit.clearance import clearance_for  # noqa: PLC0415

    now = datetime.now(UTC)
    with _existing_store(db) as store:
        named = None if run_id is None else store.run(run_id)
        if run_id is not None and (named is None or named.kind != "audit"):
            raise InputError(
                f"no audit run named {run_id!r:.100} in this store",
                field="--run",
                fix="`assay runs` lists the runs",
            )
        kept = {(c.run_id, c.task_id): c for c in store.clearances()}
        deciders = store.deciding_audits()
        cleared = []
        for task_id in dict.fromkeys(task_ids):
            if run_id is None:
                latest = store.latest_task_audit(task_id)
                if latest is None:
                    raise InputError(
                        f"no audit in this store audited a task {task_id!r}",
                        path=db,
                        fix="audit it first; task ids are as the audit table shows them",
                    )
                found, audited = latest
            else:
                in_run = store.task_audit(run_id, task_id)
                if in_run is None:
                    raise InputError(
                        f"audit run {run_id} has no task {task_id!r}",
                        field="--run",
                        fix="`assay report RUN` lists its tasks",
                    )
                found, audited = run_id, in_run
            deciding = deciders.get((task_id, audited.task_version), (found, ""))[0]
            if deciding != found and run_id is not None:
                raise InputError(
                    f"audit run {deciding} decides this version of {task_id}, not {run_id}",
                    field="--run",
                    fix=f"clear it in that audit: --run {deciding}, or leave --run out",
                )
            if deciding != found:  # a later audit of fewer checks: the fuller one decides
                found, audited = deciding, store.task_audit(deciding, task_id) or audited
            earlier = kept.get((found, task_id))
            if earlier is not None:
                raise InputError(
                    f"{task_id} was already cleared in audit run {found} by {earlier.by} on "
                    f"{earlier.cleared_at:%Y-%m-%d}",
                    path=db,
                    fix="a later audit accepts it while its findings are the ones cleared",
                )
            cleared.append(clearance_for(audited, found, by=by, reason=reason, at=now))
        store.add_clearances(cleared)
    for c in cleared:
        click.echo(
            f"cleared {c.task_id} (version {c.task_version[:12]}, quarantined by audit run "
            f"{c.run_id} for {len(c.findings)} finding{'s' if len(c.findings) != 1 else ''})"
        )
    click.echo(
        "exports take them from now on; a later audit accepts them while their findings stay "
        "the ones cleared"
    )


@cli.command("report")
@click.argument("run_id")
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report as one self-contained HTML page to this file (opens offline).",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report as JSON to this file ('-' for stdout).",
)
@setting_option(DB, type=_STORE)
def report_command(run_id: str, html_path: Path | None, json_path: Path | None, db: Path) -> None:
    """Show the report of a stored audit run again: its table and totals, and with --html or
    --json the report written as the audit would have written it.

    \b
    Example:
      assay report 3f9c2a81d4e0 --html audit.html
    """
    from assay._render import audit_table, console  # noqa: PLC0415

    to_stdout = json_path is not None and str(json_path) == "-"
    report_file = _report_files(json_path, html_path, db)
    with _existing_store(db, reads_only=True) as store:
        report = store.audit_report(run_id)
    if report is None:
        raise InputError(
            f"no audit run named {run_id!r:.100} in this store",
            path=db,
            fix="`assay runs` lists the runs; rollout runs have profiles, not audit reports",
        )
    if to_stdout:
        click.echo(_terminal_json(report))
    else:
        console().print(audit_table(report))
    _print_audit_totals(report, stderr=to_stdout)
    _write_reports(report, json_path=report_file, html_path=html_path, db=db, stderr=to_stdout)


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
    type=_NumberRange(0.01, 3600),
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
    click.echo(_terminal_json(result))


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
@setting_option(DB, type=_STORE)
@setting_option(WORKERS, type=click.IntRange(1, 256))
@setting_option(SANDBOX, type=click.Choice(BACKENDS))
def demo(out: Path, count: int, db: Path, workers: int, sandbox: str) -> None:
    """Generate a small suite of tasks of every built-in family (--n code tasks and a few SQL,
    Kubernetes configuration and cloud workflow tasks), audit it, profile it with a scripted
    policy of uneven skill (mix), store the results and print a summary with the pass-rate
    histogram.

    \b
    Example:
      assay demo --out demo-out
    """
    from assay.audit import summary_line  # noqa: PLC0415
    from assay.demo import (  # noqa: PLC0415
        DEMO_PROFILE_K,
        DEMO_SEED,
        check_demo_out,
        demo_counts,
        run_demo,
    )
    from assay.policies import MixedPolicy  # noqa: PLC0415
    from assay.profiles import histogram_lines  # noqa: PLC0415

    check_demo_out(out)
    total = sum(demo_counts(count).values())
    progress = _progress("generating, auditing, profiling", (2 + DEMO_PROFILE_K) * total)
    with _store(db) as store, _sandbox(sandbox, workers) as box, progress as advance:
        result = run_demo(
            out,
            store,
            box,
            n=count,
            workers=workers,
            on_generated=lambda _t: advance(),
            on_audited=lambda _t: advance(),
            on_episode=lambda _o: advance(),
        )
    report, profiled = result.report, result.profile
    click.echo(summary_line(report))
    click.echo(
        f"profile of {profiled.run} (scripted policy {MixedPolicy(DEMO_SEED).spec}, "
        f"k={profiled.k}), tasks by pass rate:"
    )
    for line in histogram_lines(profiled):
        click.echo(f"  {line}")
    click.echo(
        f"triage: {len(profiled.triage.review)} for review (0%), "
        f"{len(profiled.triage.too_easy)} too easy (100%)"
    )
    click.echo(f"tasks:   {result.tasks_dir}")
    click.echo(f"report:  {result.report_path}")
    click.echo(f"profile: {result.profile_path}")
    click.echo(f"store:   {db} (audit run {report.run_id}, rollout run {profiled.run})")
    sys.exit(_audit_status(report))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the runs as JSON.")
@setting_option(DB, type=_STORE)
def runs(as_json: bool, db: Path) -> None:
    """List the runs kept in the results database, audits and rollouts, newest first.

    \b
    Example:
      assay runs --db assay.db
    """
    from assay.runs import list_runs  # noqa: PLC0415

    with _existing_store(db, reads_only=True) as store:
        kept = list_runs(store)
    if as_json:
        click.echo(json.dumps([row.flat() for row in kept], indent=2))
        return
    from assay._render import console  # noqa: PLC0415
    from assay._render_runs import runs_table  # noqa: PLC0415

    console().print(runs_table(kept, db))


@cli.command()
@click.option("--task", "task_id", help="Only verdicts on this task id.")
@click.option("--run", "run_id", help="Only verdicts of this run (audit or rollout).")
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON.")
@setting_option(DB, type=_STORE)
def verdicts(task_id: str | None, run_id: str | None, as_json: bool, db: Path) -> None:
    """List kept verdicts with the versions that produced them, oldest first. With --json,
    each item has task_id, sample, status and score (null for an error) at the top level.

    \b
    Example:
      assay verdicts --run nightly --json
    """
    from assay.runs import verdict_items  # noqa: PLC0415

    with _existing_store(db, reads_only=True) as store:
        kept = store.verdicts(task_id=task_id, run_id=run_id)
    if as_json:
        click.echo(json.dumps(verdict_items(kept), indent=2))
        return
    from assay._render import console, verdicts_table  # noqa: PLC0415

    console().print(verdicts_table(kept, db))


def rollout_options(command: F) -> F:
    """The options `assay run` and `assay profile` share: the policy, k, the run's name, how
    episodes run, the caps, the store and the sandbox."""
    options = [
        click.argument("tasks_dir", type=click.Path(path_type=Path)),
        click.option(
            "--policy",
            "policy_spec",
            required=True,
            help="openai:MODEL, reference, bad:LABEL, empty, mix:SEED or replay:RUN.",
        ),
        click.option(
            "--k",
            type=click.IntRange(1, 100000),
            default=1,
            show_default=True,
            help="Episodes per task.",
        ),
        click.option(
            "--run",
            "run_name",
            help="Name of the run; the same name resumes it. Default: a new name, printed.",
        ),
        click.option(
            "--mode",
            type=click.Choice(["tools", "single"]),
            default="tools",
            show_default=True,
            help="tools: act through tools; single: one answer, one block.",
        ),
        click.option(
            "--base-url",
            envvar="OPENAI_BASE_URL",
            show_envvar=True,
            help="OpenAI-compatible endpoint of a model policy (vLLM, Ollama, ...).",
        ),
        click.option("--temperature", type=_NumberRange(0, 2), help="Sampling temperature."),
        click.option("--top-p", type=_NumberRange(0, 1, min_open=True), help="Nucleus mass."),
        click.option("--max-tokens", type=click.IntRange(1), help="Most tokens per answer."),
        click.option(
            "--seed", type=int, help="Sampling seed; sample i of each task is sent seed + i."
        ),
        click.option(
            "--max-turns",
            type=click.IntRange(1, 1000),
            default=20,
            show_default=True,
            help="Policy turns per episode.",
        ),
        click.option(
            "--max-turn-seconds",
            type=_NumberRange(0, 86400, min_open=True),
            default=1800,
            show_default=True,
            help="Seconds one policy turn may take, every wait and retry of a model's requests "
            "included; a turn not answered by then is cut off and the episode fails (budget).",
        ),
        click.option(
            "--attempts",
            type=click.IntRange(1, 20),
            default=3,
            show_default=True,
            help="Attempts of an episode that ends in error (infrastructure) before the error "
            "is kept.",
        ),
        click.option(
            "--prices",
            type=_InputFile(),
            help="Price table (TOML or JSON) for the cost of tokens.",
        ),
        setting_option(MAX_SANDBOXES, type=click.IntRange(1, 256)),
        setting_option(MAX_REQUESTS, type=click.IntRange(1, 4096)),
        setting_option(DB, type=_STORE),
        setting_option(SANDBOX, type=click.Choice(BACKENDS)),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@dataclass(frozen=True)
class _Rollout:
    """What `assay run` and `assay profile` are asked, as parsed by :func:`rollout_options`."""

    tasks_dir: Path
    policy_spec: str
    k: int
    run_name: str | None
    mode: str
    base_url: str | None
    temperature: float | None
    top_p: float | None
    max_tokens: int | None
    seed: int | None
    max_turns: int
    max_turn_seconds: float
    attempts: int
    prices: Path | None
    max_sandboxes: int
    max_requests: int
    db: Path
    sandbox: str


@cli.command("run")
@rollout_options
def run_command(**options: Any) -> None:
    """Run every task k times with a policy, each episode kept as it ends. Resumable: the same
    command with the same --run continues after a crash or Ctrl-C. Exit 0 when the run
    finished (whatever the pass rate), 2 on bad input, 3 when the infrastructure failed
    (episodes that ended in error or without a score: run it again to retry them), 130 when
    interrupted.

    \b
    Example:
      assay run tasks/ --policy reference --k 2 --run smoke
      assay run tasks/ --policy openai:Qwen/Qwen3-8B --base-url http://localhost:8000/v1 \\
          --k 8 --mode single --temperature 0.6 --run qwen-k8
    """
    _rollout(_Rollout(**options))


@cli.command()
@rollout_options
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the profile as JSON to this file ('-' for stdout).",
)
def profile(json_path: Path | None, **options: Any) -> None:
    """Run every task k times with a policy (resumable exactly like `assay run`) and report
    the pass-rate profile: per task samples, passes, errors, pass rate, pass@1 and pass@k; a
    histogram of pass rates; tasks at 0% for review, tasks at 100% as too easy. Errors are left
    out of every rate. Exit codes as `assay run`; the profile is printed (and written) also
    when some episodes ended in error.

    \b
    Example:
      assay profile tasks/ --policy openai:Qwen/Qwen3-8B --k 8 --run qwen-k8 --json profile.json
      assay audit tasks/ --profile qwen-k8
    """
    from assay._output import require_writable_file, write_atomically  # noqa: PLC0415
    from assay._render import console  # noqa: PLC0415
    from assay._render_runs import profile_table, profile_text  # noqa: PLC0415
    from assay.runs import run_profile  # noqa: PLC0415

    to_stdout = json_path is not None and str(json_path) == "-"
    profile_file = None if to_stdout else json_path
    if profile_file is not None:
        require_writable_file(profile_file, store=options["db"])

    def report(store: Store, name: str) -> None:
        profiled = run_profile(store, name).profile
        if to_stdout:
            click.echo(_terminal_json(profiled))
        else:
            out = console()
            out.print(profile_table(profiled))
            out.print(profile_text(profiled))
        if profile_file is not None:
            try:
                write_atomically(profile_file, profiled.model_dump_json(indent=2))
            except OSError as exc:
                raise AssayError(
                    f"{profile_file}: cannot write the profile: {exc.strerror or exc} (the "
                    f"episodes are kept as run {name}; `assay profile` with --run {name} "
                    "prints it again)"
                ) from None
            click.echo(f"profile: {profile_file}", err=to_stdout)

    _rollout(_Rollout(**options), then=report, quiet=to_stdout)


def _rollout(
    asked: _Rollout,
    *,
    then: Callable[[Store, str], None] | None = None,
    quiet: bool = False,
) -> NoReturn:
    """Start or resume the run ``asked`` names, run it to the end, print its summary (unless
    ``quiet``), call ``then`` with the store and the run's name, and exit with the run's code."""
    from assay.episodes import Budget  # noqa: PLC0415
    from assay.policies import PriceTable, Sampling  # noqa: PLC0415
    from assay.runs import (  # noqa: PLC0415
        RunnerOptions,
        RunSpec,
        check_policy,
        open_policy,
        turn_time_note,
    )
    from assay.tasks import TaskSet  # noqa: PLC0415

    taskset = _complete_taskset(TaskSet.load(asked.tasks_dir))
    sampling = Sampling(
        temperature=asked.temperature,
        top_p=asked.top_p,
        max_tokens=asked.max_tokens,
        seed=asked.seed,
    )
    options = RunnerOptions(
        max_sandboxes=asked.max_sandboxes,
        max_requests=asked.max_requests,
        max_attempts=asked.attempts,
        budget=Budget(max_turns=asked.max_turns, max_turn_s=asked.max_turn_seconds),
        prices=PriceTable.from_file(asked.prices) if asked.prices is not None else None,
    )
    with _store(asked.db) as store:
        policy = open_policy(
            asked.policy_spec,
            store,
            base_url=asked.base_url,
            sampling=sampling,
            max_requests=asked.max_requests,
        )
        spec = RunSpec.of(
            taskset.tasks,
            root=str(taskset.root.resolve()),
            policy=policy.spec,
            k=asked.k,
            mode="single" if asked.mode == "single" else "tools",
            sampling=sampling,
            max_turns=asked.max_turns,
            max_turn_s=asked.max_turn_seconds,
        )
        check_policy(policy, taskset.tasks, asked.k, mode=spec.mode)
        note = turn_time_note(policy, options.budget or Budget())
        if note is not None:
            click.echo(f"warning: --max-turn-seconds: {note}", err=True)
        name = asked.run_name or _new_run_name()
        counts = _run_to_the_end(
            store,
            name,
            spec=spec,
            tasks={task.id: task for task in taskset.tasks},
            policy=policy,
            options=options,
            backend=asked.sandbox,
            quiet=quiet,
        )
        if then is not None:
            then(store, name)
        unscored = store.unscored(name)
    if counts.errors:
        _exit(
            f"{counts.errors} episodes ended in error (infrastructure, not scored); run the same "
            f"command with --run {name} to retry them",
            EXIT_INFRA,
        )
    if unscored:
        _exit(
            f"{unscored} episodes have no score (a rubric's judge could not be reached); run "
            f"the same command with --run {name} to retry them",
            EXIT_INFRA,
        )
    sys.exit(0)


@cli.command()
@click.argument("run_name")
@click.argument("task_id", required=False)
@click.option(
    "--sample",
    type=click.IntRange(0, 2**63 - 1),  # what the store can hold; more is no sample, not a crash
    help="Only this sample index.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the whole records as JSON.")
@setting_option(DB, type=_STORE)
def show(run_name: str, task_id: str | None, sample: int | None, as_json: bool, db: Path) -> None:
    """Print the trajectories of a rollout run (or of one task in it) as readable text.

    \b
    Example:
      assay show smoke code-parse-duration-8bbedbf0 --sample 0
    """
    from assay.runs import rollout_episodes  # noqa: PLC0415

    with _existing_store(db, reads_only=True) as store:
        episodes = rollout_episodes(store, run_name, task_id=task_id, sample=sample)
    from assay._render import console  # noqa: PLC0415
    from assay._render_runs import episode_text, episodes_json  # noqa: PLC0415

    if as_json:
        click.echo(episodes_json(episodes))
        return
    out = console()
    for index, episode in enumerate(episodes):
        if index:
            out.rule()
        out.print(episode_text(episode))


@cli.group()
def export() -> None:
    """Write training data: tasks for trainers, trajectories as examples and pairs.

    \b
    Example:
      assay export tasks tasks/ --out train.jsonl
      assay export trajectories qwen-k8 --kind preference --out pairs.parquet
    """


def format_option(command: F) -> F:
    """``--format``, from the file's suffix when not given."""
    return click.option(
        "--format",
        "format_name",
        type=click.Choice(["jsonl", "parquet", "hf"]),
        default=None,
        help="jsonl, parquet, or hf (a Hugging Face dataset directory, for load_from_disk); "
        "by default from --out's suffix (.parquet, .jsonl), else jsonl.",
    )(command)


@export.command("tasks")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option(
    "--out", "out", type=click.Path(path_type=Path), required=True, help="File (or directory)."
)
@format_option
@click.option(
    "--split",
    type=click.Choice(["train", "dev", "test", "frozen"]),
    default="train",
    show_default=True,
    help="Which split to write; frozen is refused.",
)
@setting_option(DB, type=_STORE)
def export_tasks(directory: Path, out: Path, format_name: str | None, split: str, db: Path) -> None:
    """Write the tasks a trainer may use, one row each: the prompt as an episode sends it,
    the tools, the starting files and metadata; never hidden files or solutions.

    Only tasks of the split that their latest audit accepted are written (quarantined,
    rejected, never audited or changed since: left out and counted); the frozen split never.

    \b
    Example:
      assay export tasks tasks/ --out train.jsonl
      assay export tasks tasks/ --split dev --format hf --out dev-dataset
    """
    from assay.integrations.exports import exportable, task_row, write_rows  # noqa: PLC0415
    from assay.tasks import Split, TaskSet  # noqa: PLC0415

    taskset = _complete_taskset(TaskSet.load(directory))
    _refuse_task_files(taskset, out)
    with _existing_store(db, reads_only=True) as store:
        decisions = store.audit_decisions()
    chosen = exportable(taskset.tasks, decisions, Split(split))
    if not chosen.tasks:
        raise InputError(
            f"no task of the {split} split may be exported"
            + _excluded_summary([e.reason for e in chosen.excluded]),
            path=directory,
            fix="audit the tasks (`assay audit`) and export those it accepts",
        )
    fmt = _export_format(format_name, out)
    from assay._output import refuse_store  # noqa: PLC0415

    refuse_store(out, db)
    write_rows([task_row(task) for task in chosen.tasks], out, fmt)
    click.echo(
        f"wrote {len(chosen.tasks)} {split} tasks to {out} ({fmt})"
        + _excluded_summary([e.reason for e in chosen.excluded])
    )
    for exclusion in chosen.excluded:
        click.echo(f"  left out {exclusion.task_id}: {exclusion.reason}", err=True)


@export.command("trajectories")
@click.argument("run_names", nargs=-1, required=True)
@click.option(
    "--out", "out", type=click.Path(path_type=Path), required=True, help="File (or directory)."
)
@click.option(
    "--kind",
    type=click.Choice(["sft", "preference", "full"]),
    default="sft",
    show_default=True,
    help="sft: each passing episode's conversation; preference: a passing and a failing "
    "attempt at the same task; full: every trajectory whole, as kept (JSON Lines, for "
    "analysis, not filtered).",
)
@format_option
@click.option(
    "--tasks",
    "tasks_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="The run's task set, to know splits and audits (default: where the run loaded it).",
)
@setting_option(DB, type=_STORE)
def export_trajectories(
    run_names: tuple[str, ...],
    *,
    out: Path,
    kind: str,
    format_name: str | None,
    tasks_dir: Path | None,
    db: Path,
) -> None:
    """Write rollout runs' episodes as training data: supervised examples (passing episodes)
    or preference pairs (a passing and a failing attempt at one task from the same prompt, from
    one run or across several), only of train-split tasks their latest audit accepted, at the
    version the episodes ran; errors are never used.

    \b
    Example:
      assay export trajectories qwen-k8 --out sft.jsonl
      assay export trajectories qwen-k8 --kind preference --out pairs.parquet
      assay export trajectories strong-k4 weak-k4 --kind preference --out pairs.jsonl
      assay export trajectories qwen-k8 --kind full --out qwen-k8.jsonl
    """
    from assay._output import refuse_store, require_writable_file  # noqa: PLC0415
    from assay.episodes import write_jsonl  # noqa: PLC0415
    from assay.integrations.exports import (  # noqa: PLC0415
        exportable,
        preference_rows,
        sft_rows,
        tool_schemas,
        usable_trajectories,
        write_rows,
    )
    from assay.runs import rollout_episodes  # noqa: PLC0415
    from assay.tasks import TaskSet  # noqa: PLC0415

    fmt = _export_format(format_name, out)
    refuse_store(out, db)
    with _existing_store(db, reads_only=True) as store:
        trajectories = [
            episode.trajectory for name in run_names for episode in rollout_episodes(store, name)
        ]
        if kind == "full":
            if fmt != "jsonl":
                raise InputError(
                    "whole trajectories are written as JSON Lines only",
                    field="format",
                    fix="use --format jsonl, or --kind sft|preference for tables",
                )
            require_writable_file(out)  # the store was refused above
            try:
                write_jsonl(trajectories, out)
            except OSError as exc:
                raise InputError(f"cannot write it: {exc.strerror or exc}", path=out) from None
            click.echo(f"wrote {len(trajectories)} trajectories to {out}")
            return
        record = store.run(run_names[0])
        root = tasks_dir or Path(str(record.spec.get("root", "") if record else ""))
        if not root.is_dir():
            raise InputError(
                f"cannot find the run's tasks at {root}",
                field="tasks",
                fix="give --tasks DIR: splits and audits decide what may be exported",
            )
        chosen = exportable(_complete_taskset(TaskSet.load(root)).tasks, store.audit_decisions())
    usable, dropped = usable_trajectories(trajectories, chosen)
    if kind == "sft":
        rows = sft_rows(usable, {task.id: tool_schemas(task) for task in chosen.tasks})
    else:
        rows = preference_rows(usable)
    if not rows:
        raise InputError(
            f"{', '.join(run_names)}: no {kind} rows from {len(usable)} usable episodes"
            f" ({dropped} of tasks not exportable or changed since)",
            field="run",
            fix="export a run with passing (and, for pairs, failing) episodes of accepted tasks",
        )
    write_rows(rows, out, fmt)
    click.echo(
        f"wrote {len(rows)} {kind} rows to {out} ({fmt}) from {len(usable)} episodes; "
        f"{dropped} left out (tasks not exportable or changed since)"
    )


def _export_format(name: str | None, out: Path) -> Literal["jsonl", "parquet", "hf"]:
    if name is not None:
        return cast(Literal["jsonl", "parquet", "hf"], name)
    return "parquet" if out.suffix == ".parquet" else "jsonl"


def _excluded_summary(reasons: list[str]) -> str:
    if not reasons:
        return ""
    counts: dict[str, int] = {}
    for reason in reasons:
        head = reason.split(":")[0]
        counts[head] = counts.get(head, 0) + 1
    return "; left out: " + ", ".join(f"{n} {why}" for why, n in sorted(counts.items()))


@cli.command()
@click.option("--env-only", is_flag=True, help="Serve the environment API only (no dashboard).")
@click.option(
    "--tasks",
    "tasks_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory of tasks to offer.",
)
@setting_option(HOST)
@setting_option(PORT, type=click.IntRange(0, 65535))
@setting_option(TOKEN, type=_Token())
@setting_option(MAX_SESSIONS, type=click.IntRange(1, 100000))
@setting_option(IDLE_TIMEOUT, type=_NumberRange(0.1, 86400))
@click.option(
    "--profile",
    "profile_run",
    help="A rollout run (`assay profile`) whose pass rates sampling curricula use; a task "
    "changed since it was profiled has none.",
)
@setting_option(DB, type=_STORE)
@setting_option(WORKERS, type=click.IntRange(1, 256))
@setting_option(SANDBOX, type=click.Choice(BACKENDS))
def serve(
    *,
    env_only: bool,
    tasks_dir: Path,
    host: str,
    port: int,
    token: str,
    max_sessions: int,
    idle_timeout: float,
    profile_run: str | None,
    db: Path,
    workers: int,
    sandbox: str,
) -> None:
    """Serve tasks as environments: sessions over HTTP (OpenAPI at /openapi.json) and over
    OpenEnv's WebSocket protocol at /ws. Binds to loopback unless --host says otherwise, which
    needs a token. Runs until interrupted.

    \b
    Example:
      assay serve --env-only --tasks tasks/ --port 8400
      ASSAY_TOKEN=s3cret assay serve --env-only --tasks tasks/ --host 0.0.0.0
      assay serve --env-only --tasks tasks/ --profile qwen-k8   # curricula read its pass rates
    """
    from assay.runs import run_profile  # noqa: PLC0415
    from assay.server import (  # noqa: PLC0415
        ServerLimits,
        build_server,
        check_binding,
        current_pass_rates,
        listen,
        offered,
    )
    from assay.tasks import TaskSet  # noqa: PLC0415

    if not env_only:
        raise InputError(
            "only the environment API can be served so far",
            field="--env-only",
            fix="run `assay serve --env-only --tasks DIR`",
        )
    check_binding(host, token or None)
    taskset = _complete_taskset(TaskSet.load(tasks_dir))
    rates: dict[str, float] = {}
    if profile_run is not None:
        with _existing_store(db, reads_only=True) as store:
            rates = current_pass_rates(run_profile(store, profile_run), taskset.tasks)
    limits = ServerLimits(max_sessions=max_sessions, idle_timeout_s=idle_timeout)
    sock = listen(host, port)  # a port in use is refused before the sandbox starts
    with sock, _sandbox(sandbox, workers) as box:
        server = build_server(
            taskset.tasks,
            box,
            host=host,
            port=port,
            token=token or None,
            limits=limits,
            pass_rates=rates,
        )
        shown = f"[{host}]" if ":" in host else host
        served = len(offered(taskset.tasks))
        unoffered = len(taskset.tasks) - served
        left_out = f" ({unoffered} left out: no tools in their family)" if unoffered else ""
        click.echo(
            f"serving {served} tasks{left_out} on http://{shown}:{sock.getsockname()[1]} "
            "(OpenAPI at /openapi.json, OpenEnv at /ws); Ctrl-C stops",
            err=True,
        )
        server.run(sockets=[sock])


@cli.group()
def config() -> None:
    """Inspect Kubernetes manifests as the config family reads them.

    \b
    Example:
      assay config reachability cluster.yaml policies.yaml
      assay config permissions rbac.yaml --subject ServiceAccount:shop/api
    """


def manifest_options(command: F) -> F:
    """The options both ``config`` commands take."""
    for option in reversed(
        [
            click.argument("files", nargs=-1, required=True, type=_InputFile()),
            click.option(
                "--kubernetes",
                default="1.33",
                show_default=True,
                help="Kubernetes version whose schemas the objects must follow.",
            ),
            click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON."),
            setting_option(SANDBOX, type=click.Choice(BACKENDS)),
        ]
    ):
        command = option(command)
    return command


@config.command("reachability")
@manifest_options
def config_reachability(
    files: tuple[Path, ...], kubernetes: str, as_json: bool, sandbox: str
) -> None:
    """Which pods may connect to which, under the NetworkPolicies of FILES.

    FILES hold multi-document YAML: Namespace objects (for their labels), Pod objects (labels,
    named container ports, status.podIP where known) and NetworkPolicy objects. One row for
    every ordered pair of distinct pods and every port and protocol the destination declares.

    \b
    Example:
      assay config reachability cluster.yaml deny-all.yaml --json
    """
    from assay.families.config.manifests import reachability_rows, read_manifests  # noqa: PLC0415

    with _sandbox(sandbox, 1) as box:
        objects = read_manifests(files, box, kubernetes)
    rows = reachability_rows(objects)
    if as_json:
        records = [
            {
                "from": r.source,
                "to": r.destination,
                "port": r.port,
                "protocol": r.protocol,
                "allowed": r.allowed,
            }
            for r in rows
        ]
        click.echo(json.dumps(records, indent=2))
        return
    from rich.table import Table  # noqa: PLC0415

    from assay._render import console, plain  # noqa: PLC0415

    table = Table()
    for column in ("from", "to", "port", "allowed"):
        table.add_column(column)
    for r in rows:
        word = "allowed" if r.allowed else "denied"
        table.add_row(
            plain(r.source),
            plain(r.destination),
            plain(f"{r.port}/{r.protocol}"),
            plain(word, "green" if r.allowed else "red"),
        )
    console().print(table)
    allowed = sum(r.allowed for r in rows)
    click.echo(f"{len(rows)} connections: {allowed} allowed, {len(rows) - allowed} denied")


@config.command("permissions")
@manifest_options
@click.option(
    "--subject",
    required=True,
    help="Who asks: User:NAME, Group:NAME or ServiceAccount:NAMESPACE/NAME.",
)
def config_permissions(
    files: tuple[Path, ...], kubernetes: str, as_json: bool, sandbox: str, subject: str
) -> None:
    """What SUBJECT may do under the Roles, ClusterRoles and bindings of FILES.

    One row per namespace (or the whole cluster), API group, resource, resource name and verb.

    \b
    Example:
      assay config permissions rbac.yaml --subject ServiceAccount:shop/api --json
    """
    from assay.families.config.manifests import (  # noqa: PLC0415
        parse_subject,
        permission_rows,
        read_manifests,
    )

    who = parse_subject(subject)
    with _sandbox(sandbox, 1) as box:
        objects = read_manifests(files, box, kubernetes)
    rows = permission_rows(objects, who)
    if as_json:
        records = [
            {
                "namespace": r.namespace,
                "group": r.group,
                "resource": r.resource,
                "name": r.name,
                "verb": r.verb,
            }
            for r in rows
        ]
        click.echo(json.dumps(records, indent=2))
        return
    from rich.table import Table  # noqa: PLC0415

    from assay._render import console, plain  # noqa: PLC0415

    table = Table()
    for column in ("namespace", "group", "resource", "name", "verb"):
        table.add_column(column)
    for r in rows:
        group = "(non-resource URL)" if r.group is None else r.group or '"" (core)'
        table.add_row(
            plain(r.namespace or "(cluster)"),
            plain(group),
            plain(r.resource),
            plain(r.name or "*"),
            plain(r.verb),
        )
    console().print(table)
    click.echo(f"{who}: {len(rows)} permissions")


def _earlier_audit(store: Store, name: str) -> list[TaskAudit]:
    """The task audits of audit run ``name``, for ``--since``; a one-line error without it."""
    before = store.task_audits(name)
    if before is None:
        raise InputError(
            f"no audit run named {name!r:.100} in this store",
            field="--since",
            fix="`assay runs` lists the runs; rollout runs cannot be compared with an audit",
        )
    return before


def _report_files(json_path: Path | None, html_path: Path | None, db: Path) -> Path | None:
    """The JSON report's file (None for none, or for ``-``: stdout), once both report files
    are known writable, two files, and neither the results database."""
    from assay._output import require_writable_file  # noqa: PLC0415

    report_file = None if json_path is None or str(json_path) == "-" else json_path
    if (
        report_file is not None
        and html_path is not None
        and os.path.realpath(report_file) == os.path.realpath(html_path)
    ):
        raise InputError(
            "is given for both --json and --html", path=html_path, fix="name two files"
        )
    for path in (report_file, html_path):
        if path is not None:
            require_writable_file(path, store=db)
    return report_file


def _print_audit_totals(report: AuditReport, *, stderr: bool) -> None:
    """The one line of totals, the quarantined tasks, then the diversity and the drift from
    seeds if measured."""
    from assay._render import console, diversity_lines, plain  # noqa: PLC0415
    from assay.audit import quarantine_lines, summary_line  # noqa: PLC0415

    shown = console(stderr=stderr)
    for line in [
        summary_line(report),
        *quarantine_lines(report),
        *diversity_lines(report.diversity),
    ]:
        shown.print(plain(line))


def _write_reports(
    report: AuditReport,
    *,
    json_path: Path | None,
    html_path: Path | None,
    db: Path,
    stderr: bool,
) -> None:
    """Write the JSON and the HTML report where asked, each whole or not at all, and name them
    (on stderr when stdout is the JSON report itself)."""
    from assay._output import write_atomically  # noqa: PLC0415
    from assay._render_html import audit_html  # noqa: PLC0415

    def as_json(report: AuditReport) -> str:
        return report.model_dump_json(indent=2)

    for path, render in ((json_path, as_json), (html_path, audit_html)):
        if path is None:
            continue
        text = render(report)
        try:
            write_atomically(path, text)
        except OSError as exc:
            raise AssayError(
                f"{path}: cannot write the report: {exc.strerror or exc} (the audit is "
                f"kept as run {report.run_id} in {db}; `assay report {report.run_id}` writes "
                "it again)"
            ) from None
        click.echo(f"report: {path}", err=stderr)


def _seed_tasks(directory: Path) -> TaskSet:
    """The seed tasks of ``--seed-tasks``, every one loaded, or a one-line error saying so."""
    from assay.tasks import TaskSet  # noqa: PLC0415

    try:
        return _complete_taskset(TaskSet.load(directory))
    except InputError as exc:
        raise InputError(str(exc), field="--seed-tasks") from None


def _refuse_task_files(taskset: TaskSet, *paths: Path | None) -> None:
    """Raise when one of ``paths``, about to be written, lies inside a directory of ``taskset``:
    a report or export written there would replace or change the very task it was read from."""
    directories = [*taskset.paths.values(), *(failure.path for failure in taskset.failures)]
    for path in paths:
        if path is None or str(path) == "-":
            continue
        target = Path(os.path.realpath(path))  # a link that loops is refused when written
        for directory in directories:
            if target.is_relative_to(os.path.realpath(directory)):
                raise InputError(
                    f"is inside the task directory {directory}: writing there would change "
                    "the task it was read from",
                    path=path,
                    fix="write outside the task directories",
                )


def _complete_taskset(taskset: TaskSet) -> TaskSet:
    """A task set without broken tasks: a run over part of what was asked is refused."""
    if taskset.failures:
        failure = taskset.failures[0]
        more = len(taskset.failures) - 1
        suffix = f" (and {more} more broken tasks)" if more else ""
        raise InputError(f"{failure.error}{suffix}")
    return taskset


def _new_run_name() -> str:
    import uuid  # noqa: PLC0415
    from datetime import UTC, datetime  # noqa: PLC0415

    return f"run-{datetime.now(UTC):%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:4]}"


def _run_to_the_end(
    store: Store,
    name: str,
    *,
    spec: RunSpec,
    tasks: dict[str, Task],
    policy: Policy,
    options: RunnerOptions,
    backend: str,
    quiet: bool = False,
) -> JobCounts:
    """Start or resume run ``name``, run it and print its summary (unless ``quiet``); returns
    where its jobs are. Ctrl-C (or SIGTERM) exits 130 with what had ended kept."""
    import time  # noqa: PLC0415

    from assay._render import console  # noqa: PLC0415
    from assay._render_runs import run_progress, summary_table  # noqa: PLC0415
    from assay.runs import run_rollouts, start_run  # noqa: PLC0415
    from assay.store.patience import patiently  # noqa: PLC0415

    started = patiently(lambda: start_run(store, name, spec))  # a locked store delays it
    counts = store.job_counts(name, now=time.time())
    if started.state == "new":
        click.echo(
            f"run {name}: {counts.total} episodes ({len(spec.tasks)} tasks x {spec.k})", err=True
        )
    else:
        reopened = (
            f", {started.reopened} that ended in error or without a score queued again"
            if started.reopened
            else ""
        )
        click.echo(
            f"resuming run {name}: {counts.done} of {counts.total} episodes kept{reopened}",
            err=True,
        )
    try:
        with (
            _terminate_as_interrupt(),
            _sandbox(backend, options.max_sandboxes) as box,
            run_progress(counts) as progress,
        ):
            counts = run_rollouts(
                store,
                name,
                tasks=tasks,
                policy=policy,
                sandbox=box,
                options=options,
                on_outcome=progress,
            )
    except KeyboardInterrupt:
        done = store.job_counts(name, now=time.time())
        _exit(
            f"interrupted; {done.done} of {done.total} episodes are kept in {store.path}; "
            f"run the same command with --run {name} to continue",
            EXIT_INTERRUPTED,
        )
    store.mark_finished(name)
    if not quiet:
        console().print(summary_table(name, store.episode_totals(name), counts))
    return counts


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """While the block runs, SIGTERM (a scheduler stopping the job, `kill`) stops it as Ctrl-C
    does: what had ended is kept and the run can be resumed."""
    import signal  # noqa: PLC0415
    import threading  # noqa: PLC0415

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    from assay.runs import interrupt_rollouts  # noqa: PLC0415

    def interrupt(_signum: int, frame: FrameType | None) -> None:
        # What Ctrl-C would do now: inside an event loop, asyncio's SIGINT handler cancels the
        # main task and lets every task end in order, where a KeyboardInterrupt raised here
        # would land in whatever the loop was doing and leave its tasks torn down half-way.
        ctrl_c = signal.getsignal(signal.SIGINT)
        if callable(ctrl_c):
            ctrl_c(signal.SIGINT, frame)
        # SIGINT ignored, as in a job a shell started in background: asyncio has no handler
        # of its own then, so the run is stopped the way its handler would have stopped it
        elif not interrupt_rollouts():
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _store(db: Path) -> Iterator[Store]:
    """The results database, created if it does not exist yet."""
    from assay.store import open_store  # noqa: PLC0415

    with open_store(db) as store:
        yield store


@contextmanager
def _existing_store(db: Path, *, reads_only: bool = False) -> Iterator[Store]:
    """The results database, which a read command must not create. With ``reads_only`` (the
    command never writes it), a store that cannot be written (read-only media) is read as it
    is; one that can is opened as the others are (an older store is migrated)."""
    if not db.is_file():
        raise InputError(
            "no results database here", path=db, fix="run an audit first, or point --db at one"
        )
    if reads_only and not (os.access(db, os.W_OK) and os.access(db.absolute().parent, os.W_OK)):
        from assay.store import open_store  # noqa: PLC0415

        with open_store(db, read_only=True) as store:
            yield store
        return
    with _store(db) as store:
        yield store


def _audit_status(report: AuditReport) -> int:
    """3 when any task could not be audited, else 1 when any was rejected, else 0."""
    from assay.findings import Decision  # noqa: PLC0415

    if report.count(Decision.ERROR):
        return EXIT_INFRA
    return EXIT_FAIL if report.count(Decision.REJECTED) else 0


def _terminal_json(model: BaseModel) -> str:
    """``model`` as JSON for standard output, every character past ASCII escaped: a task's
    text could otherwise send the terminal an 8-bit control (U+009B opens a control sequence,
    as ESC [ does) or a bidirectional override that shows the lines in another order."""
    import json  # noqa: PLC0415

    return json.dumps(model.model_dump(mode="json"), indent=2)


def _print_verdict(verdict: Verdict, as_json: bool) -> None:
    if as_json:
        click.echo(_terminal_json(verdict))
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
    """A progress bar on stderr while the block runs (a line now and then where stderr is not a
    terminal); the block gets a function to advance it."""
    from rich.progress import (  # noqa: PLC0415
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from assay._render import ProgressLines, console  # noqa: PLC0415

    stderr = console(stderr=True)
    if not stderr.is_terminal:
        lines = ProgressLines(label, total)
        done = 0

        def advance() -> None:
            nonlocal done
            done += 1
            lines.show(done)

        with lines.ticking():
            yield advance
        return
    with Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr,
        transient=True,
    ) as progress:
        bar = progress.add_task(label, total=total)
        yield lambda: progress.advance(bar)


def main() -> None:
    """Entry point of the ``assay`` script."""
    cli()


__all__ = ["cli", "main"]
