"""Overtime and premium hours for payroll."""

__version__ = "1.12.0"
