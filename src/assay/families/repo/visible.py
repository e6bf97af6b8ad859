"""Pass-to-pass probes read from a project's own visible tests.

What the project's tests assert is what its users were promised, and a fix that breaks any of it
is a wrong fix even where the change's own cases do not look. The tests cannot judge a candidate
themselves (they run beside it, and it can rewrite them), so each call a test makes becomes a
probe that the trusted harness makes and the trusted side judges.

The calls are found by running the tests on the correct project in the sandbox, with
:mod:`._recorder` noting each call a test module makes into a function it imports from the
project: written in a ``test*`` method, in ``setUp``, in a module-level constant or in a helper
of the test module, inside ``assertRaises`` or not, with arguments written as literals or built
by the test (``route(claim("auto", 100), self.config)`` is noted with the dict ``claim`` returns
and the rules ``load_rules`` read in ``setUp``), keyword arguments put in their places. Each is
noted with its arguments as plain data; a call whose arguments are not plain data (a
``datetime.date``) is left to the template's own probes. An argument that the project computed
(``self.config`` above) is the correct project's value, and the call that computed it is a probe
of its own, so a candidate that computes it differently fails there.

The generator runs the probes on the reference like any other, keeps those the workspace gets
right as pass-to-pass cases, and drops those whose outcome is not the one the test saw (a value
where the call raised in the test, or the other way round: a path that only exists beside the
tests).
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files as package_files

from assay._ast import ast_parse
from assay.errors import VerifierError
from assay.families._recent import Recent
from assay.families.code._codec import decode, encode
from assay.families.code.outputs import Returned
from assay.families.repo.cases import PASS_TO_PASS, Expect, RepoCase
from assay.families.repo.family import run_project
from assay.families.repo.templates._model import Probe
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files
from assay.tasks.spec import Limits

TESTS = "tests/"
RECORDER = "assay_visible_calls"
"""The module name :mod:`._recorder` runs under, in a copy of the correct project."""
_SOURCE = package_files("assay.families.repo").joinpath("_recorder.py").read_text("utf-8")
_FOUND: Recent[str, list[VisibleProbe]] = Recent(64)
"""The probes of each project, by the digest of its files and the run's settings."""


@dataclass(frozen=True)
class VisibleProbe:
    """A call a visible test makes, and whether it raised there."""

    probe: Probe
    raises: bool


def visible_probes(
    files: Files, sandbox: Sandbox, *, paths: Sequence[str], limits: Limits
) -> list[VisibleProbe]:
    """The calls the project's tests (``tests/**/test*.py``) make into the project, in the
    order the tests make them, each once. Raises :class:`VerifierError` when the tests cannot
    be run."""
    modules = test_modules(files)
    targets = sorted({target for path in modules.values() for target in imported(files[path])})
    if not targets:
        return []
    if f"{RECORDER}.py" in files:
        raise VerifierError(f"the project holds {RECORDER}.py, the name its tests are run under")
    digest = hashlib.sha256(json.dumps([list(paths), limits.model_dump()]).encode())
    for path in sorted(files):
        digest.update(f"\0{len(path)}:{path}\0{len(files[path])}:".encode())
        digest.update(files[path])
    key = digest.hexdigest()
    known = _FOUND.get(key)
    if known is None:
        known = _run(files, sandbox, [sorted(modules), targets], paths=paths, limits=limits)
        _FOUND.put(key, known)
    return list(known)


def test_modules(files: Files) -> dict[str, str]:
    """The project's test modules (``tests/**/test*.py``), by module name, to their paths."""
    found = {}
    for path in sorted(files):
        name = path.rsplit("/", 1)[-1]
        if path.startswith(TESTS) and name.startswith("test") and name.endswith(".py"):
            found[path[: -len(".py")].replace("/", ".")] = path
    return found


def imported(source: bytes) -> list[str]:
    """The names a test module imports from the project's modules, as ``package.module:name``
    targets (none where the module does not parse)."""
    try:
        tree = ast_parse(source.decode("utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return []
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if "." not in node.module or node.module.startswith("unittest"):
                continue  # a project's functions live in its package's modules
            names += [f"{node.module}:{alias.name}" for alias in node.names]
    return names


def _run(
    files: Files,
    sandbox: Sandbox,
    arguments: list[list[str]],
    *,
    paths: Sequence[str],
    limits: Limits,
) -> list[VisibleProbe]:
    """Run :func:`._recorder.record` with ``arguments`` (the test modules and the targets)."""
    case = RepoCase(
        id="visible-tests",
        kind=PASS_TO_PASS,
        call=f"{RECORDER}:record",
        args=encode(arguments),
        expect=Expect(),
    )
    project = {**files, f"{RECORDER}.py": _SOURCE.encode()}
    ran = run_project(sandbox, project, [case], paths=paths, limits=limits)
    outcome = ran.outcomes.get(case.id)
    if not isinstance(outcome, Returned):
        why = ran.tampered or outcome or ran.missing_reason()
        raise VerifierError(f"the project's visible tests could not be run: {why}")
    return _read(decode(outcome.value), set(arguments[1]))


def _read(calls: object, targets: set[str]) -> list[VisibleProbe]:
    """The probes of the recorder's ``[target, arguments, raised]`` records."""
    found: list[VisibleProbe] = []
    for call in calls if isinstance(calls, list) else []:
        if not (isinstance(call, list) and len(call) == 3):
            continue
        target, arguments, raised = call
        if target in targets and isinstance(arguments, list) and isinstance(raised, bool):
            found.append(VisibleProbe(Probe(call=target, args=tuple(arguments)), raised))
    return found
