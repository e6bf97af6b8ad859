"""assay import terminal-bench: Terminal-Bench and Harbor task directories, read and linted."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from assay.audit import Decision, run_audit, select_checks
from assay.errors import ContainerRequiredError, InputError
from assay.families import get_family
from assay.families.terminal.family import terminal_config
from assay.families.terminal.importers import import_task_dirs
from assay.families.terminal.lint import lint_terminal_task
from assay.sandbox import Sandbox
from assay.tasks import TaskSet

TASK_YAML = """\
instruction: |-
  Write a script /app/count.sh that prints the number of lines of /app/data.txt.
author_name: A. Author
author_email: author@example.org
difficulty: medium
category: file-operations
tags:
  - bash
  - coreutils
parser_name: pytest
max_agent_timeout_sec: 360.0
max_test_timeout_sec: 60.0
run_tests_in_same_shell: false
"""

DOCKERFILE = """\
FROM ghcr.io/laude-institute/t-bench/ubuntu-24-04:20250624
WORKDIR /app
COPY data.txt /app/data.txt
"""

RUN_TESTS = """\
#!/bin/bash
source $TEST_DIR/setup-uv-pytest.sh
bash $TEST_DIR/run-uv-pytest.sh
"""

TEST_OUTPUTS = """\
import subprocess

def test_count():
    out = subprocess.run(["bash", "/app/count.sh"], capture_output=True, text=True).stdout
    assert out.strip() == "3"
"""

TASK_TOML = """\
version = "1.0"

[metadata]
author_name = "B. Author"
author_email = "b@example.org"
difficulty = "hard"
category = "system-administration"
tags = ["nginx", "networking"]
expert_time_estimate_min = 20.0

[verifier]
timeout_sec = 900.0

[agent]
timeout_sec = 1800.0

[environment]
build_timeout_sec = 600.0
cpus = 1
memory_mb = 2048
storage_mb = 10240
"""

TEST_SH = """\
#!/bin/bash
apt-get update && apt-get install -y curl
curl -LsSf https://astral.sh/uv/0.7.13/install.sh | sh
uvx -p 3.13 -w pytest==8.4.1 pytest /tests/test_outputs.py
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt
else echo 0 > /logs/verifier/reward.txt; fi
"""


def _terminal_bench(root: Path, name: str = "count-lines", task_yaml: str = TASK_YAML) -> Path:
    task = root / name
    (task / "tests").mkdir(parents=True)
    (task / "task.yaml").write_text(task_yaml)
    (task / "Dockerfile").write_text(DOCKERFILE)
    (task / "docker-compose.yaml").write_text(
        "services:\n  client:\n    build:\n      dockerfile: Dockerfile\n"
    )
    (task / "data.txt").write_text("a\nb\nc\n")
    (task / "run-tests.sh").write_text(RUN_TESTS)
    (task / "tests" / "test_outputs.py").write_text(TEST_OUTPUTS)
    (task / "solution.sh").write_text("#!/bin/bash\necho 'wc -l < /app/data.txt' > /app/count.sh\n")
    return task


def _harbor(
    root: Path, name: str = "fix-nginx", dockerfile: str = "FROM nginx\nCOPY tests /tests\n"
) -> Path:
    task = root / name
    for part in ("environment", "solution", "tests"):
        (task / part).mkdir(parents=True)
    (task / "task.toml").write_text(TASK_TOML)
    (task / "instruction.md").write_text("# Fix nginx\n\nMake nginx serve /srv on port 8080.\n")
    (task / "environment" / "Dockerfile").write_text(dockerfile)
    (task / "solution" / "solve.sh").write_text(
        "#!/bin/bash\nsed -i s/80/8080/ /etc/nginx/nginx.conf\n"
    )
    (task / "tests" / "test.sh").write_text(TEST_SH)
    (task / "tests" / "test_outputs.py").write_text("def test_port():\n    assert True\n")
    return task


def test_a_terminal_bench_directory_keeps_its_metadata_and_files(tmp_path: Path) -> None:
    [task] = import_task_dirs(_terminal_bench(tmp_path))
    config = terminal_config(task)
    assert task.id == "count-lines"
    assert task.family == "terminal"
    assert task.spec.difficulty == "medium"
    assert task.spec.tags == ("terminal-bench", "file-operations", "bash", "coreutils")
    assert (config.agent_timeout_s, config.verifier_timeout_s) == (360.0, 60.0)
    assert (config.author, config.parser_name) == ("A. Author", "pytest")
    assert task.prompt.startswith("Write a script /app/count.sh")
    assert set(task.workspace) == {"Dockerfile", "docker-compose.yaml", "data.txt"}
    assert set(task.hidden) == {"run-tests.sh", "tests/test_outputs.py"}
    assert set(task.solutions["reference"]) == {"solve.sh"}
    assert get_family("terminal").lint(task) == []


def test_a_harbor_directory_keeps_its_metadata_and_lint_finds_its_faults(tmp_path: Path) -> None:
    tasks = import_task_dirs(_harbor(tmp_path))
    [task] = tasks
    config = terminal_config(task)
    assert task.spec.tags == ("harbor", "system-administration", "nginx", "networking")
    assert task.spec.difficulty == "hard"
    assert (config.agent_timeout_s, config.verifier_timeout_s) == (1800.0, 900.0)
    assert config.environment == {
        "build_timeout_sec": 600.0,
        "cpus": 1,
        "memory_mb": 2048,
        "storage_mb": 10240,
    }
    assert task.prompt.startswith("# Fix nginx")
    messages = {(f.severity.value, f.message) for f in get_family("terminal").lint(task)}
    assert messages == {
        ("warning", "Dockerfile's base image nginx is not pinned (give a version tag or digest)"),
        (
            "error",
            "Dockerfile copies tests into the image: the agent can read the tests or the solution",
        ),
        (
            "warning",
            "hidden/tests/test.sh installs or downloads at verification time (apt-get install, "
            "curl): it needs the network then, and what it gets can change",
        ),
    }


def test_verifying_says_in_one_line_that_a_container_backend_is_needed(
    tmp_path: Path, pool: Sandbox
) -> None:
    [task] = import_task_dirs(_terminal_bench(tmp_path))
    family = get_family("terminal")
    with pytest.raises(ContainerRequiredError) as raised:
        family.verify(task, task.solutions["reference"], pool)
    assert "needs a container backend" in str(raised.value)
    assert "\n" not in str(raised.value)


def test_the_static_audit_runs_and_the_cli_imports_both_formats(
    tmp_path: Path, pool: Sandbox, run_cli: Callable[..., Result]
) -> None:
    source = tmp_path / "source"
    _terminal_bench(source)
    _harbor(source, dockerfile="FROM nginx:1.27.0\n")
    out = tmp_path / "tasks"
    result = run_cli("import", "terminal-bench", str(source), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "wrote 2 tasks" in result.output
    taskset = TaskSet.load(out)
    report = run_audit(taskset, pool, checks=select_checks("lint,duplicates"))
    assert {t.task_id: t.decision for t in report.tasks} == {
        "count-lines": Decision.ACCEPTED,
        "fix-nginx": Decision.ACCEPTED,
    }
    solution = out / "count-lines" / "solutions" / "reference"
    verified = run_cli("verify", str(out / "count-lines"), "--solution", str(solution))
    full = run_audit(taskset, pool)
    for audit in full.tasks:
        assert audit.decision is Decision.QUARANTINED, audit.findings
        assert any("needs a container backend" in f.message and f.review for f in audit.findings)
    assert verified.exit_code == 3, verified.output
    assert "needs a container backend" in verified.output


DEEP = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize(
    ("task_yaml", "message"),
    [
        ("author_name: x\n", "task.yaml: instruction: is missing or empty (give the task's"),
        ("instruction: [1, 2]\n", "task.yaml: instruction: is not text"),
        ("instruction: 'x\n", "task.yaml: is not YAML at line"),
        ("- a\n", "task.yaml: is not a mapping"),
        ("instruction: x\nmax_test_timeout_sec: soon\n", "max_test_timeout_sec: is 'soon'"),
        ("instruction: x\nmax_agent_timeout_sec: .nan\n", "max_agent_timeout_sec: is nan"),
        ("instruction: x\nmax_agent_timeout_sec: .inf\n", "max_agent_timeout_sec: is inf"),
        ("instruction: x\ntags: bash\n", "task.yaml: tags: is not a list of text"),
        (f"instruction: x\nextra: {DEEP}\n", "task.yaml: nests too deeply to be read"),
        ("instruction: x\ncreated: 2021-13-45\n", "task.yaml: holds a value that cannot be read"),
        ("instruction: x\nn: !!int abc\n", "task.yaml: holds a value that cannot be read"),
        ("instruction: x\nt: !!timestamp abc\n", "task.yaml: holds a value that cannot be read"),
    ],
)
def test_a_malformed_task_yaml_is_one_line_naming_file_and_field(
    tmp_path: Path, task_yaml: str, message: str
) -> None:
    _terminal_bench(tmp_path, task_yaml=task_yaml)
    with pytest.raises(InputError) as raised:
        import_task_dirs(tmp_path)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_harbor_task_without_instruction_or_with_bad_toml_is_named(tmp_path: Path) -> None:
    task = _harbor(tmp_path)
    (task / "instruction.md").unlink()
    with pytest.raises(InputError, match=r"instruction\.md: is missing"):
        import_task_dirs(tmp_path)
    (task / "instruction.md").write_text("x")
    (task / "task.toml").write_text("[agent\n")
    with pytest.raises(InputError, match=r"task\.toml: is not TOML"):
        import_task_dirs(tmp_path)


def test_a_directory_with_no_task_is_named(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="holds no Terminal-Bench or Harbor task"):
        import_task_dirs(tmp_path)


def test_an_instruction_linked_to_a_file_outside_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the host's secret\n")
    task = _harbor(tmp_path / "tasks")
    (task / "instruction.md").unlink()
    (task / "instruction.md").symlink_to(secret)
    with pytest.raises(InputError, match=r"instruction\.md: is a symbolic link"):
        import_task_dirs(tmp_path / "tasks")


@pytest.mark.parametrize(
    "line",
    [
        'COPY ["tests", "/tests"]',
        "COPY app.py tests/ /app/",
        "ADD --chown=1000:1000 ./solution.sh /opt/",
        "copy run-tests.sh /",
        "COPY --chown=1000 \\\n    app.py \\\n    tests /app/",  # continued over lines
    ],
)
def test_lint_finds_the_tests_copied_in_every_form_of_copy(line: str, tmp_path: Path) -> None:
    _harbor(tmp_path, dockerfile=f"FROM nginx:1.27\n{line}\n")
    [task] = import_task_dirs(tmp_path)
    assert any("copies" in f.message for f in lint_terminal_task(task)), line


def test_lint_takes_linear_time_on_a_dockerfile_of_blank_lines(tmp_path: Path) -> None:
    """A pattern starting a line with ``\\s*`` ran on over all the blank lines after each one:
    the square of 100,000 lines, which would hold an audit for many minutes."""
    _harbor(tmp_path, dockerfile="FROM nginx:1.27\n" + "\n" * 100_000 + "COPY tests /t\n")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from assay.families.terminal.importers import import_task_dirs\n"
        "from assay.families.terminal.lint import lint_terminal_task\n"
        "[task] = import_task_dirs(Path(sys.argv[1]))\n"
        "print(*[f.message for f in lint_terminal_task(task)], sep='\\n')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-500:]
    assert "Dockerfile copies tests into the image" in done.stdout


def test_lint_lets_the_workspace_be_copied(tmp_path: Path) -> None:
    """The imported task's workspace, its build context, holds no tests: copying it is fine."""
    _harbor(tmp_path, dockerfile="FROM nginx:1.27\nCOPY . /app\nCOPY testsuite.txt /x\n")
    [task] = import_task_dirs(tmp_path)
    assert not any("copies" in f.message for f in lint_terminal_task(task))


@pytest.mark.parametrize(
    ("harbor", "service"),
    [
        (False, "    volumes:\n      - ${LOGS}:/logs\n      - ./tests:/tests:ro\n"),
        (
            False,
            "    volumes:\n      - type: bind\n        source: solution.sh\n        target: /s\n",
        ),
        (True, "    build:\n      context: ..\n"),
        (True, "    volumes: ['../tests:/opt/tests']\n"),
    ],
)
def test_lint_finds_the_tests_mounted_or_built_in_by_a_compose_file(
    harbor: bool, service: str, tmp_path: Path
) -> None:
    task = (
        _harbor(tmp_path, dockerfile="FROM nginx:1.27\n") if harbor else _terminal_bench(tmp_path)
    )
    compose = (task / "environment" if harbor else task) / "docker-compose.yaml"
    compose.write_text(f"services:\n  client:\n{service}")
    [imported] = import_task_dirs(tmp_path)
    errors = [f.message for f in lint_terminal_task(imported) if f.severity.value == "error"]
    assert len(errors) == 1, errors
    assert errors[0].startswith("docker-compose.yaml gives service 'client' the path ")
    assert errors[0].endswith(": the agent can read the tests or the solution")


def test_lint_lets_a_compose_file_mount_its_own_files_and_logs(tmp_path: Path) -> None:
    task = _terminal_bench(tmp_path)
    (task / "docker-compose.yaml").write_text(
        "services:\n  client:\n    build:\n      context: .\n    volumes:\n"
        "      - ${T_BENCH_TASK_LOGS_PATH}:/logs\n      - ./data.txt:/app/data.txt\n"
        "      - cache:/cache\n      - tests:/var/tests\n"  # a named volume, not ./tests
    )
    [imported] = import_task_dirs(tmp_path)
    assert not [f for f in lint_terminal_task(imported) if "docker-compose" in f.message]


def test_a_file_too_large_to_read_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("assay.tasks.taskdir.MAX_FILE_BYTES", 1000)
    task = _harbor(tmp_path)
    (task / "environment" / "data.bin").write_bytes(b"x" * 5000)
    with pytest.raises(InputError, match=r"environment/data\.bin: is larger than 1,000 bytes"):
        import_task_dirs(tmp_path)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (f"deep = {DEEP}\n", "task.toml: nests too deeply to be read"),
        ("big = " + "9" * 5000 + "\n", "task.toml: holds a value that cannot be read"),
    ],
)
def test_a_harbor_toml_the_parser_cannot_build_is_named(
    tmp_path: Path, extra: str, message: str
) -> None:
    task = _harbor(tmp_path)
    (task / "task.toml").write_text(extra + TASK_TOML)
    with pytest.raises(InputError) as raised:
        import_task_dirs(tmp_path)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_task_directory_linked_from_outside_is_refused(tmp_path: Path) -> None:
    outside = _harbor(tmp_path / "elsewhere")
    _terminal_bench(tmp_path / "tasks")
    (tmp_path / "tasks" / "fix-nginx").symlink_to(outside, target_is_directory=True)
    with pytest.raises(InputError, match=r"tasks/fix-nginx: is a symbolic link"):
        import_task_dirs(tmp_path / "tasks")


def test_a_byte_order_mark_is_not_part_of_task_toml_or_the_instruction(tmp_path: Path) -> None:
    """Editors on Windows begin UTF-8 files with one; TOML's parser took it for a statement."""
    task = _harbor(tmp_path)
    (task / "task.toml").write_text("\ufeff" + TASK_TOML)
    (task / "instruction.md").write_text("\ufeff# Fix nginx\n")
    [imported] = import_task_dirs(task)
    assert imported.spec.difficulty == "hard"
    assert imported.prompt == "# Fix nginx\n"


def test_harbor_tags_that_are_not_a_list_name_metadata_tags(tmp_path: Path) -> None:
    task = _harbor(tmp_path)
    (task / "task.toml").write_text(
        TASK_TOML.replace('tags = ["nginx", "networking"]', 'tags = "nginx"')
    )
    with pytest.raises(InputError, match=r"task\.toml: metadata\.tags: is not a list of text"):
        import_task_dirs(task)


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("difficulty: 3", "difficulty"),
        ("category: [networking, web]", "category"),
        ("author_name: 42", "author_name"),
        ("author_email: {name: x}", "author_email"),
        ("parser_name: true", "parser_name"),
    ],
)
def test_a_terminal_bench_label_that_is_not_text_names_its_field(
    tmp_path: Path, line: str, field: str
) -> None:
    """Left out, the setting would be lost without a word (a difficulty of 3 became none)."""
    _terminal_bench(tmp_path, task_yaml=f"instruction: Count the lines.\n{line}\n")
    with pytest.raises(InputError) as raised:
        import_task_dirs(tmp_path)
    message = str(raised.value)
    assert f"task.yaml: {field}: is " in message
    assert "not text" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ('category = "system-administration"', "category = 5", "metadata.category"),
        ('difficulty = "hard"', "difficulty = true", "metadata.difficulty"),
        ("cpus = 1", "docker_image = 5\ncpus = 1", "environment.docker_image"),
        ("cpus = 1", "cpus = nan", "environment.cpus"),
        ("memory_mb = 2048", "memory_mb = inf", "environment.memory_mb"),
    ],
)
def test_a_harbor_setting_of_the_wrong_type_names_its_field(
    tmp_path: Path, old: str, new: str, field: str
) -> None:
    """An image named by a number was dropped, and lint then said no image was named."""
    task = _harbor(tmp_path)
    (task / "task.toml").write_text(TASK_TOML.replace(old, new))
    with pytest.raises(InputError) as raised:
        import_task_dirs(task)
    message = str(raised.value)
    assert f"task.toml: {field}: is " in message
    assert "\n" not in message


def test_settings_harbor_gives_as_lists_still_import(tmp_path: Path) -> None:
    task = _harbor(tmp_path)
    (task / "task.toml").write_text(TASK_TOML + 'gpu_types = ["H100"]\nallow_internet = false\n')
    [imported] = import_task_dirs(task)
    assert terminal_config(imported).environment["allow_internet"] is False


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('instruction: "Count the lines \\ud83d of data.txt."', "instruction"),
        ('instruction: x\ncategory: "files \\udc00"', "category"),
        ('instruction: x\ntags: [ok, "b\\ud800"]', "tags[1]"),
    ],
)
def test_half_of_a_utf16_pair_is_one_line_naming_the_field(
    tmp_path: Path, line: str, field: str
) -> None:
    """YAML's escapes can write it and no file can hold it: the task could not be written."""
    _terminal_bench(tmp_path, task_yaml=line + "\n")
    with pytest.raises(InputError) as raised:
        import_task_dirs(tmp_path)
    message = str(raised.value)
    assert f"task.yaml: {field}: holds half of a UTF-16 pair" in message
    assert "\n" not in message


def test_a_utf16_pair_written_as_escapes_is_the_character_it_stands_for(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    """PyYAML reads "\\ud83d\\ude00" as two halves; the task holds the one character."""
    task_yaml = 'instruction: "Print \\ud83d\\ude00 when done."\ntags: ["\\ud83d\\ude80"]\n'
    source = _terminal_bench(tmp_path / "source", task_yaml=task_yaml)
    result = run_cli("import", "terminal-bench", str(source), "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    [task] = TaskSet.load(tmp_path / "out")
    assert task.prompt == "Print \U0001f600 when done.\n"
    assert "\U0001f680" in task.spec.tags


def test_a_copy_nested_past_the_stack_is_linted_not_blamed_on_assay(tmp_path: Path) -> None:
    """The task's own Dockerfile made lint raise, and the audit called it an infrastructure
    error (audit again) instead of a finding about the task."""
    _harbor(tmp_path, dockerfile="FROM nginx:1.27\nCOPY " + "[" * 100_000 + "\nCOPY tests /t\n")
    [task] = import_task_dirs(tmp_path)
    assert any("copies tests" in f.message for f in lint_terminal_task(task))


@pytest.mark.parametrize(
    ("dockerfile", "compose"),
    [
        ("COPY . /app\n", ""),
        ("COPY ./ /app/\n", ""),
        ("COPY *.sh /app/\n", ""),  # run-tests.sh and solution.sh
        ('COPY ["t*", "/opt/"]\n', ""),
        ("", "    volumes:\n      - .:/app\n"),
        ("", "    volumes:\n      - ./.:/app:ro\n"),
        ("", "    volumes:\n      - type: bind\n        source: ./\n        target: /app\n"),
    ],
)
def test_lint_finds_a_terminal_bench_task_directory_copied_or_mounted_whole(
    dockerfile: str, compose: str, tmp_path: Path
) -> None:
    """A Terminal-Bench task's build context and compose directory is the task directory, which
    holds tests/, run-tests.sh and solution.sh: copying or mounting it whole, or by a pattern
    matching them, shows the agent the tests and the solution (it passed lint)."""
    task = _terminal_bench(tmp_path)
    (task / "Dockerfile").write_text(DOCKERFILE + dockerfile)
    (task / "docker-compose.yaml").write_text(
        "services:\n  client:\n    build:\n      dockerfile: Dockerfile\n" + compose
    )
    [imported] = import_task_dirs(tmp_path)
    errors = [f.message for f in lint_terminal_task(imported) if f.severity.value == "error"]
    assert len(errors) == 1, errors
    assert errors[0].endswith(": the agent can read the tests or the solution")
    assert "tests" in errors[0]


@pytest.mark.parametrize(
    "dockerignore",
    ["tests\nrun-tests.sh\nsolution.sh\n", "/tests/\n*.sh\n!app.sh\n", "*\n!data.txt\n"],
)
def test_lint_lets_a_terminal_bench_task_copy_its_directory_past_a_dockerignore(
    dockerignore: str, tmp_path: Path
) -> None:
    task = _terminal_bench(tmp_path)
    (task / "Dockerfile").write_text(DOCKERFILE + "COPY . /app\n")
    (task / ".dockerignore").write_text(dockerignore)
    [imported] = import_task_dirs(tmp_path)
    assert not [f for f in lint_terminal_task(imported) if f.severity.value == "error"]


@pytest.mark.parametrize(
    ("dockerfile", "dockerignore"),
    [
        ("FROM golang:1.22 AS build\n" + DOCKERFILE + "COPY --from=build /out/tool /bin/\n", ""),
        (DOCKERFILE + "COPY --chown=1000 --from=build . /opt/\n", ""),  # another stage's root
        (DOCKERFILE + "COPY /data.txt /app/\n", ""),  # the context's data.txt
        (DOCKERFILE + "COPY . /app\n", "**/tests\n**/*.sh\n"),
        (DOCKERFILE + "COPY . /app\n", "./tests/\n/./run-tests.sh\nsolution.*\n"),
    ],
)
def test_lint_lets_a_sound_terminal_bench_build_copy_what_is_no_test(
    dockerfile: str, dockerignore: str, tmp_path: Path
) -> None:
    """A multi-stage build's COPY --from=build /out/tool, a COPY /data.txt (a file of the
    context), and a .dockerignore leaving the tests out as **/tests were each called a copy of
    the whole task directory: a lint error that rejected a sound task."""
    task = _terminal_bench(tmp_path)
    (task / "Dockerfile").write_text(dockerfile)
    if dockerignore:
        (task / ".dockerignore").write_text(dockerignore)
    [imported] = import_task_dirs(tmp_path)
    assert not [f.message for f in lint_terminal_task(imported) if f.severity.value == "error"]


@pytest.mark.parametrize(
    "dockerignore",
    [
        "*\n!data.txt\n!tests/test_outputs.py\n",
        "*\n!data.txt\n!**/test_outputs.py\n",
        "tests\n*.sh\n!tests/*.py\n",
    ],
)
def test_lint_finds_a_test_file_a_dockerignore_takes_back_in(
    dockerignore: str, tmp_path: Path
) -> None:
    """Docker copies a file that a ``!`` pattern takes back in from a directory left out, and
    lint called tests/ left out whole: the agent had tests/test_outputs.py, and lint was clean."""
    task = _terminal_bench(tmp_path)
    (task / "Dockerfile").write_text(DOCKERFILE + "COPY . /app\n")
    (task / ".dockerignore").write_text(dockerignore)
    [imported] = import_task_dirs(tmp_path)
    [error] = [f.message for f in lint_terminal_task(imported) if f.severity.value == "error"]
    assert "(the whole task directory, with tests)" in error


@pytest.mark.parametrize(
    "dockerignore",
    ["tests/test_outputs.py\n*.sh\n", "*\n!tests\ntests/*.py\n", "t[e]st?/\nsolution.sh\nrun-*\n"],
)
def test_lint_lets_a_dockerignore_leave_out_every_test_file(
    dockerignore: str, tmp_path: Path
) -> None:
    """A .dockerignore leaving out each file of tests/ (the directory itself copied empty)."""
    task = _terminal_bench(tmp_path)
    (task / "Dockerfile").write_text(DOCKERFILE + "COPY . /app\n")
    (task / ".dockerignore").write_text(dockerignore)
    [imported] = import_task_dirs(tmp_path)
    assert not [f.message for f in lint_terminal_task(imported) if f.severity.value == "error"]


@pytest.mark.parametrize(
    ("dockerfile", "dockerignore"),
    [
        ("COPY solution.yaml /app/\n", ""),
        ("COPY *.yaml /app/\n", ""),
        ("COPY . /app\n", "tests\n*.sh\n"),
    ],
)
def test_lint_finds_a_solution_yaml_copied_in(
    dockerfile: str, dockerignore: str, tmp_path: Path
) -> None:
    """A Terminal-Bench task may give its solution as solution.yaml (the oracle's commands)
    instead of solution.sh: the import dropped it, so lint never knew it was there, and a
    Dockerfile copying it in, even by name, linted clean."""
    task = _terminal_bench(tmp_path)
    (task / "solution.sh").unlink()
    (task / "solution.yaml").write_text("- command: echo 'wc -l < /app/data.txt' > /app/c.sh\n")
    (task / "Dockerfile").write_text(DOCKERFILE + dockerfile)
    if dockerignore:
        (task / ".dockerignore").write_text(dockerignore)
    [imported] = import_task_dirs(tmp_path)
    assert "solution.yaml" not in imported.workspace
    [error] = [f.message for f in lint_terminal_task(imported) if f.severity.value == "error"]
    assert "solution.yaml" in error


def test_lint_finds_the_tests_copied_by_an_absolute_source(tmp_path: Path) -> None:
    """``COPY /tests /tests`` copies the context's tests/, as ``COPY tests /tests`` does."""
    _harbor(tmp_path, dockerfile="FROM nginx:1.27\nCOPY /tests /tests\n")
    [task] = import_task_dirs(tmp_path)
    assert any("copies tests" in f.message for f in lint_terminal_task(task))


def test_lint_still_finds_what_a_dockerignore_takes_back_in(tmp_path: Path) -> None:
    task = _terminal_bench(tmp_path)
    (task / "Dockerfile").write_text(DOCKERFILE + "COPY . /app\n")
    (task / ".dockerignore").write_text("tests\n*.sh\n!solution.sh\n")
    [imported] = import_task_dirs(tmp_path)
    [error] = [f.message for f in lint_terminal_task(imported) if f.severity.value == "error"]
    assert "with solution.sh)" in error


@pytest.mark.parametrize(
    ("head", "key"),
    [
        ("instruction: Print hello.\n", "instruction"),  # the one a reader of the file sees
        ("tags: [safe]\n", "tags"),
        ("descriptions:\n  - key: base\n    key: other\n    description: x\n", "key"),
    ],
)
def test_a_task_yaml_giving_a_key_twice_is_one_line_naming_the_key(
    head: str, key: str, tmp_path: Path
) -> None:
    """PyYAML keeps a repeated key's last value silently: a task.yaml whose first instruction
    is the one reviewed imported the second."""
    _terminal_bench(tmp_path, task_yaml=head + TASK_YAML)
    line = rf"task\.yaml: {key}: gives the key '{key}' twice \(again at line \d+\)"
    with pytest.raises(InputError, match=line + r" \(keep one of them\)$"):
        import_task_dirs(tmp_path)


def test_keys_merged_in_may_be_given_again(tmp_path: Path) -> None:
    """A ``<<`` merge's keys are overridden by the mapping's own, as YAML means them."""
    merged = "defaults: &defaults\n  difficulty: easy\n  category: misc\n"
    _terminal_bench(tmp_path, task_yaml=merged + "<<: *defaults\n" + TASK_YAML)
    [task] = import_task_dirs(tmp_path)
    assert terminal_config(task).difficulty == "medium"


def test_a_terminal_bench_task_may_leave_run_tests_to_the_benchmark(tmp_path: Path) -> None:
    """run-tests.sh is optional in Terminal-Bench: without it the benchmark runs its default,
    pytest on tests/test_outputs.py. Lint called such a task's test script missing, an error
    that rejected a sound task; a task with neither is still refused."""
    task = _terminal_bench(tmp_path)
    (task / "run-tests.sh").unlink()
    [imported] = import_task_dirs(tmp_path)
    assert not [f for f in lint_terminal_task(imported) if f.severity.value == "error"]
    (task / "tests" / "test_outputs.py").unlink()
    (task / "tests" / "helpers.py").write_text("X = 1\n")
    [imported] = import_task_dirs(tmp_path)
    errors = [f.message for f in lint_terminal_task(imported) if f.severity.value == "error"]
    assert errors == ["hidden/run-tests.sh (the test script) is missing"]
