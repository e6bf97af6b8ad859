"""VAT and totals. The tax office wants VAT per invoice, rounded half up to the cent."""

from decimal import ROUND_HALF_UP, Decimal

RATES = {"19": Decimal(19), "7": Decimal(7), "0": Decimal(0)}


def vat_cents(net_cents, rate):
    """The VAT on ``net_cents`` at ``rate`` percent (a key of RATES), rounded half up."""
    if rate not in RATES:
        raise ValueError(f"unknown VAT rate: {rate!r}")
    exact = Decimal(net_cents) * RATES[rate] / 100
    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def invoice_totals(amounts, rate):
    """Net, VAT and gross of one invoice from its line amounts in cents."""
    net = sum(amounts)
    vat = vat_cents(net, rate)
    return {"net": net, "vat": vat, "gross": net + vat}


def totals_by_customer(rows, rate):
    """Totals per customer, customers sorted by name; rows as importer.read_invoices gives."""
    invoices = {}
    for row in rows:
        key = (row["customer"], row["invoice"])
        invoices.setdefault(key, []).append(row["amount"])
    customers = {}
    for (customer, _), amounts in sorted(invoices.items()):
        totals = invoice_totals(amounts, rate)
        mine = customers.setdefault(customer, {"net": 0, "vat": 0, "gross": 0})
        for name, value in totals.items():
            mine[name] += value
    return dict(sorted(customers.items()))
