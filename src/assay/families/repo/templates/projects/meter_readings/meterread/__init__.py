"""Meter readings to consumption per billing period."""

__version__ = "4.0.2"
