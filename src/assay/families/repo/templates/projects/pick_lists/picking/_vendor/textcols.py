"""Fixed-width text columns for the label printer and the A4 pick lists.

Vendored from the shipping team's scripts (textcols 0.3, MIT). Do not edit; wrap instead.
"""


def row(cells, widths, right=()):
    """One line: each cell padded to its width (numbers right-aligned by column index)."""
    parts = []
    for index, (cell, width) in enumerate(zip(cells, widths, strict=False)):
        text = str(cell)
        parts.append(text.rjust(width) if index in right else text.ljust(width))
    return "  ".join(parts).rstrip()


def rule(widths):
    """A line of dashes under a header."""
    return "  ".join("-" * width for width in widths)
