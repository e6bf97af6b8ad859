"""Pick lists for the warehouse floor."""

__version__ = "0.9.4"
