"""Quotes: the band price for the chargeable weight, plus the surcharges."""

from decimal import ROUND_HALF_UP, Decimal

from shiprate.carriers import load_carrier
from shiprate.weights import chargeable_grams, parse_dimensions
from shiprate.zones import zone_for


def band_price(bands, zone, grams):
    """The table price in pence of the lightest band that takes ``grams`` (limits included)."""
    for limit, prices in bands:
        if grams <= limit:
            return prices[zone]
    raise ValueError(f"{grams} g is over the carrier's heaviest band")


def quote(postcode, grams, dimensions, carrier="parcelline", config_path=None):
    """The quote for one parcel, amounts in pence."""
    settings = load_carrier(carrier, config_path)
    zone = zone_for(postcode)
    chargeable = chargeable_grams(grams, *parse_dimensions(dimensions), settings["divisor"])
    base = band_price(settings["bands"], zone, chargeable)
    remote = settings["remote_pence"] if zone != "mainland" else 0
    fuel = _percent(base, settings["fuel_percent"])
    return {
        "zone": zone,
        "chargeable_g": chargeable,
        "base": base,
        "remote": remote,
        "fuel": fuel,
        "total": base + remote + fuel,
    }


def _percent(pence, percent):
    exact = Decimal(pence) * percent / 100
    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def show(pence):
    """495 as ``£4.95``."""
    return f"£{pence // 100}.{pence % 100:02d}"
