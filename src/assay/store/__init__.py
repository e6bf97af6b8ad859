"""The results store: runs (audit and rollout, one namespace of names), verdicts, the durable
job queue and trajectories, with the versions they were produced with.

Open it with :func:`open_store`; the command line never goes around it.
"""

from __future__ import annotations

from pathlib import Path

from assay.errors import InputError
from assay.store.records import (
    EpisodeTotals,
    Finished,
    Job,
    JobCounts,
    NewJob,
    RunKind,
    RunRecord,
    StoredEpisode,
    StoredRun,
    StoredVerdict,
)
from assay.store.sqlite import SCHEMA_VERSION, Store, StoreBusyError


def store_path(location: Path | str) -> Path:
    """The SQLite file ``location`` names: a path, or ``sqlite:///PATH``. Raises
    :class:`assay.errors.InputError` for a URL of a backend this assay lacks."""
    text = str(location)
    if text[:10].lower() == "sqlite:///":  # a URL's scheme is read in either case
        return Path(text[10:])
    if text[:9].lower() == "sqlite://":
        raise InputError(
            f"{text!r} names no file: a SQLite URL is sqlite:/// and then the file's path",
            field="db",
            fix="write sqlite:///runs.db for a relative path, sqlite:////srv/runs.db for /srv",
        )
    if "://" in text:
        raise InputError(
            f"no store backend for {text.split('://', 1)[0]!r} URLs yet",
            field="db",
            fix="give a SQLite file path or sqlite:///PATH",
        )
    return Path(text)


def open_store(location: Path | str, *, timeout_s: float = 30.0, read_only: bool = False) -> Store:
    """The store at ``location``: a SQLite file path or ``sqlite:///PATH`` (``read_only``: see
    :class:`Store`).

    Raises :class:`assay.errors.InputError` for a URL of a backend this assay lacks and
    :class:`assay.errors.StoreError` when the file cannot be opened.
    """
    return Store(store_path(location), timeout_s=timeout_s, read_only=read_only)


__all__ = [
    "SCHEMA_VERSION",
    "EpisodeTotals",
    "Finished",
    "Job",
    "JobCounts",
    "NewJob",
    "RunKind",
    "RunRecord",
    "Store",
    "StoreBusyError",
    "StoredEpisode",
    "StoredRun",
    "StoredVerdict",
    "open_store",
    "store_path",
]
