"""Commands under other conditions: the variables come first, and an isolated Python command
honours them without losing the rest of its isolation."""

from __future__ import annotations

from assay.sandbox import LocalSandbox
from assay.sandbox.conditions import ENV, WithEnvironment, environment_of, with_environment

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
