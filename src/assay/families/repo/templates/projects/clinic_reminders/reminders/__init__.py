"""SMS appointment reminders."""

__version__ = "2.0.3"
