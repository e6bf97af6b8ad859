"""The rotation config: one INI section per log file, ``[*]`` for the defaults."""

import configparser

from logkeep.sizes import parse_size

DEFAULT_MAX_SIZE = "10M"  # the same default as logrotate
DEFAULT_KEEP_DAYS = 14


def _keep_days(section, defaults):
    for source in (section, defaults):
        if "keep_days" in source:
            return int(source["keep_days"])
        if "maxage" in source:  # the 1.x name, deprecated but still in many hosts' configs
            return int(source["maxage"])
    return DEFAULT_KEEP_DAYS


def _flag(text):
    return text.strip().lower() in ("yes", "true", "on", "1")


def load_config(text):
    """``{log name: {"max_size", "keep_days", "compress"}}`` from the config's text."""
    parser = configparser.ConfigParser(interpolation=None, default_section="__none__")
    parser.read_string(text)
    defaults = parser["*"] if parser.has_section("*") else {}
    logs = {}
    for name in parser.sections():
        if name == "*":
            continue
        section = parser[name]
        size = section.get("max_size", defaults.get("max_size", DEFAULT_MAX_SIZE))
        logs[name] = {
            "max_size": parse_size(size),
            "keep_days": _keep_days(section, defaults),
            "compress": _flag(section.get("compress", defaults.get("compress", "yes"))),
        }
    return logs
