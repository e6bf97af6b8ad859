"""Actual, volumetric and chargeable weight. Everything here is in grams."""

import math


def parse_dimensions(text):
    """``40x30x20`` (cm) as three integers; ``40X30X20`` works too."""
    parts = text.lower().split("x")
    if len(parts) != 3 or not all(part.strip().isdigit() for part in parts):
        raise ValueError(f"not dimensions in cm: {text!r}")
    return tuple(int(part) for part in parts)


def volumetric_grams(length, width, height, divisor):
    """The volumetric weight of a parcel in cm: l * w * h / divisor kilograms, in grams,
    rounded up to the gram."""
    return math.ceil(length * width * height * 1000 / divisor)


def chargeable_grams(grams, length, width, height, divisor=5000):
    """The weight the carrier charges for: the actual or the volumetric, whichever is more."""
    return max(int(grams), volumetric_grams(length, width, height, divisor))


def kilos(grams):
    """Deprecated: the tables are read in grams now. Still used by the batch export."""
    return f"{grams / 1000:.3f}"
