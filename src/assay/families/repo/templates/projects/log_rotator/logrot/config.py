"""The INI configuration: one section a log, with ``keep``, ``size`` and ``compress``."""

import configparser

DEFAULT_KEEP = 7
UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}


def parse_size(text):
    """Bytes of a size such as ``10M``: K, M and G are powers of 1024, in either case, and may be
    followed by B (``10MB``, ``512kb``, ``100B``)."""
    cleaned = text.strip().upper()
    if cleaned.endswith("B"):
        cleaned = cleaned[:-1]
    unit = cleaned[-1:] if cleaned[-1:] in ("K", "M", "G") else ""
    number = cleaned[: len(cleaned) - len(unit)]
    if not number.isdigit():
        raise ValueError(f"not a size: {text!r}")
    return int(number) * UNITS[unit]


def read_config(text):
    """Each section's settings: keep (None when not set), size in bytes, compress."""
    parser = configparser.ConfigParser()
    parser.read_string(text)
    settings = {}
    for section in parser.sections():
        keep = parser.get(section, "keep", fallback=None)
        settings[section] = {
            "keep": None if keep is None else int(keep),
            "size": parse_size(parser.get(section, "size", fallback="0")),
            "compress": parser.getboolean(section, "compress", fallback=True),
        }
    return settings
