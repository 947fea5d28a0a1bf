"""What every picture of a results folder shares: one order of variants and a size read at its
own width.

**One order.** A picture that lists variants (``variants.png``, ``compare.png``) lists them in
the run's order from the bottom up, the first variant lowest, as ``winrates.png`` lists the
entries: :func:`variant_rows` places them and :func:`label_rows` names them.

**Legible.** A picture drawn here (``compare.png``, ``sweep.png``) is at most :data:`WIDTH`
inches wide at :data:`DPI` dots an inch (1,100 pixels: a page or a screen shows it at its own
size) and writes no text smaller than :data:`SMALL` points (12 pixels at that size); a tall one
is scrolled, never shrunk."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

WIDTH = 11.0  # inches
DPI = 100
SMALL = 9  # points: tick labels, legends
TITLE = 10  # points: a panel's title
HEAD = 11  # points: a figure's (or a block's) title


def variant_rows(names: Sequence[object]) -> list[int]:
    """Where each variant's row is, in the run's order, the first at the bottom (0)."""
    return list(range(len(names)))


def label_rows(ax: Any, names: Sequence[str], **text: Any) -> None:
    """Label ``ax``'s rows (:func:`variant_rows`) with the variants' names; ``text``: the
    labels' font (none: matplotlib's)."""
    ax.set_yticks(variant_rows(names), names, **text)
