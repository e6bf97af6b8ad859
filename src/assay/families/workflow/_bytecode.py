"""Compiled bytecode of the SDK for sandboxed jobs, built once per host and environment.

The installed SDK ships no compiled files, and a sandbox cannot keep what it compiles, so every
job would compile botocore again (most of a job's CPU). The trusted side compiles each module
of the exposed distributions once, for the path the job sees it at, into a cache directory that
jobs get read-only and use through ``sys.pycache_prefix``. Python checks each compiled file
against its source's modification time and size, so a stale cache is ignored, never trusted.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import py_compile
import sys
import tempfile
import threading
from pathlib import Path

from assay.sandbox import PACKAGES_DIR
from assay.sandbox._pyenv import resolve

_lock = threading.Lock()
_built: dict[tuple[str, ...], Path] = {}


def bytecode_cache(packages: tuple[str, ...]) -> Path:
    """The cache directory for ``packages``, compiled on first use (a few seconds)."""
    exposure = resolve(packages)
    key = (sys.version, *exposure.pinned)
    with _lock:
        if key in _built:
            return _built[key]
        digest = hashlib.sha256("\n".join(key).encode()).hexdigest()[:16]
        home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        target = home / "assay" / "workflow-bytecode" / digest
        if not (target / "complete").exists():
            _compile(exposure.distributions, target)
        _built[key] = target
        return target


def _compile(distributions: tuple[object, ...], target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=target.parent))
    for dist in distributions:
        root: Path = dist.root  # type: ignore[attr-defined]
        for entry in dist.entries:  # type: ignore[attr-defined]
            for source in _sources(root / entry):
                seen_at = f"{PACKAGES_DIR}/{source.relative_to(root).as_posix()}"
                cached = _cached_path(seen_at, staging)
                try:
                    py_compile.compile(str(source), cfile=str(cached), dfile=seen_at, doraise=True)
                except py_compile.PyCompileError:
                    continue  # a module the SDK never imports on this Python
    (staging / "complete").write_text("ok\n")
    staging.chmod(0o755)
    try:
        staging.rename(target)
    except OSError:  # another process finished first: theirs is as good
        import shutil  # noqa: PLC0415 - only on this rare path

        shutil.rmtree(staging, ignore_errors=True)


def _sources(path: Path) -> list[Path]:
    if path.is_file():
        return [path] if path.suffix == ".py" else []
    return sorted(p for p in path.rglob("*.py") if p.is_file())


def _cached_path(seen_at: str, prefix: Path) -> Path:
    """Where Python looks for the compiled ``seen_at`` when its cache prefix is ``prefix``."""
    saved = sys.pycache_prefix
    sys.pycache_prefix = str(prefix)
    try:
        return Path(importlib.util.cache_from_source(seen_at))
    finally:
        sys.pycache_prefix = saved
