"""Log rotation for hosts without logrotate."""

__version__ = "2.4.2"
