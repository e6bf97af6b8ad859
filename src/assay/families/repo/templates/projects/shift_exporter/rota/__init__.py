"""Shift roster exports."""

__version__ = "1.8.0"
