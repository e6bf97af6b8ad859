"""Subscription proration and invoice previews."""

__version__ = "0.9.3"
