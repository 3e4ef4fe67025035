"""One look for every chart: a fixed colour-blind-safe colour and marker per encoding, sizes
for one- and two-column papers, and fonts that embed in PDF.

The colour of an encoding comes from the registry's sorted encoding names (read from source,
so no solver is loaded, plugins included): walking the names in sorted order, each takes
the first Okabe-Ito colour that no encoding of the same puzzle already has. The same encoding
therefore gets the same colour in every chart, the report and ``bench plot``, and the
encodings of one puzzle never share a colour while the palette lasts. Option variants of
one encoding (``degree-sat[backend=glucose4]``) keep its colour and marker and differ by
line style and shade.
"""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import matplotlib

matplotlib.use("Agg")
import matplotlib.colors as mcolors
import matplotlib.pyplot as plt

from models import registry

# Okabe & Ito (2008), "Color Universal Design": safe for the common colour-vision deficiencies;
# then Tol's wine and olive, so a puzzle with up to ten encodings never repeats a colour
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#000000", "#F0E442",
             "#882255", "#999933")  # fmt: skip
MARKERS = "osD^vP*Xh<>p"
LINESTYLES = ("-", "--", ":", "-.")
VIRTUAL_BEST = "#7f7f7f"


@dataclass(frozen=True)
class Layout:
    """Figure size in inches and font size in points; ``legend`` right of or below the axes."""

    width: float
    height: float
    font: float
    legend: str = "right"
    dpi: int = 150


REPORT = Layout(7.0, 3.6, 8.5, "right")
PAPER = {"single": Layout(3.3, 2.4, 7.0, "below"), "double": Layout(7.0, 3.0, 8.0, "right")}


@cache
def registry_encodings() -> dict[str, tuple[str, ...]]:
    """Puzzle -> its encoding names, sorted; the registry reads them without importing one."""
    return {puzzle: registry.encoding_names(puzzle) for puzzle in registry.puzzles()}


@cache
def _assignment() -> dict[str, int]:
    """Encoding name -> style index: greedy colouring over packages in sorted name order."""
    packages = registry_encodings()
    names = sorted({n for group in packages.values() for n in group})
    index: dict[str, int] = {}
    for name in names:
        taken = {
            index[o] for group in packages.values() if name in group for o in group if o in index
        }
        index[name] = next(i for i in range(len(names) + 1) if i not in taken)
    return index


def encoding_style(encoding: str) -> dict[str, str]:
    """``{"color", "marker"}`` of an encoding, the same everywhere; both distinct within a
    puzzle (a marker as well as a colour, so a greyscale print still tells them apart)."""
    index = _assignment().get(encoding)
    if index is None:  # not in the registry (a plugin, a test stand-in): a stable hash
        index = zlib.crc32(encoding.encode())
    return {"color": OKABE_ITO[index % len(OKABE_ITO)], "marker": MARKERS[index % len(MARKERS)]}


def config_styles(pairs: list[tuple[str, str]]) -> dict[str, dict]:
    """config -> line style keywords, from (config, encoding) pairs; variants get dashes and shades."""
    styles: dict[str, dict] = {}
    by_encoding: dict[str, list[str]] = {}
    for config, encoding in sorted(set(pairs)):
        by_encoding.setdefault(encoding, []).append(config)
    for encoding, configs in by_encoding.items():
        base = encoding_style(encoding)
        for k, config in enumerate(configs):
            styles[config] = {
                "color": _shade(base["color"], k),
                "marker": base["marker"],
                "linestyle": LINESTYLES[k % len(LINESTYLES)],
            }
    styles["virtual best"] = {"color": VIRTUAL_BEST, "marker": "", "linestyle": "-"}
    return styles


def distinct_colours(count: int) -> list[str]:
    """``count`` colours, none repeated: the palette, then its darker and lighter shades."""
    found: list[str] = []
    k = 0
    while len(found) < count:
        found += [s for s in (_shade(c, k) for c in OKABE_ITO) if s.lower() not in found]
        found = list(dict.fromkeys(s.lower() for s in found))
        k += 1
    return found[:count]


def _shade(colour: str, k: int) -> str:
    """The k-th variant: alternately darker and lighter, further with k."""
    if k == 0:
        return colour
    r, g, b = mcolors.to_rgb(colour)
    amount = (0.3, 0.5, 0.7)[((k + 1) // 2 - 1) % 3]  # with the 4 line styles: 24 distinct
    if k % 2:  # darker
        r, g, b = (v * (1 - amount) for v in (r, g, b))
    else:  # lighter
        r, g, b = (v + (1 - v) * amount for v in (r, g, b))
    return mcolors.to_hex((r, g, b))


@contextlib.contextmanager
def paper_rc(layout: Layout) -> Iterator[None]:
    """Fonts sized for the layout and embedded as TrueType (Type 42) in PDF and PS."""
    settings = {
        "pdf.fonttype": 42,
        "ps.fonttype": 42,
        "svg.fonttype": "none",
        "text.parse_math": False,  # names are data: `$x$` in a label is not mathtext
        "font.size": layout.font,
        "axes.titlesize": layout.font + 0.5,
        "axes.labelsize": layout.font,
        "legend.fontsize": layout.font - 1,
        "xtick.labelsize": layout.font - 1,
        "ytick.labelsize": layout.font - 1,
        "lines.linewidth": 1.2,
        "lines.markersize": 4,
        "savefig.dpi": layout.dpi,
    }
    with plt.rc_context(settings):
        yield
