"""Claims triage: routing rules, fraud flags."""

__version__ = "3.1.0"
