"""Raw-material reorder planning."""

__version__ = "3.2.0"
