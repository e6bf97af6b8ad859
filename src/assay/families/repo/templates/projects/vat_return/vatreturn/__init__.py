"""Quarterly VAT return from the sales and purchase journals."""

__version__ = "1.8.0"
