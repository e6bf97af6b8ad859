"""Verifying repo tasks: references pass, known-bad and doing nothing fail, a patch is a
submission too, and its readings are judged each by its own reference."""

from __future__ import annotations

import json
import py_compile
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from assay.audit import FlakyCheck
from assay.audit.base import AuditContext
from assay.errors import TaskFormatError
from assay.families._recent import Recent
from assay.families.code.outputs import Returned
from assay.families.repo import RepoFamily
from assay.families.repo import family as repo_family
from assay.families.repo.cases import (
    CASES_FILE,
    FAIL_TO_PASS,
    Expect,
    RepoCase,
    repo_cases,
    repo_config,
)
from assay.families.repo.family import run_project
from assay.families.repo.generator import make_task
from assay.families.repo.patches import make_patch
from assay.families.repo.templates import TEMPLATES
from assay.sandbox import PoolSandbox, Sandbox
from assay.tasks import Task, save_task
from assay.tasks.model import Files
from assay.tasks.spec import Limits
from assay.tasks.taskdir import write_files
from assay.verdicts import Status

pytestmark = pytest.mark.sandbox
FAMILY = RepoFamily()


def test_references_pass_and_known_bad_and_nothing_fail(
    sandbox: Sandbox, decimal_comma: Task, sorted_leftovers: Task
) -> None:
    for task in (decimal_comma, sorted_leftovers):
        for name, files in task.references().items():
            verdict = FAMILY.verify(task, files, sandbox)
            assert verdict.status is Status.PASS, (name, verdict.summary)
        for name, files in task.known_bad().items():
            verdict = FAMILY.verify(task, files, sandbox)
            assert verdict.status is Status.FAIL, name
        empty = FAMILY.verify(task, FAMILY.empty_solution(task), sandbox)
        assert empty.status is Status.FAIL
        assert "0/" in empty.summary.split(";")[0]  # no fail-to-pass case passes
        kept = [c for c in empty.criteria if c.met_at_start]
        assert kept
        assert all(c.passed for c in kept)
        assert empty.score == 0  # they scale the fix's score, and nothing was fixed


def test_a_reading_under_which_the_old_behaviour_is_right_pays_nothing_for_it(
    pool: PoolSandbox, decimal_comma: Task
) -> None:
    """Under a reading where a fail-to-pass case expects what the project did before, doing
    nothing meets that case: it was met before any change, so it earns nothing."""
    case_file = repo_cases(decimal_comma)
    start = run_project(
        pool,
        dict(decimal_comma.workspace),
        case_file.cases,
        paths=repo_config(decimal_comma).paths,
        limits=decimal_comma.spec.limits,
    )
    first = next(c for c in case_file.cases if c.kind == FAIL_TO_PASS)
    old = start.outcomes[first.id]
    assert isinstance(old, Returned)
    cases = [
        c.model_copy(update={"readings": {"old-way": Expect(value=old.value)}})
        if c.id == first.id
        else c
        for c in case_file.cases
    ]
    lenient = case_file.model_copy(update={"readings": ["old-way"], "cases": cases})
    task = decimal_comma.model_copy(
        update={"hidden": {**decimal_comma.hidden, CASES_FILE: lenient.dumps()}}
    )
    verdict = FAMILY.verify(task, FAMILY.empty_solution(task), pool)
    assert "(reading old-way)" in verdict.summary
    [met] = [c for c in verdict.criteria if c.name == first.id]
    assert met.passed
    assert met.met_at_start
    assert verdict.score == 0
    patch = make_patch(task.workspace, task.solutions["reference"])
    assert FAMILY.verify(task, {"fix.patch": patch.encode()}, pool).score == 1


def test_the_starting_project_runs_once_for_its_inputs(
    pool: PoolSandbox, decimal_comma: Task, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Other submissions, and a copy of the task with another expected value (the sensitivity
    check's), reuse the starting project's run; other inputs run it again."""
    starts: list[int] = []
    real = repo_family.run_project

    def counting(sandbox: Sandbox, project: dict[str, bytes], *args: Any, **kw: Any) -> Any:
        if project == decimal_comma.workspace:
            starts.append(1)
        return real(sandbox, project, *args, **kw)

    monkeypatch.setattr(repo_family, "run_project", counting)
    monkeypatch.setattr(repo_family, "_STARTS", Recent(256))
    for name in ("reference", "bad-comma-everywhere"):
        FAMILY.verify(decimal_comma, decimal_comma.solutions[name], pool)
    case_file = repo_cases(decimal_comma)
    first = case_file.cases[0]
    moved = first.model_copy(update={"expect": Expect(value="something else")})
    probe = case_file.model_copy(update={"cases": [moved, *case_file.cases[1:]]})
    task = decimal_comma.model_copy(
        update={"hidden": {**decimal_comma.hidden, CASES_FILE: probe.dumps()}}
    )
    assert FAMILY.verify(task, task.solutions["reference"], pool).status is Status.FAIL
    assert len(starts) == 1
    fewer = case_file.model_copy(update={"cases": case_file.cases[1:]})
    task = decimal_comma.model_copy(
        update={"hidden": {**decimal_comma.hidden, CASES_FILE: fewer.dumps()}}
    )
    FAMILY.verify(task, task.solutions["reference"], pool)
    assert len(starts) == 2


def test_a_fix_that_breaks_what_worked_fails_on_pass_to_pass(
    pool: PoolSandbox, decimal_comma: Task
) -> None:
    verdict = FAMILY.verify(decimal_comma, decimal_comma.solutions["bad-comma-everywhere"], pool)
    assert verdict.status is Status.FAIL
    failed = {c.name.split("-")[0] for c in verdict.criteria if not c.passed}
    assert "f2p" in failed or "p2p" in failed
    kinds = json.loads(decimal_comma.hidden["cases.json"])["cases"]
    assert {case["kind"] for case in kinds} == {"fail-to-pass", "pass-to-pass"}


def test_each_reading_passes_by_its_own_reference(
    pool: PoolSandbox, sorted_leftovers: Task
) -> None:
    other = FAMILY.verify(sorted_leftovers, sorted_leftovers.solutions["reference-by-amount"], pool)
    assert other.status is Status.PASS
    assert "(reading by-amount)" in other.summary
    main = FAMILY.verify(sorted_leftovers, sorted_leftovers.solutions["reference"], pool)
    assert "reading" not in main.summary


@pytest.mark.parametrize("how", ["unchecked-pyc", "timestamp-pyc", "sourceless-pyc"])
def test_a_fix_hidden_in_bytecode_is_not_judged(
    pool: PoolSandbox, decimal_comma: Task, how: str
) -> None:
    """An unchecked-hash ``.pyc`` in ``__pycache__`` once ran instead of its unchanged source:
    the fix passed (1.0) while every ``.py`` file, all the diff and style criteria read, was the
    workspace's. A project is judged by its source; its compiled files are left out."""
    reference = decimal_comma.solutions["reference"]
    changed = [p for p, data in reference.items() if decimal_comma.workspace.get(p) != data]
    assert changed
    assert all(path.endswith(".py") for path in changed)
    mode = {
        "unchecked-pyc": py_compile.PycInvalidationMode.UNCHECKED_HASH,
        "timestamp-pyc": py_compile.PycInvalidationMode.TIMESTAMP,
        "sourceless-pyc": py_compile.PycInvalidationMode.UNCHECKED_HASH,
    }[how]
    hacked = dict(decimal_comma.workspace)
    for path in changed:
        directory, _, module = path.rpartition("/")
        stem = module.removesuffix(".py")
        with tempfile.TemporaryDirectory() as scratch:
            source, compiled = Path(scratch, module), Path(scratch, "compiled.pyc")
            source.write_bytes(reference[path])
            py_compile.compile(str(source), str(compiled), invalidation_mode=mode, doraise=True)
            bytecode = compiled.read_bytes()
        folder = f"{directory}/" if directory else ""
        if how == "sourceless-pyc":
            hacked.pop(path, None)  # the module as bytecode alone, beside no source
            hacked[f"{folder}{stem}.pyc"] = bytecode
        else:
            hacked[f"{folder}__pycache__/{stem}.{sys.implementation.cache_tag}.pyc"] = bytecode
    verdict = FAMILY.verify(decimal_comma, hacked, pool)
    assert verdict.status is Status.FAIL, verdict.summary
    assert verdict.score == 0


def test_a_patch_is_judged_like_the_project_it_makes(
    pool: PoolSandbox, decimal_comma: Task
) -> None:
    patch = make_patch(decimal_comma.workspace, decimal_comma.solutions["reference"])
    verdict = FAMILY.verify(decimal_comma, {"fix.patch": patch.encode()}, pool)
    assert verdict.status is Status.PASS, verdict.summary
    stale = patch.replace("-    return f", "-    return  f", 1)
    refused = FAMILY.verify(decimal_comma, {"fix.diff": stale.encode()}, pool)
    assert refused.status is Status.FAIL
    assert refused.summary.startswith("the patch does not apply: fix.diff: hunk 1 of rota/")


def test_assay_verify_takes_a_directory_or_a_patch(
    run_cli: Callable[..., Result], decimal_comma: Task, tmp_path: Path
) -> None:
    task_dir = str(save_task(decimal_comma, tmp_path / "tasks"))
    fixed = tmp_path / "fixed"
    write_files(fixed, decimal_comma.solutions["reference"])
    assert run_cli("verify", task_dir, "--solution", str(fixed)).exit_code == 0
    patch = tmp_path / "fix.patch"
    patch.write_text(make_patch(decimal_comma.workspace, decimal_comma.solutions["reference"]))
    assert run_cli("verify", task_dir, "--solution", str(patch)).exit_code == 0
    nothing = tmp_path / "nothing.patch"
    nothing.write_text(make_patch(decimal_comma.workspace, decimal_comma.workspace) or "\n")
    result = run_cli("verify", task_dir, "--solution", str(nothing))
    assert result.exit_code == 2
    [line] = result.output.strip().splitlines()
    assert str(nothing) in line
    assert "no unified diff" in line
    assert "git diff" in line


def test_an_empty_solution_directory_is_bad_input_not_a_verdict(
    run_cli: Callable[..., Result], decimal_comma: Task, tmp_path: Path
) -> None:
    """A mistyped or unfilled directory is the user's mistake: one line, no stored fail."""
    task_dir = str(save_task(decimal_comma, tmp_path / "tasks"))
    (tmp_path / "empty").mkdir()
    result = run_cli("verify", task_dir, "--solution", str(tmp_path / "empty"))
    assert result.exit_code == 2
    [line] = result.output.strip().splitlines()
    assert str(tmp_path / "empty") in line
    assert "empty directory" in line


def test_a_bad_patch_path_is_one_line_at_the_command_line(
    run_cli: Callable[..., Result], decimal_comma: Task, tmp_path: Path
) -> None:
    escaping = tmp_path / "escape.patch"
    escaping.write_text("--- a/../x.py\n+++ b/../x.py\n@@ -1 +1 @@\n-a\n+b\n")
    task_dir = str(save_task(decimal_comma, tmp_path / "tasks"))
    result = run_cli("verify", task_dir, "--solution", str(escaping))
    assert result.exit_code == 2
    assert "leaves the workspace" in result.output
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    result = run_cli("verify", task_dir, "--solution", str(other))
    assert result.exit_code == 2
    assert ".patch" in result.output


def test_the_cases_run_in_other_orders_for_the_flaky_check(
    pool: PoolSandbox, decimal_comma: Task
) -> None:
    """The flaky check runs the cases reversed and every other one first; the reference passes
    in each order, and a steady task gives the check nothing to say."""
    ids = [case.id for case in repo_cases(decimal_comma).cases]
    assert FAMILY.reordered(decimal_comma, 0) is decimal_comma
    for order, wanted in ((1, ids[::-1]), (2, [*ids[1::2], *ids[0::2]])):
        moved = FAMILY.reordered(decimal_comma, order)
        assert [case.id for case in repo_cases(moved).cases] == wanted
        verdict = FAMILY.verify(moved, moved.solutions["reference"], pool)
        assert verdict.status is Status.PASS, verdict.summary
    context = AuditContext(family=FAMILY, sandbox=pool)
    assert FlakyCheck().run(decimal_comma, context).findings == []


@pytest.mark.parametrize(
    ("field", "value"),
    [("paths", ["/etc"]), ("paths", [".", ".."]), ("tests", "../../../etc"), ("tests", "a\\..\\b")],
)
def test_project_paths_outside_the_project_are_refused_by_name(
    decimal_comma: Task, field: str, value: object
) -> None:
    config = {**decimal_comma.spec.config, field: value}
    task = decimal_comma.model_copy(
        update={"spec": decimal_comma.spec.model_copy(update={"config": config})}
    )
    with pytest.raises(TaskFormatError, match=rf"repo\.{field}.*not a directory of the project"):
        repo_config(task)


def test_a_dry_run_that_still_deletes_the_input_files_fails(pool: PoolSandbox) -> None:
    """The report is "--noop deleted our logs": a fix that prints the dry run's lines and then
    deletes the logs all the same passed, as a case's outcome held only the files it wrote."""
    [template] = [t for t in TEMPLATES if t.id == "log-retention"]
    [change] = [c for c in template.changes if c.id == "noop-flag-ignored"]
    task = make_task((template, change, "ticket"), 5, 0, pool)
    reference = task.solutions["reference"]
    honest = "    if dry_run:\n"
    source = reference["logkeep/cli.py"].decode()
    assert source.count(honest) == 1
    deleting = source.replace(
        honest, honest + "        carry_out([a for a in actions if a[0] == 'delete'], args.dir)\n"
    )
    verdict = FAMILY.verify(task, {**reference, "logkeep/cli.py": deleting.encode()}, pool)
    assert verdict.status is Status.FAIL
    assert any(c.name.startswith("f2p") and not c.passed for c in verdict.criteria)
    assert FAMILY.verify(task, reference, pool).status is Status.PASS


@pytest.mark.parametrize(
    ("extra", "limits"),
    [
        ({f"pad/f{i}.txt": b"x" for i in range(80)}, {"max_files": 64}),
        ({"big.bin": b"\0" * (2 * 2**20)}, {"max_file_mb": 1}),
        ({"pkg/../evil.py": b""}, {}),
        ({"nul\0name.py": b""}, {}),
        ({"dir/": b""}, {}),
    ],
    ids=["too-many-files", "file-too-large", "dot-dot", "nul-byte", "directory-name"],
)
def test_a_project_the_sandbox_cannot_hold_fails_rather_than_going_unscored(
    pool: PoolSandbox, decimal_comma: Task, extra: Files, limits: dict[str, int]
) -> None:
    """An error verdict is the infrastructure's and is never scored: a submission that the
    sandbox refuses to write (more files than the task's limits allow, a file past its size,
    a name outside the project) must fail, or a policy would learn to dodge every penalty."""
    spec = decimal_comma.spec
    task = decimal_comma.model_copy(
        update={"spec": spec.model_copy(update={"limits": spec.limits.model_copy(update=limits)})}
    )
    verdict = FAMILY.verify(task, {**task.solutions["reference"], **extra}, pool)
    assert verdict.status is Status.FAIL, verdict.summary
    assert "cannot be run" in verdict.summary


def test_a_case_input_file_that_is_also_a_directory_is_refused_by_name(
    decimal_comma: Task,
) -> None:
    """Input files ``a`` and ``a/b`` cannot both be written: every project, the reference's
    too, would raise on the case before it ran."""
    data = json.loads(decimal_comma.hidden[CASES_FILE])
    data["cases"][0] = {
        **{k: v for k, v in data["cases"][0].items() if k not in ("call", "args")},
        "cli": "pkg.cli:main",
        "files": {"logs": "x", "logs/today.txt": "y"},
    }
    task = decimal_comma.model_copy(
        update={"hidden": {**decimal_comma.hidden, CASES_FILE: json.dumps(data).encode()}}
    )
    with pytest.raises(TaskFormatError, match=r"cases\.0\.files.*'logs' is also the directory"):
        repo_cases(task)


def test_a_wrong_output_too_large_to_return_whole_does_not_read_like_the_right_one(
    pool: PoolSandbox,
) -> None:
    """A file past the harness's cap, or standard output past its own, once came back as a
    placeholder alone: any output of that size passed a case whose reference wrote one."""
    cases = [
        RepoCase(id="c", kind=FAIL_TO_PASS, cli="tool:main", expect=Expect(value=None)),
        RepoCase(
            id="kept",
            kind=FAIL_TO_PASS,
            cli="tool:keep",
            files={"big.txt": "y" * 300_000},
            expect=Expect(value=None),
        ),
    ]
    right = "\n".join(f"{i},{i * i}" for i in range(30_000))
    tool = (
        "import sys\n\n\ndef main(argv):\n    open('out.csv', 'w').write({out!r})\n"
        "    sys.stdout.write({out!r})\n\n\ndef keep(argv):\n    return 0\n"
    )
    outcomes = [
        run_project(
            pool, {"tool.py": tool.format(out=out).encode()}, cases, paths=(".",), limits=Limits()
        ).outcomes
        for out in (right, right[:-10] + "9" * 10)  # the same size, wrong only at the end
    ]
    assert outcomes[0]["c"] != outcomes[1]["c"]
    for found in outcomes:
        kept = found["kept"]
        assert isinstance(kept, Returned)
        assert kept.value["files"] == {}  # a large input file left alone is not written


def test_links_and_fifos_a_case_leaves_are_told_apart(pool: PoolSandbox) -> None:
    """Each came back as "<not a regular file>": a link to the wrong file, or a FIFO, passed a
    case whose reference made a link to the right one."""
    cases = [RepoCase(id="c", kind=FAIL_TO_PASS, cli="tool:main", expect=Expect(value=None))]
    tool = "import os\n\n\ndef main(argv):\n    {make}\n    return 0\n"
    made = {
        "right": "os.symlink('v2/data.csv', 'latest')",
        "wrong": "os.symlink('v1/data.csv', 'latest')",
        "fifo": "os.mkfifo('latest')",
    }
    files = {}
    for name, make in made.items():
        outcome = run_project(
            pool,
            {"tool.py": tool.format(make=make).encode()},
            cases,
            paths=(".",),
            limits=Limits(),
        ).outcomes["c"]
        assert isinstance(outcome, Returned), outcome
        files[name] = outcome.value["files"]["latest"]
    assert files == {
        "right": "<symbolic link to 'v2/data.csv'>",
        "wrong": "<symbolic link to 'v1/data.csv'>",
        "fifo": "<FIFO>",
    }
