"""Commands under other conditions: the variables come first, and an isolated Python command
honours them without losing the rest of its isolation; the pool runs them on workers started
under them."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from assay.errors import SandboxError
from assay.sandbox import LocalSandbox, PoolSandbox
from assay.sandbox.conditions import ENV, WithEnvironment, environment_of, with_environment
from assay.sandbox.pool import CONDITIONED_SLOTS

SEED = {"PYTHONHASHSEED": "7"}


def test_isolated_python_keeps_its_isolation_but_not_the_ignored_environment() -> None:
    command = with_environment(["/usr/bin/python3", "-I", "-S", "-c", "code", "-I"], SEED)
    assert command == [
        ENV,
        "PYTHONHASHSEED=7",
        "/usr/bin/python3",
        "-s",
        "-P",
        "-S",
        "-c",
        "code",
        "-I",
    ]


def test_other_commands_are_only_prefixed() -> None:
    assert with_environment(["sh", "-c", "python -I x"], SEED) == [
        ENV,
        "PYTHONHASHSEED=7",
        "sh",
        "-c",
        "python -I x",
    ]
    assert with_environment(["python3", "-c", "x", "-I"], {}) == [ENV, "python3", "-c", "x", "-I"]


def test_the_environment_of_a_sandbox() -> None:
    plain = LocalSandbox()
    assert environment_of(plain) == {}
    wrapped = WithEnvironment(plain, SEED)
    assert environment_of(wrapped) == SEED
    assert environment_of(wrapped) is not wrapped.env  # a copy: the caller cannot change it


FLAKY = {"PYTHONHASHSEED": "2", "TZ": "Pacific/Kiritimati", "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
SHOW = (
    "import os, sys, time\n"
    "print(hash('assay'), os.environ.get('TZ'), time.tzname[0], sys.flags.isolated)\n"
    "print(sorted(os.listdir('/tmp')), sorted(os.listdir('.')))\n"
    "open('/tmp/left', 'w').write('x'); open('left', 'w').write('x')\n"
    "os.environ['TZ'] = 'UTC'; os.putenv('PYTHONHASHSEED', '9')\n"
)


def _fresh_hash(seed: str) -> str:
    code = "print(hash('assay'))"
    env = {"PYTHONHASHSEED": seed}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.mark.sandbox
def test_the_pool_runs_jobs_under_conditions_on_a_worker_started_under_them() -> None:
    """The hash seed a fresh interpreter would take, the time zone; one worker for the
    conditions, on a slot beyond the cap's; a job still leaves nothing to the next (it cannot
    change the conditions either), and a job without conditions never lands there."""
    with PoolSandbox(max_workers=1) as pool:
        varied = WithEnvironment(pool, FLAKY)
        command = [pool.python, "-I", "-S", "-c", SHOW]
        seen = [varied.run(command).stdout.split("\n") for _ in range(3)]
        assert pool.size == 1  # the three jobs on one worker
        plain = pool.run(command).stdout.split("\n")
        assert pool.size == 2  # the cap's one slot was still free
    for first, listing, _ in seen:
        assert first == f"{_fresh_hash('2')} Pacific/Kiritimati +14 0"
        assert listing == "[] []"  # nothing left by the job before
    assert plain[0].split()[1:] == ["None", "UTC", "1"]
    assert plain[0].split()[0] != _fresh_hash("2")


@pytest.mark.sandbox
def test_jobs_under_other_conditions_take_turns_on_the_conditions_slots() -> None:
    with PoolSandbox(max_workers=1) as pool:
        command = [pool.python, "-I", "-S", "-c", "import os; print(os.environ['TZ'])"]
        zones = [f"Etc/GMT+{n}" for n in range(CONDITIONED_SLOTS + 2)]
        for zone in zones:  # more sets of conditions than slots: the longest idle gives way
            assert WithEnvironment(pool, {"TZ": zone}).run(command).stdout.strip() == zone
            assert pool.size <= CONDITIONED_SLOTS
        assert pool.run([pool.python, "-I", "-S", "-c", "print(1)"]).stdout.strip() == "1"


@pytest.mark.sandbox
def test_conditions_within_conditions_all_hold(pool: PoolSandbox) -> None:
    inner = WithEnvironment(pool, {"TZ": "Etc/GMT+3"})
    both = WithEnvironment(inner, {"PYTHONHASHSEED": "4"})
    code = "import os; print(os.environ['TZ'], os.environ['PYTHONHASHSEED'], hash('assay'))"
    assert both.run([pool.python, "-I", "-S", "-c", code]).stdout.split() == [
        "Etc/GMT+3",
        "4",
        _fresh_hash("4"),
    ]


@pytest.mark.sandbox
def test_the_same_conditions_in_another_environment_get_a_worker_of_their_own() -> None:
    """One worker a set of conditions and Python environment: a job under conditions a worker
    of the standard library already holds, but with a package, neither waits for that worker
    (it would never serve the job) nor lands on it."""
    with PoolSandbox(max_workers=1) as pool:
        varied = WithEnvironment(pool, {"TZ": "Etc/GMT+5"})
        code = "import os, sys; print(os.environ['TZ'], 'yaml' in sys.modules)"
        command = [pool.python, "-I", "-S", "-c", code]
        assert varied.run(command).stdout.split() == ["Etc/GMT+5", "False"]
        got: list[str] = []
        job = threading.Thread(
            target=lambda: got.append(varied.run(command, packages=["pyyaml"]).stdout),
            daemon=True,
        )
        job.start()
        job.join(timeout=60)
        assert got, "the job under the same conditions with a package never ran"
        assert got[0].split() == ["Etc/GMT+5", "True"]  # a worker of its environment preloads it
        assert varied.run(command).stdout.split() == ["Etc/GMT+5", "False"]


BAD_CONDITIONS = [
    ({"A=B": "1"}, r"^condition name 'A=B' is empty or holds '=' or a NUL byte: name an "),
    ({"": "1"}, r"^condition name '' is empty or holds "),
    ({"A\0": "1"}, r"^condition name 'A\\x00' is empty or holds "),
    ({"TZ": "U\0TC"}, r"^condition TZ holds a NUL byte \('U\\x00TC'\): an environment value "),
    ({"TZ": "U\ud800"}, r"^condition 'TZ' holds a lone surrogate \('U\\ud800'\): give it as "),
    ({"T\udfffZ": "1"}, r"^condition 'T\\udfffZ' holds a lone surrogate \('1'\): give it as "),
]


@pytest.mark.sandbox
@pytest.mark.parametrize(("conditions", "message"), BAD_CONDITIONS)
def test_conditions_no_process_can_start_under_are_one_clear_error(
    pool: PoolSandbox, conditions: dict[str, str], message: str
) -> None:
    """A name with ``=`` or an empty one failed to start a worker ("Broken pipe"), a NUL
    byte was called a sandbox option's; on the local backend ``env`` read ``A=B=1`` as
    another variable. Each is now refused before anything starts, and the pool goes on."""
    command = [pool.python, "-I", "-S", "-c", "print(1)"]
    with pytest.raises(SandboxError, match=message):
        WithEnvironment(pool, conditions).run(command)
    with pytest.raises(SandboxError, match=message):
        WithEnvironment(LocalSandbox(), conditions).run(["true"])
    assert pool.run(command).stdout == "1\n"
