"""The carriers' settings (``data/carriers.ini``) and rate tables."""

import configparser
import os
from decimal import Decimal

from shiprate._vendor.pipetable import parse
from shiprate.zones import ZONES

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
DEFAULT_CONFIG = os.path.join(DATA, "carriers.ini")


def load_carrier(name, config_path=None):
    """One carrier's settings, with its rate table read: ``{"divisor", "remote_pence",
    "fuel_percent", "bands"}``; ``bands`` are ``(limit_grams, {zone: pence})``, lightest first."""
    path = config_path or DEFAULT_CONFIG
    config = configparser.ConfigParser()
    with open(path, encoding="utf-8") as handle:
        config.read_file(handle)
    if not config.has_section(name):
        raise KeyError(f"no carrier {name!r} in {path}")
    section = config[name]
    table = os.path.join(os.path.dirname(path), section["table"])
    with open(table, encoding="utf-8") as handle:
        rows = parse(handle.read())
    bands = []
    for row in rows:
        limit = int(Decimal(row["max_kg"]) * 1000)
        # tables may carry other columns (notes, valid-from dates): only zones are prices
        bands.append((limit, {zone: pence(row[zone]) for zone in ZONES}))
    return {
        "divisor": int(section.get("volumetric_divisor", "5000")),
        "remote_pence": pence(section.get("remote_surcharge", "0")),
        "fuel_percent": Decimal(section.get("fuel_surcharge_percent", "0")),
        "bands": sorted(bands),
    }


def pence(pounds):
    """``4.95`` as 495."""
    return int(Decimal(pounds.strip().lstrip("£")) * 100)
