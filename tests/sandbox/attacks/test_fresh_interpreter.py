"""The same Python program gets the same result on every backend.

The pool runs ``python -I -S -c CODE`` in a fork of its worker, whose interpreter was started
that way, instead of a new interpreter. A command that asks for anything else must not take
that path, and one that takes it must see what a new interpreter would: else a program passes
on one backend and fails on the other, or turns its failure into the sandbox's ("sandbox setup
failed", status 126).
"""

from __future__ import annotations

import pytest

from assay.sandbox import ExecResult, Sandbox
from assay.tasks import Limits
from tests.sandbox.attacks._support import QUICK, TOKEN

pytestmark = pytest.mark.sandbox


def python(
    backend: Sandbox, flags: list[str], code: str, limits: Limits = QUICK, **files: bytes
) -> ExecResult:
    """``python FLAGS -c CODE`` in the sandbox, with ``files`` in its working directory."""
    command = [backend.python, *flags, "-c", f"{code}\n# {TOKEN}"]
    return backend.run(
        command, files={f"{name}.py": data for name, data in files.items()}, limits=limits
    )


def test_without_isolation_the_working_directory_and_site_are_there(backend: Sandbox) -> None:
    """``python -c`` puts its working directory first on ``sys.path``, and without ``-S`` the
    builtins of ``site`` (``exit``) are there: the pool ran both in its isolated worker."""
    imported = python(backend, [], "import helper; print(helper.X)", helper=b"X = 1\n")
    assert (imported.exit_code, imported.stdout) == (0, "1\n"), imported
    exited = python(backend, ["-I"], "exit(3)")
    assert (exited.exit_code, exited.stderr) == (3, ""), exited
    isolated = python(backend, ["-I", "-S"], "import helper", helper=b"X = 1\n")
    assert isolated.exit_code == 1
    assert "ModuleNotFoundError: No module named 'helper'" in isolated.stderr


def test_a_program_that_does_not_compile_fails_as_itself(backend: Sandbox) -> None:
    """A syntax error is the program's failure, status 1 with the error shown as ``python -c``
    shows it; the pool reported it as its own set-up failing (status 126)."""
    result = python(backend, ["-I", "-S"], "answer = (")
    assert result.exit_code == 1, result
    assert result.stderr.endswith("SyntaxError: '(' was never closed\n"), result.stderr
    assert "sandbox" not in result.stderr


def test_unbuffered_output_is_kept_when_the_deadline_stops_the_program(backend: Sandbox) -> None:
    """With ``-u`` each print is written at once: what a program printed before its deadline
    is in its result, where the pool's buffered streams lost it."""
    limits = QUICK.model_copy(update={"timeout_s": 1.0})
    code = "import time\nprint('progress')\ntime.sleep(30)"
    result = python(backend, ["-u", "-I", "-S"], code, limits)
    assert result.timed_out, result
    assert result.stdout == "progress\n", result


def test_without_bytecode_a_program_writes_none(backend: Sandbox) -> None:
    """With ``-B`` an interpreter writes no ``__pycache__`` for what it imports; the pool ran
    it in its worker, whose ``-I`` ignores the environment's PYTHONDONTWRITEBYTECODE, and the
    program found one in its working directory that it never finds on a new interpreter."""
    code = (
        "import os, sys\nsys.path.insert(0, '.')\nimport helper\n"
        "print(sys.dont_write_bytecode, sys.flags.dont_write_bytecode, sorted(os.listdir('.')))"
    )
    result = python(backend, ["-I", "-S", "-B"], code, helper=b"X = 1\n")
    assert (result.exit_code, result.stdout) == (0, "True 1 ['helper.py']\n"), result
    written = python(backend, ["-I", "-S"], code, helper=b"X = 1\n")
    assert written.stdout == "False 0 ['__pycache__', 'helper.py']\n", written


FAILING_TESTS = """
import unittest

class Answer(unittest.TestCase):
    def test_answer(self):
        self.assertEqual(6 * 7, 41)

unittest.main()
"""


def test_a_program_that_finds_itself_through_main_finds_its_own_definitions(
    backend: Sandbox,
) -> None:
    """``unittest.main()`` looks for tests in ``sys.modules["__main__"]``, which on the pool
    was its worker: a failing test was never run, and the program passed ("Ran 0 tests, OK").
    Pickle and doctest look there too."""
    tests = python(backend, ["-I", "-S"], FAILING_TESTS)
    assert tests.exit_code == 1, tests
    assert "Ran 1 test" in tests.stderr, tests
    assert "FAILED (failures=1)" in tests.stderr, tests
    code = (
        "import pickle, sys\nclass Point:\n    pass\n"
        "print(pickle.loads(pickle.dumps(Point())).__class__ is Point)\n"
        "print(sys.modules['__main__'].__dict__ is globals(), sorted(globals()))"
    )
    found = python(backend, ["-I", "-S"], code)
    names = ["Point", "__annotations__", "__builtins__", "__doc__", "__loader__", "__name__"]
    names += ["__package__", "__spec__", "pickle", "sys"]
    assert found.stdout == f"True\nTrue {sorted(names)}\n", found


def test_a_program_sees_its_own_command_line(backend: Sandbox) -> None:
    """``sys.orig_argv`` is the command the interpreter was started with: on the pool's fast
    path it was its worker's, the worker's whole source among it."""
    code = "import sys; print(sys.orig_argv[1:4], sys.orig_argv[5:], len(sys.orig_argv[4]))"
    result = backend.run([backend.python, "-I", "-S", "-c", code, "a1"], limits=QUICK)
    assert result.stdout == f"['-I', '-S', '-c'] ['a1'] {len(code)}\n", result
