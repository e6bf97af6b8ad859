"""Static checks of a terminal task, as Harbor's lint does them, with no container run.

Errors: no test script (a Terminal-Bench task may have none of its own when it has
``tests/test_outputs.py``, which the benchmark's default script runs), no container (neither a
Dockerfile, a compose file nor an image), the image build copying the tests or the solution in,
or a compose file mounting them or building from around them (the agent would see them). A
Terminal-Bench task's build context is its own directory, which holds ``tests/``,
``run-tests.sh`` and ``solution.sh``: there a ``COPY . /app`` (or a pattern such as ``*.sh``)
copies them in unless ``.dockerignore`` leaves out every file of them, and a volume ``.:/app``
mounts them; a Harbor task's context, ``environment/``, holds none of them. Warnings: a base
image without a pinned tag or digest, packages installed without pinned versions, and a test
script that installs or downloads at verification time (network then, and a moving target).
"""

from __future__ import annotations

import fnmatch
import json
import posixpath
import re
import shlex
from typing import Any

import yaml

from assay.errors import TaskFormatError
from assay.families.terminal.family import terminal_config
from assay.findings import Finding, Severity
from assay.tasks.model import Task

CHECK = "lint"
CONTAINER_FILES = ("Dockerfile", "docker-compose.yaml", "docker-compose.yml")
DEFAULT_TESTS = "tests/test_outputs.py"
"""What Terminal-Bench's own ``run-tests.sh`` runs for a task that has none (it is optional)."""
_FROM = re.compile(r"^[ \t]*FROM[ \t]+(?:--platform=\S+[ \t]+)?(\S+)", re.IGNORECASE | re.MULTILINE)
_COPY = re.compile(r"^[ \t]*(?:COPY|ADD)[ \t]+(.*)$", re.IGNORECASE | re.MULTILINE)
"""Within one line: ``\\s*`` after ``^`` would run on over every blank line after each one, a
time the square of a Dockerfile's blank lines."""
_CONTINUED = re.compile(r"\\[ \t]*\r?\n")
"""A backslash ending a line: the instruction goes on on the next (``COPY \\`` then ``tests``)."""
_HIDDEN_SOURCES = ("tests", "solution", "solution.sh", "solution.yaml", "run-tests.sh")
_PIP = re.compile(r"pip3?\s+install\s+([^&|;\n]+)")
_NETWORK = re.compile(r"\b(curl|wget|pip3?\s+install|uv\s+pip\s+install|apt(?:-get)?\s+install)\b")


def lint_terminal_task(task: Task) -> list[Finding]:
    """Findings about a terminal task's parts; empty when it is sound."""
    try:
        config = terminal_config(task)
    except TaskFormatError as exc:
        return [_finding(Severity.ERROR, str(exc))]
    findings: list[Finding] = []
    if config.test_command not in task.hidden and not _default_tests(config.source, task):
        findings.append(
            _finding(Severity.ERROR, f"hidden/{config.test_command} (the test script) is missing")
        )
    containers = [name for name in CONTAINER_FILES if name in task.workspace]
    if not containers and config.image is None:
        findings.append(
            _finding(
                Severity.ERROR,
                "no container: workspace/ has no Dockerfile or docker-compose.yaml, and no image "
                "is named",
            )
        )
    # What a Terminal-Bench task's build context and compose file (its own directory) hold
    # besides the container's files: the test script and tests, and the solution script.
    beside = _beside_container(task) if config.source == "terminal-bench" else ()
    dockerfile = task.workspace.get("Dockerfile", b"").decode(errors="replace")
    findings += _dockerfile(dockerfile, _not_ignored(task, beside))
    for name in containers:
        if name != "Dockerfile":
            findings += _compose(name, task.workspace[name].decode(errors="replace"), beside)
    test = task.hidden.get(config.test_command, b"").decode(errors="replace")
    network = sorted(set(_NETWORK.findall(test)))
    if network:
        findings.append(
            _finding(
                Severity.WARNING,
                f"hidden/{config.test_command} installs or downloads at verification time "
                f"({', '.join(network)}): it needs the network then, and what it gets can change",
            )
        )
    return findings


def _default_tests(source: str, task: Task) -> bool:
    """Whether Terminal-Bench runs the task's tests without a ``run-tests.sh`` of its own: it
    then runs its default one, pytest on ``tests/test_outputs.py``."""
    return source == "terminal-bench" and DEFAULT_TESTS in task.hidden


def _beside_container(task: Task) -> tuple[str, ...]:
    """The names beside a Terminal-Bench task's container files that the agent must not see:
    ``tests``, ``run-tests.sh``, ``solution.sh`` or ``solution.yaml``, those the task has."""
    held = {path.split("/", 1)[0] for path in task.hidden}
    if task.solutions:
        held.add("solution.sh")
    return tuple(name for name in _HIDDEN_SOURCES if name in held)


def _not_ignored(task: Task, names: tuple[str, ...]) -> tuple[str, ...]:
    """``names`` less those the build context's ``.dockerignore`` leaves out whole: a name is
    kept while any file of it (``tests/test_outputs.py`` of ``tests``) is copied, as Docker
    reads the file (:func:`_ignored`)."""
    rules = _ignore_rules(task.workspace.get(".dockerignore", b"").decode(errors="replace"))
    if not rules:
        return names
    kept = []
    for name in names:
        files = [path for path in task.hidden if path.split("/", 1)[0] == name] or [name]
        if not all(_ignored(path, rules) for path in files):
            kept.append(name)
    return tuple(kept)


def _ignore_rules(text: str) -> list[tuple[bool, re.Pattern[str]]]:
    """The patterns of a ``.dockerignore``, in order: whether each takes files back in (``!``),
    and what it matches (Docker's syntax: ``*`` and ``?`` within a part of a path, ``**`` across
    parts, none too; a pattern is cleaned as a path, its leading ``/`` and ``./`` dropped)."""
    rules = []
    for line in text.splitlines():
        pattern = line.strip()
        if not pattern or pattern.startswith("#"):
            continue
        negated = pattern.startswith("!")
        pattern = posixpath.normpath(pattern.removeprefix("!").strip().lstrip("/") or ".")
        if pattern in (".", "/"):
            continue
        try:
            regex = re.compile(_pattern_regex(pattern), re.DOTALL)
        except re.error:  # a class such as [z-a], which Docker refuses: matched as it is written
            regex = re.compile(re.escape(pattern))
        rules.append((negated, regex))
    return rules


def _pattern_regex(pattern: str) -> str:
    """A ``.dockerignore`` pattern as a regular expression matching a whole path."""
    out = []
    at = 0
    while at < len(pattern):
        char = pattern[at]
        at += 1
        if char == "*" and pattern.startswith("*", at):
            at += 1 + pattern.startswith("/", at + 1)  # **/ is **
            out.append(".*" if at >= len(pattern) else "(?:.*/)?")
        elif char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "\\" and at < len(pattern):
            out.append(re.escape(pattern[at]))
            at += 1
        elif char == "[" and (close := pattern.find("]", at + 1)) >= 0:
            inside = pattern[at:close]
            out.append("[" + ("^" + inside[1:] if inside.startswith("!") else inside) + "]")
            at = close + 1
        else:
            out.append(re.escape(char))
    return "".join(out)


def _ignored(path: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Whether ``path`` of the build context is left out: the last pattern matching it or one
    of its directories decides, a ``!`` one taking it back in (as Docker's file matcher)."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: count + 1]) for count in range(len(parts))]
    ignored = False
    for negated, regex in rules:
        if negated != ignored:
            continue
        if any(regex.fullmatch(prefix) for prefix in prefixes):
            ignored = not negated
    return ignored


def _copied_hidden(text: str, beside: tuple[str, ...] = ()) -> list[str]:
    """The tests or solution paths among the sources of each COPY and ADD (shell or JSON form,
    one source or several, flags skipped); with ``beside`` (what the build context holds that
    must stay out), a source that is the whole context or a pattern matching one of them too."""
    found = []
    for rest in _COPY.findall(text):
        words = rest.strip()
        from_stage = False  # --from copies out of another image or stage, not the context
        while words.startswith("--"):
            flag, *more = words.split(None, 1)
            from_stage = from_stage or flag.lower().startswith("--from=")
            words = more[0] if more else ""
        if from_stage:
            continue
        try:
            parts = json.loads(words) if words.startswith("[") else shlex.split(words)
        except (ValueError, RecursionError):  # a JSON array nested past Python's stack too
            parts = words.split()
        sources = [str(p) for p in parts[:-1]] if isinstance(parts, list) else []
        for source in sources:
            head = _context_path(source).split("/", 1)[0]
            if head in _HIDDEN_SOURCES:
                found.append(head)
            elif beside and head in ("", "."):
                found.append(f"{source[:80]} (the whole task directory, with {', '.join(beside)})")
            elif matched := [name for name in beside if fnmatch.fnmatchcase(name, head)]:
                found.append(f"{source[:80]} (which matches {', '.join(matched)})")
    return found


def _context_path(source: str) -> str:
    """A COPY source as a path in the build context: Docker reads ``/data.txt`` and
    ``./data.txt`` as ``data.txt`` (an absolute source is relative to the context's root)."""
    path = source.lstrip("/")
    while path.startswith("./"):
        path = path[2:].lstrip("/")
    return path


def _dockerfile(text: str, beside: tuple[str, ...] = ()) -> list[Finding]:
    text = _CONTINUED.sub(" ", text)
    findings = []
    for image in _FROM.findall(text):
        name = image.rsplit("/", 1)[-1]
        if "@" not in image and (":" not in name or name.endswith(":latest")):
            findings.append(
                _finding(
                    Severity.WARNING,
                    f"Dockerfile's base image {image} is not pinned (give a version tag or digest)",
                )
            )
    for copied in _copied_hidden(text, beside):
        findings.append(
            _finding(
                Severity.ERROR,
                f"Dockerfile copies {copied} into the image: the agent can read the tests or the "
                "solution",
            )
        )
    for packages in _PIP.findall(text):
        loose = [p for p in packages.split() if not p.startswith("-") and "==" not in p]
        if loose:
            findings.append(
                _finding(
                    Severity.WARNING,
                    "Dockerfile installs Python packages without pinned versions: "
                    + " ".join(loose),
                )
            )
    return findings


def _compose(name: str, text: str, beside: tuple[str, ...] = ()) -> list[Finding]:
    """The tests or solution mounted into, or built into, a compose file's services (a volume
    ``./tests:/tests``, a build context ``..`` around them), as a Dockerfile's COPY of them is;
    with ``beside`` (what the compose file's directory holds that must stay out), a volume of
    that whole directory too."""
    try:
        data = yaml.safe_load(text)
    except Exception:  # noqa: BLE001 - PyYAML raises YAMLError, ValueError, RecursionError...
        return [_finding(Severity.WARNING, f"{name} is not YAML a container runtime can read")]
    services = data.get("services") if isinstance(data, dict) else None
    findings = []
    for service, spec in (services or {}).items() if isinstance(services, dict) else ():
        if not isinstance(spec, dict):
            continue
        for source, mounted in _compose_sources(spec):
            head = _hidden_head(source)
            if (
                head is None
                and mounted
                and beside
                and all(part in ("", ".") for part in source.split("/"))
            ):
                head = f"which is the task directory, holding {', '.join(beside)}"
            if head is not None:
                findings.append(
                    _finding(
                        Severity.ERROR,
                        f"{name} gives service {str(service)[:80]!r} the path {source[:200]!r}, "
                        f"{head}: the agent can read the tests or the solution",
                    )
                )
    return findings


def _compose_sources(spec: dict[str, Any]) -> list[tuple[str, bool]]:
    """The host paths a compose service reads: its build context and its volumes' sources,
    each with whether it is mounted (a volume) rather than built from."""
    sources = []
    build = spec.get("build")
    context = build.get("context") if isinstance(build, dict) else build
    if isinstance(context, str):
        sources.append((context, False))
    volumes = spec.get("volumes")
    for volume in volumes if isinstance(volumes, list) else ():
        if isinstance(volume, str) and volume.startswith("."):  # not a named volume ("data:/d")
            sources.append((volume.split(":", 1)[0], True))
        elif isinstance(volume, dict) and volume.get("type") == "bind":
            sources.append((str(volume.get("source", "")), True))
    return sources


def _hidden_head(source: str) -> str | None:
    """What ``source``, a path relative to the compose file, reaches that the agent must not
    see: the tests or solution beside the container files, or what lies around them (``..``:
    the task directory of a Harbor task, other tasks beside a Terminal-Bench one)."""
    parts = [part for part in source.split("/") if part not in ("", ".")]
    if source.startswith("/") or not parts:
        return None
    if parts[0] == "..":
        return "which reaches outside the container files, to the tests and solution"
    return f"which is the task's {parts[0]}" if parts[0] in _HIDDEN_SOURCES else None


def _finding(severity: Severity, message: str) -> Finding:
    return Finding(check=CHECK, severity=severity, message=message)
