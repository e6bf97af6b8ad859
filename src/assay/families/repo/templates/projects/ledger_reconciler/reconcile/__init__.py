"""Bank-to-ledger reconciliation."""

__version__ = "0.9.4"
