"""Plot helpers: each takes data and an optional ``ax`` and returns the Axes it drew on.

Weights are drawn with viridis on a fixed 0–1 scale, so heads and settings compare by colour.
``update_heatmap`` changes a drawn heatmap in place, for the live panels.

Figure state lives in one place: ``heatmap_state(ax)`` is the record of a heatmap drawn on ``ax``
(its image, labels, number format, scale and the texts written in its cells), kept in a registry
keyed by the Axes (weakly: it goes when the Axes goes), never as attributes set on matplotlib objects.

Every helper checks its arguments first (a ValueError/TypeError naming the argument, what was
expected and what was given) and bounds its work: a figure made without ``ax`` is at most
MAX_FIGSIZE inches, at most MAX_ANNOTATED cells are written out (more switches annotation off
with a warning), and a matrix wider or taller than MAX_TICKS cells gets a few numbered ticks
instead of one per cell.
"""
import math
import warnings
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.colors import Colormap
from matplotlib.ticker import MaxNLocator, ScalarFormatter

from ..core import checks
from ..i18n import N_, gettext as _
from . import fonts  # noqa: F401  (the shipped CJK font, behind the default one)

WEIGHT_CMAP = "viridis"
# Colours for the series a figure tells apart, in place of matplotlib's tab10 ("C0".."C9"), whose orange,
# green and red run together under protanopia and deuteranopia: Okabe & Ito's colour-universal palette
# (blue, orange, bluish green, vermillion, reddish purple, sky blue, yellow, black). Its first five, the
# ones the lessons use together, stay >= 10 CAM02-UCS ΔE' apart under all three dichromacies
# (tests/ui/test_colour_vision.py). Figures name them explicitly (``SERIES_COLORS[1]``); matplotlib's
# rcParams are left alone.
SERIES_COLORS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
MAX_FIGSIZE = (14.0, 12.0)     # inches (1400 x 1200 px at 100 dpi) for figures made without ax
MAX_ANNOTATED = 900            # cells written out (30 x 30); more is unreadable and slow
MAX_TICKS = 60                 # rows/columns given one tick each when unlabelled
KEYS, QUERIES = N_("keys"), N_("queries")    # a heatmap's default axis labels, shown translated


@dataclass
class HeatmapState:
    """What ``heatmap`` drew on one Axes and ``update_heatmap`` changes in place."""
    image: object                       # the AxesImage
    x_labels: object = None
    y_labels: object = None
    annotate: object = None             # None: write numbers when there are at most 100 cells
    fmt: str = "{:.2f}"
    vmin: float = 0.0
    vmax: float = 1.0
    ticks: tuple = None                 # (rows, cols, x labels, y labels) last set, to skip unchanged ticks
    cells: list = field(default_factory=list)   # the Text of each annotated cell, row by row


_HEATMAPS = weakref.WeakKeyDictionary()     # Axes -> HeatmapState


def heatmap_state(ax):
    """The ``HeatmapState`` of the heatmap drawn on ``ax`` by ``heatmap``."""
    try:
        return _HEATMAPS[ax]
    except (KeyError, TypeError):
        raise checks.error("ax", "an Axes drawn by attnlab.ui.plotting.heatmap", repr(ax)) from None


def to_numpy(x, name="x"):
    """A float64 numpy copy of a tensor, array or nested list of numbers; anything else is a
    TypeError naming ``name``."""
    if isinstance(x, torch.Tensor):
        if x.is_complex():
            raise checks.error(name, "real numbers", f"a complex tensor ({x.dtype})", kind=TypeError)
        return x.detach().cpu().double().numpy()
    if isinstance(x, (str, bytes)) or x is None:
        raise checks.error(name, "a tensor or an array of numbers", f"{type(x).__name__} {x!r}", kind=TypeError)
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise checks.error(name, "a tensor or a rectangular array of numbers",
                           f"{type(x).__name__} that is neither", kind=TypeError) from None


def _array(x, name, ndim, what):
    a = to_numpy(x, name)
    if a.ndim != ndim:
        raise checks.error(name, f"{what}", f"shape {a.shape}")
    return a


def _labels(labels, n, name, what):
    if labels is None:
        return None
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (Sequence, np.ndarray, torch.Tensor)):
        raise checks.error(name, f"a sequence of {n} labels (one per {what})", type(labels).__name__, kind=TypeError)
    if len(labels) != n:
        raise checks.error(name, f"{n} labels (one per {what})", len(labels))
    return labels


def _cmap(cmap, name="cmap"):
    if isinstance(cmap, Colormap):
        return cmap
    if not isinstance(cmap, str) or cmap not in matplotlib.colormaps:
        raise checks.error(name, "a matplotlib colormap name such as 'viridis'", repr(cmap))
    return cmap


def _fmt(fmt):
    checks.instance(fmt, "fmt", str, "a format string such as '{:.2f}'")
    try:
        fmt.format(0.5)
    except (ValueError, IndexError, KeyError) as exc:
        raise checks.error("fmt", "a format string for one float such as '{:.2f}'", f"{fmt!r} ({exc})") from None
    return fmt


def _figsize(width, height):
    """(width, height) in inches, scaled down to fit MAX_FIGSIZE (keeping the aspect ratio)."""
    shrink = min(1.0, MAX_FIGSIZE[0] / width, MAX_FIGSIZE[1] / height)
    return width * shrink, height * shrink


def _annotate_default(w):
    return w.shape[0] * w.shape[1] <= 100


def _luminance(rgb):
    """WCAG 2.1's relative luminance of an sRGB colour (components 0-1)."""
    c = np.asarray(rgb[:3], dtype=float)
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2])


def _text_color(value, vmin, vmax, cmap=WEIGHT_CMAP):
    """Black or white, whichever has the higher WCAG contrast ratio against the cell's colour (one of
    them is always >= 4.58:1, so every cell number meets WCAG AA's 4.5:1)."""
    return _text_colors(np.array([value], dtype=float), vmin, vmax, cmap)[0]


def _text_colors(values, vmin, vmax, cmap=WEIGHT_CMAP):
    """``_text_color`` of every value of a float array at once (a live heatmap's cells on every move: one
    colormap lookup for all of them, not one per cell; issue 51)."""
    cmap = matplotlib.colormaps[cmap] if isinstance(cmap, str) else cmap
    with np.errstate(invalid="ignore", divide="ignore"):
        x = (np.asarray(values, dtype=float) - vmin) / ((vmax - vmin) or 1.0)
    x = np.where(np.isfinite(x), np.clip(x, 0.0, 1.0), 0.0)
    c = np.asarray(cmap(x), dtype=float)[..., :3]
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    lum = 0.2126 * c[..., 0] + 0.7152 * c[..., 1] + 0.0722 * c[..., 2]
    return np.where((lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05), "black", "white").tolist()


MIN_TEXT_CONTRAST = 4.5        # WCAG 2.1 AA (1.4.3) for text, against white
_WHITE_D65 = np.array([0.95047, 1.0, 1.08883])
_SRGB_TO_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375],
                         [0.2126729, 0.7151522, 0.0721750],
                         [0.0193339, 0.1191920, 0.9503041]])


def _lab(rgb):
    """CIE L*a*b* (D65) of an sRGB colour (components 0-1)."""
    c = np.asarray(rgb, dtype=float)[:3]
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    t = _SRGB_TO_XYZ @ linear / _WHITE_D65
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _srgb(lab):
    """The sRGB colour (components 0-1, possibly outside) of a CIE L*a*b* (D65) colour."""
    L, a, b = lab
    fy = (L + 16) / 116
    f = np.array([fy + a / 500, fy, fy - b / 200])
    t = np.where(f > 6 / 29, f ** 3, 3 * (6 / 29) ** 2 * (f - 4 / 29)) * _WHITE_D65
    linear = np.linalg.solve(_SRGB_TO_XYZ, t)
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * np.abs(linear) ** (1 / 2.4) * np.sign(linear) - 0.055)


def _contrast_on_white(rgb):
    return 1.05 / (_luminance(rgb) + 0.05)


def text_color(color):
    """The colour to write text in that belongs to a series drawn in ``color`` (any matplotlib colour): ``color``
    itself where it already has a WCAG contrast of at least 4.5:1 on white, else the same hue darkened in CIE
    L*a*b* (lightness L* lowered, hue angle kept, chroma lowered only as far as sRGB needs) until it has.
    Returned as a hex string; lines and bars keep ``color``. E.g. Okabe-Ito's orange #E69F00 (2.2:1) gives
    a dark orange of 4.5:1."""
    try:
        rgb = matplotlib.colors.to_rgb(color)
    except (TypeError, ValueError):
        raise checks.error("color", "a matplotlib colour such as '#E69F00' or 'C1'", repr(color)) from None
    return _text_color_of(matplotlib.colors.to_hex(rgb))


_TEXT_COLORS = {}


def _text_color_of(hex_color):
    if hex_color in _TEXT_COLORS:
        return _TEXT_COLORS[hex_color]
    rgb = np.array(matplotlib.colors.to_rgb(hex_color))
    best = hex_color
    if _contrast_on_white(rgb) < MIN_TEXT_CONTRAST:
        L0, a0, b0 = _lab(rgb)
        best = "#000000"
        for L in np.arange(L0, -0.01, -0.25):
            for keep in np.linspace(1.0, 0.0, 41):      # the most chroma that stays inside sRGB
                out = _srgb((L, a0 * keep, b0 * keep))
                if np.all(out >= -1e-9) and np.all(out <= 1 + 1e-9):
                    break
            candidate = matplotlib.colors.to_hex(np.clip(out, 0, 1))
            if _contrast_on_white(matplotlib.colors.to_rgb(candidate)) >= MIN_TEXT_CONTRAST:
                best = candidate
                break
    _TEXT_COLORS[hex_color] = best
    return best


def heatmap(weights, *, x_labels=None, y_labels=None, ax=None, title=None, xlabel=KEYS,
            ylabel=QUERIES, vmin=0.0, vmax=1.0, cmap=WEIGHT_CMAP, annotate=None, fmt="{:.2f}",
            colorbar=True):
    """Draw a (Tq, Tk) matrix of weights with token labels; returns the Axes.

    annotate (default: when there are at most 100 cells) writes each value in its cell; past
    MAX_ANNOTATED cells it is switched off with a warning. Without ``ax`` the figure grows with the
    matrix up to MAX_FIGSIZE inches. NaN cells are left blank.
    """
    w = _array(weights, "weights", 2, "a 2-D (Tq, Tk) matrix")
    _labels(x_labels, w.shape[1], "x_labels", "column (key)")
    _labels(y_labels, w.shape[0], "y_labels", "row (query)")
    checks.axes(ax, "ax", optional=True)
    vmin, vmax = checks.real(vmin, "vmin"), checks.real(vmax, "vmax")
    if not vmin < vmax:
        raise checks.error("vmin", f"a number below vmax={vmax:g}", f"{vmin:g}")
    _cmap(cmap)
    checks.flag(annotate, "annotate", allow_none=True)
    _fmt(fmt)
    checks.flag(colorbar, "colorbar")
    if ax is None:
        ax = plt.subplots(figsize=_figsize(1.2 + 0.55 * w.shape[1], 1.0 + 0.45 * w.shape[0]))[1]
    return _draw_heatmap(ax, w, x_labels, y_labels, title, xlabel, ylabel, vmin, vmax, cmap, annotate, fmt,
                         colorbar)


def _draw_heatmap(ax, w, x_labels, y_labels, title, xlabel, ylabel, vmin, vmax, cmap, annotate, fmt, colorbar):
    """``heatmap``'s drawing, its arguments already checked (``heads_grid`` draws each head with it)."""
    im = ax.imshow(w, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto", interpolation="nearest")
    ax.set_xlabel(_(KEYS) if xlabel == KEYS else xlabel)       # the caller translates a label it gives
    ax.set_ylabel(_(QUERIES) if ylabel == QUERIES else ylabel)
    if title:
        ax.set_title(title)
    state = _HEATMAPS[ax] = HeatmapState(im, x_labels, y_labels, annotate, fmt, vmin, vmax)
    _set_ticks_and_text(ax, state, w, stacklevel=4)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    return ax


def update_heatmap(ax, weights, *, x_labels=None, y_labels=None, title=None):
    """Put new values (and, if given, labels) into a heatmap drawn by ``heatmap``; returns the Axes.

    Called on every move of a live panel's control: each argument is checked once here, and what
    follows (ticks, cell texts) is unchecked."""
    state = heatmap_state(ax)
    w = _array(weights, "weights", 2, "a 2-D (Tq, Tk) matrix")
    _labels(x_labels if x_labels is not None else state.x_labels, w.shape[1], "x_labels", "column (key)")
    _labels(y_labels if y_labels is not None else state.y_labels, w.shape[0], "y_labels", "row (query)")
    im = state.image
    if x_labels is not None:
        state.x_labels = x_labels
    if y_labels is not None:
        state.y_labels = y_labels
    if im.get_array().shape != w.shape:
        im.set_extent((-0.5, w.shape[1] - 0.5, w.shape[0] - 0.5, -0.5))
    im.set_data(w)
    if title is not None and title != ax.get_title():   # an unchanged title stays untouched (live panels)
        ax.set_title(title)
    _set_ticks_and_text(ax, state, w)
    return ax


def _tuple(labels):
    return None if labels is None else tuple(map(str, labels))


def _set_ticks_and_text(ax, state, w, stacklevel=3):
    rows, cols = w.shape
    ticks = (rows, cols, _tuple(state.x_labels), _tuple(state.y_labels))
    if state.ticks != ticks:     # unchanged ticks stay untouched, so a live panel need not redraw them
        state.ticks = ticks
        for axis, n, labels, horizontal in ((ax.xaxis, cols, state.x_labels, True),
                                            (ax.yaxis, rows, state.y_labels, False)):
            if labels is None and n > MAX_TICKS:          # a few numbered ticks, not one per cell
                axis.set_major_locator(MaxNLocator(nbins=10, integer=True))
                axis.set_major_formatter(ScalarFormatter())
                continue
            axis.set_ticks(range(n))
            if horizontal:
                axis.set_ticklabels(labels if labels is not None else range(n),
                                    rotation=45 if labels is not None else 0,
                                    ha="right" if labels is not None else "center")
            else:
                axis.set_ticklabels(labels if labels is not None else range(n))
    annotate = state.annotate if state.annotate is not None else _annotate_default(w)
    if annotate and rows * cols > MAX_ANNOTATED:
        warnings.warn(f"annotate: {rows} x {cols} = {rows * cols} cells is more than the {MAX_ANNOTATED} "
                      f"that can be written out legibly; annotation switched off", stacklevel=stacklevel)
        annotate = False
    if not annotate or len(state.cells) != rows * cols:
        for t in state.cells:
            t.remove()
        state.cells = [ax.text(j, i, "", ha="center", va="center", fontsize=8)
                       for i in range(rows) for j in range(cols)] if annotate else []
    colors = _text_colors(w.ravel(), state.vmin, state.vmax, state.image.cmap) if state.cells else []
    for t, value, color in zip(state.cells, w.ravel(), colors):
        t.set_text("" if np.isnan(value) else state.fmt.format(value))      # NaN cells are left blank
        t.set_color(color)


def live_title(ax, text="", **text_kw):
    """A Text placed and styled as ``ax``'s title, for a title a live panel changes on every move.

    A panel can declare it and redraw it alone; a changed axes title moves its axes (matplotlib places
    it at draw time), so changing ``set_title`` redraws the whole figure. Returns the Text; change it
    with ``set_text``. Leave the axes' own title empty. ``text_kw`` (e.g. fontsize) go to ``ax.text``."""
    checks.axes(ax, "ax")
    checks.string(text, "text")
    rc = matplotlib.rcParams
    style = dict(ha="center", va="baseline", fontsize=rc["axes.titlesize"], fontweight=rc["axes.titleweight"])
    # An annotation at the top middle of the axes, raised by the title's pad: where set_title writes.
    return ax.annotate(text, (0.5, 1.0), xycoords="axes fraction", xytext=(0, rc["axes.titlepad"]),
                       textcoords="offset points", **{**style, **text_kw})


def heads_grid(weights, *, x_labels=None, y_labels=None, axes=None, titles=None, annotate=False):
    """One heatmap per head from (H, Tq, Tk) weights, on a shared 0–1 colour bar; returns the axes.

    Without ``axes`` the grid has 4 columns (more past 16 heads) and fits in MAX_FIGSIZE inches.
    """
    w = _array(weights, "weights", 3, "(H, Tq, Tk)")
    H = w.shape[0]
    if H == 0:
        raise checks.error("weights", "at least one head", f"shape {w.shape}")
    if titles is not None:
        _labels(titles, H, "titles", "head")
    checks.flag(annotate, "annotate", allow_none=True)
    if axes is None:
        cols = min(H, 4) if H <= 16 else math.ceil(math.sqrt(H))
        rows = -(-H // cols)
        fig, axes = plt.subplots(rows, cols, figsize=_figsize(3.2 * cols, 2.8 * rows), squeeze=False,
                                 layout="constrained")
    else:
        flat = np.asarray(axes, dtype=object).ravel()
        for i, a in enumerate(flat):
            checks.axes(a, f"axes[{i}]")
        if len(flat) < H:
            raise checks.error("axes", f"at least {H} Axes (one per head)", len(flat))
    axes = np.asarray(axes).ravel()
    for h, ax in enumerate(axes):
        if h >= H:
            ax.set_visible(False)
            continue
        ax.set_visible(True)
        _draw_heatmap(ax, w[h], x_labels, y_labels, titles[h] if titles else _("head {h}").format(h=h + 1),
                      KEYS, QUERIES, 0.0, 1.0, WEIGHT_CMAP, annotate, "{:.2f}", False)
    axes[0].figure.colorbar(axes[0].images[0], ax=list(axes[:H]), shrink=0.8, label=_("weight"))
    return axes


def weights_summary(weights, x_labels=None, y_labels=None, *, top=2):
    """Text for readers who can't see colour: each query row's largest weights, one line per row."""
    w = _array(weights, "weights", 2, "a 2-D (Tq, Tk) matrix")
    _labels(x_labels, w.shape[1], "x_labels", "column (key)")
    _labels(y_labels, w.shape[0], "y_labels", "row (query)")
    checks.count(top, "top", low=1)
    return _summary(w, x_labels, y_labels, top)


def weights_summary_unchecked(weights, x_labels=None, y_labels=None, *, top=2):
    """``weights_summary`` without its checks (a live panel, on weights it computed and labels it holds)."""
    return _summary(to_numpy(weights), x_labels, y_labels, top)


def _summary(w, x_labels, y_labels, top):
    xs = list(x_labels) if x_labels is not None else [str(j) for j in range(w.shape[1])]
    ys = list(y_labels) if y_labels is not None else [str(i) for i in range(w.shape[0])]
    lines = []
    for i, row in enumerate(w):
        if row.sum() == 0:
            lines.append(_("{query}: no visible key (all weights 0)").format(query=ys[i]))
            continue
        best = np.argsort(-row, kind="stable")[:top]
        tops = ", ".join(f"{xs[j]} {row[j]:.2f}" for j in best)
        lines.append(_("{query}: {weights}").format(query=ys[i], weights=tops))
    return "\n".join(lines)
