"""Locations and the walking order: up the odd aisles, back down the even ones."""


def parse_location(label):
    """``A03-12`` as ``(3, 12)``: aisle and bin."""
    text = label.strip().upper().removeprefix("A")
    aisle, _, bin_ = text.partition("-")
    if not aisle.isdigit() or not bin_.isdigit():
        raise ValueError(f"not a location: {label!r}")
    return int(aisle), int(bin_)


def walk_key(label):
    """Sort key of a location in walking order."""
    aisle, bin_ = parse_location(label)
    # odd aisles are walked up (bins rising), even aisles back down
    return aisle, bin_ if aisle % 2 else -bin_


def walk_order(labels):
    """The labels in the order a picker passes them."""
    return sorted(labels, key=walk_key)
