"""Reisekostenabrechnungen prüfen."""

__version__ = "1.4.2"
