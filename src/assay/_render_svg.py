"""Bar charts as inline SVG for the HTML report: drawn here, in Python, so that the page needs no
script, font or file from anywhere else. Labels are escaped like everything else on the page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape as _escape

from assay._text import escaped


def escape(value: object) -> str:
    """``value`` as HTML text: markup escaped, control, bidirectional and invisible characters
    shown as escapes (as on the terminal), and characters UTF-8 cannot hold (lone surrogates)
    as ``?``."""
    text = str(value).encode("utf-8", "replace").decode("utf-8")
    return _escape(escaped(text), quote=True)


WIDTH = 640
HEIGHT = 230
_TOP, _BOTTOM, _LEFT, _RIGHT = 24, 48, 40, 12


@dataclass(frozen=True)
class Bar:
    """One bar: its label under the axis, its height, and the hover text."""

    label: str
    value: int
    tip: str


@dataclass(frozen=True)
class Marker:
    """A dashed vertical line before bar ``position`` (a fraction of bars), with a caption."""

    position: float
    caption: str


def bar_chart(
    title: str, bars: Sequence[Bar], *, caption: str, marker: Marker | None = None
) -> str:
    """An SVG histogram of ``bars``, each ``<rect class="bar">`` with a ``<title>`` for hover,
    its count above it, ``caption`` under the axis; the y axis runs from 0 to the largest
    count."""
    top = max((bar.value for bar in bars), default=0) or 1
    inner_w = WIDTH - _LEFT - _RIGHT
    inner_h = HEIGHT - _TOP - _BOTTOM
    slot = inner_w / max(1, len(bars))
    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" xmlns="http://www.w3.org/2000/svg" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<line class="axis" x1="{_LEFT}" y1="{_TOP + inner_h}" x2="{WIDTH - _RIGHT}" '
        f'y2="{_TOP + inner_h}"/>',
        f'<text class="tick" x="{_LEFT - 6}" y="{_TOP + 4}" text-anchor="end">{top}</text>',
        f'<text class="tick" x="{_LEFT - 6}" y="{_TOP + inner_h}" text-anchor="end">0</text>',
    ]
    for index, bar in enumerate(bars):
        height = inner_h * bar.value / top
        x = _LEFT + index * slot + slot * 0.12
        y = _TOP + inner_h - height
        width = slot * 0.76
        middle = x + width / 2
        parts.append(
            f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" '
            f'height="{height:.1f}" data-value="{bar.value}"><title>{escape(bar.tip)}</title>'
            "</rect>"
        )
        if bar.value:
            parts.append(
                f'<text class="count" x="{middle:.1f}" y="{y - 4:.1f}" '
                f'text-anchor="middle">{bar.value}</text>'
            )
        parts.append(
            f'<text class="tick" x="{middle:.1f}" y="{_TOP + inner_h + 16}" '
            f'text-anchor="middle">{escape(bar.label)}</text>'
        )
    parts.append(
        f'<text class="caption" x="{_LEFT + inner_w / 2:.1f}" y="{HEIGHT - 6}" '
        f'text-anchor="middle">{escape(caption)}</text>'
    )
    if marker is not None:
        x = _LEFT + marker.position * inner_w
        parts.append(
            f'<line class="marker" x1="{x:.1f}" y1="{_TOP - 8}" x2="{x:.1f}" '
            f'y2="{_TOP + inner_h}"/>'
            f'<text class="marker-caption" x="{x + 4:.1f}" y="{_TOP - 10}">'
            f"{escape(marker.caption)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def share_bars(counts: dict[str, int], total: int, *, limit: int = 12) -> str:
    """The largest ``limit`` of ``counts`` as horizontal bars in an HTML table (share of
    ``total``), with how many more labels there are."""
    rows = []
    for label, count in list(counts.items())[:limit]:
        share = count / total if total else 0.0
        rows.append(
            f'<tr><td class="label">{escape(label)}</td><td class="num">{count}</td>'
            f'<td class="meter"><svg width="160" height="10" aria-hidden="true">'
            f'<rect class="track" width="160" height="10"/>'
            f'<rect class="fill" width="{160 * share:.1f}" height="10"/></svg> '
            f"{share:.0%}</td></tr>"
        )
    more = len(counts) - limit
    if more > 0:
        rows.append(f'<tr><td colspan="3" class="muted">{more} more</td></tr>')
    return '<table class="shares">' + "".join(rows) + "</table>"
