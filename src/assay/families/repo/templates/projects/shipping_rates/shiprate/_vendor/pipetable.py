# Vendored from pipetable 0.2.1 (BSD-3-Clause). Do not edit: update from upstream instead.
"""Read Markdown-style pipe tables: a header row, a rule row, then the data rows."""


def parse(text):
    """The table's rows as dicts keyed by the header's cells; every value is a string."""
    rows = []
    header = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if header is None:
            header = cells
        elif set(line) <= set("|-: "):
            continue
        else:
            rows.append(dict(zip(header, cells, strict=False)))
    return rows
