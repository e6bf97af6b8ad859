"""Log rotation plans."""

__version__ = "0.4.2"
