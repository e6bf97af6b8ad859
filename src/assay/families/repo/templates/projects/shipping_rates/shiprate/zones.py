"""Delivery zones from a UK postcode's area letters (``BT`` of ``BT7 1NN``)."""

ZONES = ("mainland", "highlands", "ni")
REMOTE_AREAS = {
    "BT": "ni",
    "HS": "highlands",
    "IV": "highlands",
    "KW": "highlands",
    "PA": "highlands",
    "PH": "highlands",
    "ZE": "highlands",
}


def area(postcode):
    """The area letters of a postcode as customers type it: ``bt7 1nn`` gives ``BT``."""
    outward = postcode.strip().upper().split()[0] if postcode.strip() else ""
    letters = ""
    for char in outward:
        if not char.isalpha():
            break
        letters += char
    if not letters:
        raise ValueError(f"not a postcode: {postcode!r}")
    return letters


def zone_for(postcode):
    """``mainland``, ``highlands`` or ``ni``."""
    return REMOTE_AREAS.get(area(postcode), "mainland")
