"""The results store: audit runs and verdicts, with the versions they were produced with."""

from assay.store.sqlite import Store, StoredRun, StoredVerdict

__all__ = ["Store", "StoredRun", "StoredVerdict"]
