"""The clinics (``data/sites.ini``): region, opening hours, when day reminders go out."""

import configparser
import datetime
import os

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def load_sites():
    """``{site_id: {"name", "region", "phone", "opens", "closes", "send_at"}}``; times as
    ``datetime.time``."""
    config = configparser.ConfigParser()
    with open(os.path.join(DATA, "sites.ini"), encoding="utf-8") as handle:
        config.read_file(handle)
    sites = {}
    for site_id in config.sections():
        section = config[site_id]
        sites[site_id] = {
            "name": section["name"],
            "region": section["region"],
            "phone": section["phone"],
            "note": section.get("note", ""),
            "opens": datetime.time.fromisoformat(section["opens"]),
            "closes": datetime.time.fromisoformat(section["closes"]),
            "send_at": datetime.time.fromisoformat(section.get("send_at", "10:00")),
        }
    return sites
