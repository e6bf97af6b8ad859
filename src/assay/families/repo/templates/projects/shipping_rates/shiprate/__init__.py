"""Parcel rate quotes for the shop and the warehouse."""

__version__ = "0.9.4"
