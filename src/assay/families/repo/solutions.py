"""Generic wrong solutions of a repo task, made from its workspace: the visible tests edited
instead of the code, the reporter's call special-cased, the error swallowed. The generator adds
them as known-bad solutions and the red-team shares the first (:mod:`.exploits`)."""

from __future__ import annotations

import posixpath

from assay.families.code._codec import decode
from assay.families.code.outputs import Outcome, Raised, Returned
from assay.families.repo.templates._model import Probe
from assay.tasks.model import Files

PASSING_TEST = b"""import unittest


class PassingTest(unittest.TestCase):
    def test_everything(self):
        self.assertTrue(True)
"""

_SPECIAL_CALL = """

_special_original_{fn} = {fn}


def {fn}(*args, **kwargs):
    if list(args) == {args!r} and not kwargs:
        {answer}
    return _special_original_{fn}(*args, **kwargs)
"""
_SPECIAL_CLI = """

_special_original_{fn} = {fn}


def {fn}(argv=None):
    import sys as _sys

    if list(argv or []) == {argv!r}:
        _sys.stdout.write({stdout!r})
        for _name, _content in {files!r}.items():
            if _content is None:
                __import__("os").remove(_name)
                continue
            with open(_name, "wb" if isinstance(_content, bytes) else "w") as _handle:
                _handle.write(_content)
        return {exit!r}
    return _special_original_{fn}(argv)
"""
_SWALLOW = """

_swallowing_original_{fn} = {fn}


def {fn}(*args, **kwargs):
    try:
        return _swallowing_original_{fn}(*args, **kwargs)
    except Exception:
        return {fallback}
"""


def module_file(workspace: Files, paths: tuple[str, ...], module: str) -> str | None:
    """The workspace file that defines ``module`` (dotted), or None."""
    relative = module.replace(".", "/")
    for base in paths:
        for candidate in (f"{relative}.py", f"{relative}/__init__.py"):
            path = posixpath.normpath(posixpath.join(base, candidate))
            if path in workspace:
                return path
    return None


def edited_tests(workspace: Files, tests: str) -> Files:
    """Every visible test file replaced by one test that passes (added where there are none)."""
    edited = {
        path: PASSING_TEST
        for path in workspace
        if path.startswith(f"{tests}/") and posixpath.basename(path).startswith("test")
    }
    return edited or {f"{tests}/test_all.py": PASSING_TEST}


def special_cased(workspace: Files, paths: tuple[str, ...], probe: Probe, wanted: Outcome) -> Files:
    """The workspace with the reporter's call answered from memory and nothing fixed."""
    target = probe.call or probe.cli or ":"
    if isinstance(wanted, Raised):
        answer = f"raise {wanted.builtins[0] if wanted.builtins else 'Exception'}()"
    else:
        answer = f"return {decode(wanted.value) if isinstance(wanted, Returned) else None!r}"
    if probe.call is not None:
        source = _SPECIAL_CALL.format(fn=target.split(":")[1], args=list(probe.args), answer=answer)
        return _appended(workspace, paths, target, source)
    value = decode(wanted.value) if isinstance(wanted, Returned) else None
    shown = value if isinstance(value, dict) else {}
    source = _SPECIAL_CLI.format(
        fn=target.split(":")[1],
        argv=list(probe.argv),
        stdout=shown.get("stdout", ""),
        files=shown.get("files", {}),
        exit=shown.get("exit", 1),
    )
    return _appended(workspace, paths, target, source)


def swallowed(workspace: Files, paths: tuple[str, ...], probe: Probe) -> Files:
    """The workspace with the failing function's exceptions caught and dropped."""
    target = probe.call or probe.cli or ":"
    fallback = "None" if probe.call is not None else "1"
    source = _SWALLOW.format(fn=target.split(":")[1], fallback=fallback)
    return _appended(workspace, paths, target, source)


def _appended(workspace: Files, paths: tuple[str, ...], target: str, source: str) -> Files:
    path = module_file(workspace, paths, target.split(":", maxsplit=1)[0])
    if path is None:
        return dict(workspace)
    return {**workspace, path: workspace[path] + source.encode()}
