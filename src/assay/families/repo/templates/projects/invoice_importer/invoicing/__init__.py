"""Invoice export importer."""

__version__ = "2.3.1"
