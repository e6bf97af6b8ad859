"""Task directories: round trips, content versions, and one clear line for every malformation."""

from __future__ import annotations

import string
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.errors import InputError, TaskFormatError
from assay.tasks import Limits, Split, Task, TaskSet, TaskSpec, load_task, save_task
from assay.tasks.taskdir import SavedTasks, save_tasks
from tests.conftest import make_median_task

names = st.text(string.ascii_lowercase + string.digits + "_-", min_size=1, max_size=12)
rel_paths = st.lists(names, min_size=1, max_size=3).map("/".join)
file_sets = st.dictionaries(rel_paths, st.binary(max_size=64), max_size=4).filter(
    lambda files: not any(a != b and (b.startswith(a + "/")) for a in files for b in files)
)
json_scalars = st.one_of(st.integers(-1000, 1000), st.booleans(), names)
specs = st.builds(
    TaskSpec,
    id=st.from_regex(r"[a-z0-9][a-z0-9._-]{0,20}", fullmatch=True),
    family=st.sampled_from(["code", "other"]),
    split=st.sampled_from(list(Split)),
    tags=st.lists(names, max_size=3).map(tuple),
    locale=st.none() | st.sampled_from(["en-US", "de-DE"]),
    difficulty=st.none() | st.sampled_from(["easy", "medium", "hard"]),
    limits=st.builds(Limits, timeout_s=st.floats(0.5, 100), memory_mb=st.integers(16, 4096)),
    config=st.dictionaries(
        st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True), json_scalars, max_size=3
    ),
)
tasks = st.builds(
    Task,
    spec=specs,
    prompt=st.text(min_size=1, max_size=200).filter(lambda s: s.strip() and "\r" not in s),
    workspace=file_sets,
    hidden=file_sets,
    solutions=st.dictionaries(
        st.sampled_from(["reference", "reference-alt", "bad-off-by-one", "bad-x"]),
        file_sets,
        max_size=3,
    ),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(task=tasks)
def test_save_then_load_round_trips(task: Task, tmp_path_factory: pytest.TempPathFactory) -> None:
    root = tmp_path_factory.mktemp("tasks")
    loaded = load_task(save_task(task, root))
    assert loaded == task
    assert loaded.content_version("code@1") == task.content_version("code@1")


def test_saving_again_replaces_the_task_whole(tmp_path: Path) -> None:
    task = make_median_task()
    save_task(task, tmp_path)
    smaller = task.model_copy(update={"solutions": {"reference": task.solutions["reference"]}})
    with pytest.raises(InputError, match="does not hold this task; nothing was written"):
        save_task(smaller, tmp_path)
    assert load_task(tmp_path / task.id) == task
    assert load_task(save_task(smaller, tmp_path, replace=True)).solutions.keys() == {"reference"}
    assert [p.name for p in tmp_path.iterdir()] == [task.id]


def test_saving_never_replaces_files_that_are_not_the_tasks(tmp_path: Path) -> None:
    task = make_median_task()
    directory = save_task(task, tmp_path)
    (directory / "notes.txt").write_text("mine")
    assert save_task(task, tmp_path) == directory, "the same task is left as it is"
    assert (directory / "notes.txt").read_text() == "mine"
    changed = task.model_copy(update={"prompt": "Something else about median.\n"})
    with pytest.raises(InputError, match="not part of a task, so it is not replaced"):
        save_task(changed, tmp_path, replace=True)
    assert (directory / "notes.txt").read_text() == "mine"
    assert load_task(directory) == task

    foreign = tmp_path / "median-2"
    foreign.mkdir()
    (foreign / "data.csv").write_text("1,2\n")
    for replace in (False, True):
        with pytest.raises(InputError, match="median-2"):
            save_task(make_median_task("median-2"), tmp_path, replace=replace)
    assert [p.name for p in foreign.iterdir()] == ["data.csv"]


def test_saving_a_set_writes_all_or_nothing(tmp_path: Path) -> None:
    tasks = [make_median_task(f"median-{i}") for i in range(3)]
    assert save_tasks(tasks[:1], tmp_path) == SavedTasks(written=1, unchanged=0)
    (tmp_path / "median-2").mkdir()
    (tmp_path / "median-2" / "mine.txt").write_text("mine")
    with pytest.raises(InputError, match="median-2: already exists"):
        save_tasks(tasks, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["median-0", "median-2"]
    (tmp_path / "median-2" / "mine.txt").unlink()
    (tmp_path / "median-2").rmdir()
    assert save_tasks(tasks, tmp_path) == SavedTasks(written=2, unchanged=1)


_FULL_DISK = """
import resource, signal, sys
from pathlib import Path
from assay.errors import InputError
from assay.tasks.taskdir import save_tasks
from tests.conftest import make_median_task

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a file past the limit fails to grow: EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (2**20, 2**20))
small = make_median_task("median-1")
big = make_median_task("median-2")
big = big.model_copy(update={"hidden": big.hidden | {"data.bin": bytes(2 * 2**20)}})
try:
    save_tasks([small, big], Path(sys.argv[1]))
except InputError as exc:
    print(exc)
"""


def test_a_set_that_cannot_be_written_whole_is_one_line_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    out = tmp_path / "tasks"
    printed = subprocess.run(
        [sys.executable, "-c", _FULL_DISK, str(out)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[2],
    ).stdout
    assert printed.startswith(f"{out}: cannot write the tasks: File too large")
    assert list(out.iterdir()) == []


def test_content_version_is_stable_and_covers_every_part() -> None:
    task = make_median_task()
    version = task.content_version("code@1")
    assert version == make_median_task().content_version("code@1")
    changed = [
        task.model_copy(update={"prompt": task.prompt + "!"}),
        task.model_copy(update={"hidden": {"cases.json": b"{}"}}),
        task.model_copy(update={"workspace": {"data.txt": b"1"}}),
        task.model_copy(update={"solutions": {"reference": {"solution.py": b"x"}}}),
        task.model_copy(update={"spec": task.spec.model_copy(update={"split": Split.FROZEN})}),
    ]
    versions = {version, task.content_version("code@2")} | {
        t.content_version("code@1") for t in changed
    }
    assert len(versions) == 7


@pytest.fixture
def task_dir(tmp_path: Path) -> Path:
    return save_task(make_median_task(), tmp_path)


def test_missing_prompt_names_the_file(task_dir: Path) -> None:
    (task_dir / "prompt.md").unlink()
    with pytest.raises(TaskFormatError, match=r"prompt\.md: file is missing"):
        load_task(task_dir)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("id = [unclosed", r"task\.toml: not valid TOML"),
        ('family = "code"', r"task\.toml: id: required field is missing"),
        ('id = "Has Spaces"\nfamily = "code"', r"task\.toml: id: String should match pattern"),
        ('id = "x"\nfamily = "code"\ncolour = "red"', r"task\.toml: colour: unknown field"),
        ('id = "x"\nfamily = "code"\n[limits]\ntimeout_s = -1', r"task\.toml: limits\.timeout_s:"),
        ('id = "x"\nfamily = "code"\nsplit = "holdout"', r"task\.toml: split:"),
    ],
)
def test_malformed_task_toml_names_file_and_field(task_dir: Path, toml: str, message: str) -> None:
    (task_dir / "task.toml").write_text(toml)
    with pytest.raises(TaskFormatError, match=message) as caught:
        load_task(task_dir)
    assert "\n" not in str(caught.value)


def test_symlinks_are_refused(task_dir: Path) -> None:
    (task_dir / "workspace").mkdir(exist_ok=True)
    (task_dir / "workspace" / "answers").symlink_to(task_dir / "hidden" / "cases.json")
    with pytest.raises(TaskFormatError, match="symbolic links are not allowed"):
        load_task(task_dir)


def test_unknown_solution_directory_is_refused(task_dir: Path) -> None:
    (task_dir / "solutions" / "attempt1").mkdir()
    with pytest.raises(TaskFormatError, match="reference, reference-<label> or bad-<label>"):
        load_task(task_dir)


def test_several_references_are_all_kept(tmp_path: Path) -> None:
    task = make_median_task()
    task = task.model_copy(
        update={"solutions": {**task.solutions, "reference-alt": task.solutions["reference"]}}
    )
    loaded = load_task(save_task(task, tmp_path))
    assert list(loaded.references()) == ["reference", "reference-alt"]
    assert list(loaded.known_bad()) == ["bad-unsorted"]


def test_taskset_keeps_broken_tasks_apart(tmp_path: Path) -> None:
    save_task(make_median_task("a"), tmp_path)
    broken = save_task(make_median_task("b"), tmp_path)
    (broken / "prompt.md").unlink()
    duplicate = save_task(make_median_task("c"), tmp_path)
    (duplicate / "task.toml").write_text(
        (duplicate / "task.toml").read_text().replace('"c"', '"a"')
    )
    taskset = TaskSet.load(tmp_path)
    assert [t.id for t in taskset] == ["a"]
    assert sorted(f.path.name for f in taskset.failures) == ["b", "c"]
    assert "another task in the set has this id" in str(taskset.failures[1].error)


def test_taskset_of_a_missing_or_empty_directory_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(TaskFormatError, match="no such directory"):
        TaskSet.load(tmp_path / "nope")
    with pytest.raises(TaskFormatError, match="holds no tasks"):
        TaskSet.load(tmp_path)


@pytest.mark.parametrize("name", ["prompt.md", "task.toml"])
def test_a_prompt_or_spec_linked_outside_the_task_is_refused(
    task_dir: Path, tmp_path: Path, name: str
) -> None:
    outside = tmp_path / "host-secret.txt"
    outside.write_bytes((task_dir / name).read_bytes())  # readable, and even well-formed
    (task_dir / name).unlink()
    (task_dir / name).symlink_to(outside)
    with pytest.raises(TaskFormatError, match=f"{name}: symbolic links are not allowed"):
        load_task(task_dir)


@pytest.mark.parametrize("inside", ["workspace", "hidden", "solutions/reference", "workspace/d"])
def test_a_file_name_that_is_not_utf8_is_refused_by_name(tmp_path: Path, inside: str) -> None:
    """Such a name loaded as a lone surrogate and broke the content version: the audit said
    assay failed ("audit again") where the task is at fault."""
    root = save_task(make_median_task(), tmp_path / "tasks")
    (root / inside).mkdir(parents=True, exist_ok=True)
    (root / inside / "report\udcff.txt").write_bytes(b"x")
    with pytest.raises(TaskFormatError) as caught:
        load_task(root)
    message = str(caught.value)
    assert message.encode()  # the line itself prints anywhere
    assert f"{inside}: holds a file named 'report\\xff.txt', which is not UTF-8" in message
    assert "rename it in UTF-8" in message


def test_two_different_tasks_of_one_id_are_refused_as_such_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    first, second = make_median_task("dup"), make_median_task("dup", tags=("edited",))
    with pytest.raises(InputError) as caught:
        save_tasks([make_median_task("fine"), first, second], tmp_path / "out")
    assert str(caught.value) == (
        f"{tmp_path / 'out' / 'dup'}: id: two different tasks to be saved have the id 'dup'; "
        "nothing was written (give every task a unique id)"
    )
    assert list((tmp_path / "out").glob("*")) == []
    saved = save_tasks([first, first], tmp_path / "twice")
    assert saved == SavedTasks(written=1, unchanged=0)
    assert load_task(tmp_path / "twice" / "dup") == first


@pytest.mark.parametrize(
    ("workspace", "solutions", "problem"),
    [
        ({"./a.txt": b"x"}, {}, r'file path "workspace/\./a\.txt" that would not load back'),
        ({"a//b.txt": b"x"}, {}, r'file path "workspace/a//b\.txt" that would not load back'),
        ({"a/": b"x"}, {}, r'file path "workspace/a/" that would not load back'),
        ({"": b"x"}, {}, r'file path "workspace/" that would not load back'),
        ({"a\x00b": b"x"}, {}, r'file path "workspace/a\\u0000b" that would not load back'),
        ({"\udcff": b"x"}, {}, r'file path "workspace/\\udcff" that would not load back'),
        ({"a": b"x", "a/b": b"y"}, {}, r'has "workspace/a" both as a file and as a directory'),
        ({}, {"mine": {"f.py": b"x"}}, r'solution named "mine", which a task directory cannot'),
    ],
)
def test_a_task_that_would_not_load_back_as_it_is_is_not_saved(
    tmp_path: Path,
    workspace: dict[str, bytes],
    solutions: dict[str, dict[str, bytes]],
    problem: str,
) -> None:
    # Saved, each became another task (its content version changed without a word) or one that
    # does not load; a NUL or a file that is also a directory was a traceback.
    task = make_median_task("odd").model_copy(
        update={"workspace": workspace, "solutions": solutions}
    )
    with pytest.raises(TaskFormatError, match=problem) as caught:
        save_task(task, tmp_path / "out")
    assert "\n" not in str(caught.value)
    with pytest.raises(InputError, match=problem):
        save_tasks([make_median_task("fine"), task], tmp_path / "set")
    assert list(tmp_path.glob("*/*")) == []


def test_a_replacement_that_cannot_be_moved_in_puts_the_old_task_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = make_median_task("m")
    target = save_task(old, tmp_path)
    moved = Path.rename

    def failing(self: Path, destination: Path) -> Path:
        if Path(destination) == target and ".old." not in str(self):  # the new task moving in
            raise OSError(28, "No space left on device")
        return moved(self, destination)

    monkeypatch.setattr(Path, "rename", failing)
    with pytest.raises(OSError, match="No space left"):
        save_task(make_median_task("m", tags=("new",)), tmp_path, replace=True)
    monkeypatch.undo()
    assert load_task(target) == old
    assert [p.name for p in tmp_path.iterdir()] == ["m"]  # nothing hidden left beside it
