"""What a job can import: the standard library, and exactly the packages its run names.

A candidate that reaches for the host's installed packages (``sys.path`` tricks, walking the
filesystem for a site-packages, another interpreter with its ``site``) must find nothing. Each
attack has a control: the same code run on the host finds packages, so a pass means the sandbox
hid them, not that the attack was broken.
"""

from __future__ import annotations

import json
import site
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from assay.errors import InputError
from assay.sandbox import PACKAGES_DIR, Sandbox
from tests.sandbox.attacks._support import QUICK, output, py

pytestmark = pytest.mark.sandbox

FIND_PACKAGES = """
import importlib, json, os, sys
found = {}
for directory in {dirs!r}:
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        continue
    imported = []
    for name in names:
        module = name.removesuffix(".py")
        if not module.isidentifier() or module.startswith("_"):
            continue
        package = os.path.join(directory, name, "__init__.py")
        if not (name.endswith(".py") or os.path.exists(package)):
            continue
        sys.path.insert(0, directory)
        try:
            importlib.import_module(module)
            imported.append(module)
        except BaseException:
            pass
        finally:
            sys.path.remove(directory)
        if len(imported) >= 3:
            break
    found[directory] = {"entries": len(names), "imported": imported}
print("FOUND", json.dumps(found))
"""

WALK = """
import json, os
skip = {"/proc", "/sys", "/dev"}
found = []
for root in {roots!r}:
    for directory, subdirectories, files in os.walk(root):
        if directory in skip:
            subdirectories[:] = []
            continue
        for name in subdirectories:
            path = os.path.join(directory, name)
            try:
                if name in ("site-packages", "dist-packages") and os.listdir(path):
                    found.append(path)
            except OSError:
                pass
        for package in ("numpy", "pydantic", "hypothesis", "six.py", "yaml"):
            if package in subdirectories or package in files:
                if os.path.basename(directory) in ("site-packages", "dist-packages"):
                    found.append(os.path.join(directory, package))
print("FOUND", json.dumps(found))
"""

SITE_OF_EVERY_PYTHON = """
import json, os, subprocess, sys
probe = (
    "import json, os, sys; print(json.dumps([p for p in sys.path if 'packages' in p "
    "and os.path.isdir(p) and [n for n in os.listdir(p) if not n.endswith('.pth')]]))"
)
found = {}
for python in {pythons!r}:
    if os.path.exists(python):
        done = subprocess.run([python, "-c", probe], capture_output=True, text=True)
        found[python] = json.loads(done.stdout or "[]")
print("FOUND", json.dumps(found))
"""


def host_package_dirs() -> list[str]:
    """Package directories on this host: the interpreter's, the venv's, the system's."""
    candidates = {
        *site.getsitepackages(),
        sysconfig.get_paths()["purelib"],
        sysconfig.get_paths(vars={"base": sys.base_prefix})["purelib"],
        "/usr/lib/python3/dist-packages",
        f"/usr/local/lib/python3.{sys.version_info.minor}/dist-packages",
        f"/usr/lib/python3.{sys.version_info.minor}/site-packages",
    }
    return sorted(d for d in candidates if Path(d).is_dir())


def fill(template: str, **values: object) -> str:
    """``template`` with each ``{name!r}`` replaced by the value's repr."""
    for name, value in values.items():
        template = template.replace(f"{{{name}!r}}", repr(value))
    return template


def found(text: str) -> object:
    """The ``FOUND`` line an attack prints, decoded."""
    for line in text.splitlines():
        if line.startswith("FOUND "):
            return json.loads(line.removeprefix("FOUND "))
    raise AssertionError(f"no FOUND line in {text!r}")


def on_host(code: str) -> object:
    """The control: the same attack as a plain subprocess of the host."""
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return found(done.stdout)


def test_no_package_directory_of_the_host_can_be_imported_from(backend: Sandbox) -> None:
    code = fill(FIND_PACKAGES, dirs=host_package_dirs())
    control = on_host(code)
    assert isinstance(control, dict)
    assert any(seen["imported"] for seen in control.values()), control
    result = py(backend, code)
    seen = found(output(result))
    assert isinstance(seen, dict)
    assert {d: s for d, s in seen.items() if s["entries"] or s["imported"]} == {}


def test_walking_the_filesystem_finds_no_installed_package(backend: Sandbox) -> None:
    roots = ["/usr", sys.base_prefix, sys.prefix]
    assert on_host(fill(WALK, roots=roots)), "the host has no packages for this control"
    result = py(backend, fill(WALK, roots=["/"]), limits=QUICK.model_copy(update={"timeout_s": 30}))
    assert found(output(result)) == []


def test_no_python_in_the_sandbox_finds_a_package_through_site(backend: Sandbox) -> None:
    pythons = [backend.python, "/usr/bin/python3", "/usr/local/bin/python3", sys.executable]
    code = fill(SITE_OF_EVERY_PYTHON, pythons=pythons)
    control = on_host(code)
    assert isinstance(control, dict)
    assert any(control.values()), control
    seen = found(output(py(backend, code)))
    assert isinstance(seen, dict)
    assert seen, "no interpreter ran in the sandbox"
    assert {python: dirs for python, dirs in seen.items() if dirs} == {}


IMPORT_DECLARED = f"""
import importlib, json, os, sys
sys.path.append({PACKAGES_DIR!r})
results = {{}}
for name in ("pydantic", "pydantic_core", "typing_extensions", "hypothesis", "numpy", "six"):
    try:
        importlib.import_module(name)
        results[name] = True
    except ImportError:
        results[name] = False
from pydantic import BaseModel
class Point(BaseModel):
    x: int
results["validated"] = Point(x="3").x == 3
try:
    open({PACKAGES_DIR!r} + "/pydantic/planted.py", "w").write("x = 1")
    results["wrote"] = True
except OSError:
    results["wrote"] = False
try:
    open({PACKAGES_DIR!r} + "/planted.py", "w").write("x = 1")
    results["wrote"] = True
except OSError:
    pass
results["entries"] = sorted(os.listdir({PACKAGES_DIR!r}))
print("FOUND", json.dumps(results))
"""


def test_named_packages_and_their_requirements_only_read_only(backend: Sandbox) -> None:
    result = backend.run(
        [backend.python, "-I", "-S", "-c", IMPORT_DECLARED], limits=QUICK, packages=["pydantic"]
    )
    seen = found(output(result))
    assert isinstance(seen, dict)
    entries = seen.pop("entries")
    closure = ["annotated_types", "pydantic", "pydantic_core", "typing_inspection"]
    assert [e for e in entries if not e.endswith(".dist-info")] == sorted(
        [*closure, "typing_extensions.py"]
    )
    # Their metadata comes along, so that importlib.metadata works for them.
    dist_info = sorted(e.partition("-")[0] for e in entries if e.endswith(".dist-info"))
    assert dist_info == sorted([*closure, "typing_extensions"])
    assert seen == {
        "pydantic": True,
        "pydantic_core": True,
        "typing_extensions": True,
        "hypothesis": False,
        "numpy": False,
        "six": False,
        "validated": True,
        "wrote": False,
    }


def test_packages_of_one_run_are_not_in_the_next(backend: Sandbox) -> None:
    probe = f"""
    import sys
    sys.path.append({PACKAGES_DIR!r})
    for name in ("pydantic", "hypothesis"):
        try:
            __import__(name)
            print("IMPORTED", name)
        except ImportError:
            pass
    """
    with_pydantic = py_with(backend, probe, ["pydantic"])
    with_hypothesis = py_with(backend, probe, ["hypothesis"])
    with_nothing = py_with(backend, probe, [])
    assert "IMPORTED pydantic" in with_pydantic
    assert "IMPORTED hypothesis" not in with_pydantic
    assert "IMPORTED hypothesis" in with_hypothesis
    assert "IMPORTED pydantic" not in with_hypothesis
    assert "IMPORTED" not in with_nothing


def py_with(backend: Sandbox, code: str, packages: list[str]) -> str:
    result = backend.run(
        [backend.python, "-I", "-S", "-c", textwrap.dedent(code)],
        limits=QUICK,
        packages=packages,
    )
    assert result.exit_code == 0, result
    return result.stdout


@pytest.mark.parametrize("name", ["no-such-package-xyz", "json"])
def test_a_package_that_is_not_installed_is_refused(backend: Sandbox, name: str) -> None:
    with pytest.raises(InputError, match=repr(name)):
        backend.run([backend.python, "-I", "-S", "-c", "pass"], limits=QUICK, packages=[name])
