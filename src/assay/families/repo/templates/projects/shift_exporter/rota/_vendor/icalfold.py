# Vendored from icalfold 0.3 (MIT). Do not edit: update from upstream instead.
"""Fold iCalendar content lines at 75 octets (RFC 5545, section 3.1)."""

LIMIT = 75


def fold(line):
    """The content line folded into lines of at most 75 octets, joined by CRLF."""
    data = line.encode("utf-8")
    if len(data) <= LIMIT:
        return line
    parts = []
    while data:
        size = LIMIT if not parts else LIMIT - 1
        cut = min(size, len(data))
        while cut < len(data) and (data[cut] & 0xC0) == 0x80:
            cut -= 1
        parts.append(data[:cut].decode("utf-8"))
        data = data[cut:]
    return "\r\n ".join(parts)
