"""Amounts as the claims portal and the brokers' spreadsheets write them, held as cents."""

# the brokers' spreadsheets group thousands with a blank: a space, a no-break space, or the
# narrow no-break space LibreOffice writes in French locales
GROUPING = (" ", "\u00a0", "\u202f")


def parse_amount(text):
    """``12 500,50 €`` (or the old portal's ``12500.50``) as integer cents."""
    cleaned = text.replace("€", "").replace("EUR", "").strip()
    for blank in GROUPING:
        cleaned = cleaned.replace(blank, "")
    negative = cleaned.startswith("-")
    if negative:
        cleaned = cleaned[1:]
    if "," in cleaned:
        units, _, fraction = cleaned.partition(",")
    else:
        units, _, fraction = cleaned.partition(".")  # the old portal wrote decimal dots
    if not units.isdigit() or len(fraction) > 2 or (fraction and not fraction.isdigit()):
        raise ValueError(f"montant invalide: {text!r}")
    cents = int(units) * 100 + int(fraction.ljust(2, "0"))
    return -cents if negative else cents


def format_amount(cents):
    """Cents the French way: ``12 500,50 €`` (plain spaces, the mail merge chokes on others)."""
    sign = "-" if cents < 0 else ""
    units, fraction = divmod(abs(cents), 100)
    grouped = f"{units:,}".replace(",", " ")
    return f"{sign}{grouped},{fraction:02d} €"
