"""Notebook 06's figures: the signed heatmap of P, seed 000's columns, the binary counter beside the
sine columns, similarity by offset, the rotation circle, and the index thumbnail (the Play explorer is in
``live``).

Each figure function builds its own figure and returns a small NamedTuple of named artists, so the
notebook never looks an artist up by position. Shape letters: n positions, D columns of P (the model
width, as in the suite's notation); in the Play, i is the chosen position and m any position.
"""
import math
from typing import NamedTuple

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.ticker import MaxNLocator

from ...core import checks
from ...core.positional import sinusoidal_encoding
from ...i18n import gettext as _
from ...ui.plotting import SERIES_COLORS, text_color, to_numpy
from .encoding import frequencies, offset_similarity, similarity_by_offset, wavelengths

__all__ = [
    "SIGNED_CMAP", "COLUMN_BOX_COLOUR", "COLUMN_BOX_OUTLINE", "MAX_BITS", "encoding_image", "encoding_heatmap", "update_encoding_heatmap",
    "encoding_columns_plot", "binary_counter_plot", "CounterFigure", "counter_vs_columns_figure",
    "SimilarityFigure", "similarity_figure", "CircleFigure", "rotation_circle_figure", "thumbnail", "update_encoding_heatmap_unchecked"
]

SIGNED_CMAP = "RdBu_r"   # diverging, white at 0: for signed values such as P (not for weights)
# The column box on P (live.py): lime (>= 14 ΔE' from every colour of SIGNED_CMAP under all three dichromacies,
# tests/ui/test_colour_vision.py) inside a black outline, so it also stands out of P's near-white cells (lime on
# white alone is 1.4:1).
COLUMN_BOX_COLOUR = "lime"
COLUMN_BOX_OUTLINE = "black"
MAX_BITS = 8             # the counter draws 2^num_bits columns of numbers: 256 is already dense


_AX = checks.Axes()
_P = checks.Array(2)


def _matrix(P, name="P"):
    """P as a 2-D float array (n, D), or a ValueError naming ``name``."""
    checks.Array()(P, name)
    M = to_numpy(P)
    if M.ndim != 2:
        raise checks.error(name, "a 2-D (n, D) matrix", f"shape {M.shape}")
    return M


@checks.arguments(ax=_AX)
def encoding_image(P, ax, *, vmax=1.0, cmap=SIGNED_CMAP, colorbar=True, title=None):
    """Draw a signed (n, D) matrix such as P into ``ax``; returns its AxesImage (for in-place updates)."""
    M = _matrix(P)
    vmax = checks.real(vmax, "vmax", positive=True)
    im = ax.imshow(M, cmap=cmap, vmin=-vmax, vmax=vmax, aspect="auto", interpolation="nearest")
    ax.set_xlabel(_("dimension (column of P)"))
    ax.set_ylabel(_("position i (row of P)"))
    for axis in (ax.xaxis, ax.yaxis):                 # rows and columns are whole numbers: no 2.5 ticks
        axis.set_major_locator(MaxNLocator(integer=True))
    if title:
        ax.set_title(title)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label=_("value"))
    return im


@checks.arguments(ax=checks.Optional(_AX))
def encoding_heatmap(P, *, ax=None, vmax=1.0, cmap=SIGNED_CMAP, colorbar=True, title=None):
    """A signed (n, D) matrix such as the positional encoding P: rows = positions, columns =
    dimensions, diverging colours fixed to [-vmax, vmax] with 0 in white; returns the Axes.

    For live panels, change it in place with ``update_encoding_heatmap``.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    encoding_image(P, ax, vmax=vmax, cmap=cmap, colorbar=colorbar, title=title)
    return ax


@checks.arguments(ax=_AX)
def update_encoding_heatmap(ax, P, image=None):
    """Put a new (n, D) matrix into an ``encoding_heatmap`` in place (its shape may change).

    ``image``: the AxesImage returned by ``encoding_image``; default: the only image of ``ax``.
    """
    M = _matrix(P)
    if image is None:
        if len(ax.images) != 1:
            raise checks.error("ax", "one image (an encoding_heatmap)", f"{len(ax.images)}; pass image=")
        image = ax.images[0]
    return update_encoding_heatmap_unchecked(ax, M, image)


def update_encoding_heatmap_unchecked(ax, M, image):
    """``update_encoding_heatmap`` for a checked 2-D array ``M`` and the AxesImage ``image`` of ``ax``."""
    resized = image.get_array().shape != M.shape
    image.set_data(M)
    if resized:                      # unchanged limits stay untouched, so a live panel need not redraw the axes
        image.set_extent((-0.5, M.shape[1] - 0.5, M.shape[0] - 0.5, -0.5))
        ax.set_xlim(-0.5, M.shape[1] - 0.5)
        ax.set_ylim(M.shape[0] - 0.5, -0.5)
    return ax


@checks.arguments(ax=checks.Optional(_AX))
def encoding_columns_plot(P, columns=(6, 7, 8, 9), *, ax=None):
    """Columns of a positional encoding P (n, D) against position, as in seed 000; returns the Axes."""
    P = _matrix(P)
    if isinstance(columns, (str, bytes)) or not isinstance(columns, (list, tuple, range)) or not all(isinstance(c, (int, np.integer)) and not isinstance(c, bool)
                                                    for c in columns):
        raise checks.error("columns", "whole column numbers", repr(columns), kind=TypeError)
    bad = [c for c in columns if not 0 <= c < P.shape[1]]
    if bad:
        raise checks.error("columns", f"numbers in [0, {P.shape[1] - 1}] (P has {P.shape[1]} columns)", bad)
    if ax is None:
        _fig, ax = plt.subplots(figsize=(6, 3))
    for c in columns:
        ax.plot(np.arange(P.shape[0]), P[:, c], label=_("col {c}").format(c=c))
    ax.set_xlabel(_("position i"))
    ax.set_ylabel(_("P[i, col]"))
    ax.legend(loc="upper right", fontsize=8)
    return ax


@checks.arguments(ax=checks.Optional(_AX))
def binary_counter_plot(num_bits=3, *, ax=None):
    """Bits of the counter 0 .. 2^num_bits - 1 as step curves against the number, lowest bit on top
    (seed 000's analogy: higher bits flip more slowly); returns the Axes. num_bits: 1 .. MAX_BITS."""
    num_bits = checks.count(num_bits, "num_bits", low=1)
    if num_bits > MAX_BITS:
        raise checks.error("num_bits", f"at most {MAX_BITS} (the plot writes 2^num_bits numbers)", num_bits)
    n = np.arange(2 ** num_bits)
    if ax is None:
        _fig, ax = plt.subplots(figsize=(6, 3))
    for b in range(num_bits):
        bits = (n >> b) & 1
        offset = 1.5 * (num_bits - 1 - b)
        ax.step(np.append(n, n[-1] + 1), np.append(bits, bits[-1]) + offset, where="post",
                color=SERIES_COLORS[b % len(SERIES_COLORS)], linewidth=2, label=_("bit {b} (flips every {n})").format(b=b, n=2 ** b))
        for k, v in zip(n, bits):
            ax.text(k + 0.5, offset + v + 0.12, str(v), ha="center", fontsize=8, color=text_color(SERIES_COLORS[b % len(SERIES_COLORS)]))
    ax.set_xticks(n + 0.5)
    ax.set_xticklabels([f"{k}\n{k:0{num_bits}b}" for k in n])
    ax.set_yticks([])
    ax.set_xlim(0, n[-1] + 1)
    ax.set_ylim(-0.3, 1.5 * num_bits)
    ax.set_xlabel(_("number (and its binary form)"))
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    return ax


class CounterFigure(NamedTuple):
    figure: object
    ax_bits: object
    ax_columns: object
    samples: dict      # pair j -> Line2D of the dots P[i, 2j] at whole positions i
    waves: dict        # pair j -> Line2D of the wave sin(x ω_j) between them


@checks.arguments(n=checks.Int(1, 10_000, why="dots drawn one per position"), d=checks.Int(2, 4096),
                   pairs=checks.Items(checks.Int(0), min_len=1, max_len=10))
def counter_vs_columns_figure(n=60, d=32, pairs=(0, 2, 4), *, base=10000.0, figsize=(12, 3.4)):
    """Left: the bits of 0..7. Right: the sine column of each pair j in ``pairs`` against position, as
    dots at whole positions (what P holds) on the smooth wave sin(x ω_j) they are samples of.
    ``d``: the width D of P (num_hiddens); n: its number of positions."""
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=figsize, layout="constrained")
    binary_counter_plot(3, ax=ax0)
    ax0.set_title(_("bits of 0–7: each bit is 2× slower than the one below"))
    omega, lam = frequencies(d, base), wavelengths(d, base)
    i, x = np.arange(n), np.linspace(0, n - 1, 20 * n)
    samples, waves = {}, {}
    for k, j in enumerate(pairs):
        shift, w = 2.5 * (len(pairs) - 1 - k), float(omega[j])
        waves[j], = ax1.plot(x, np.sin(x * w) + shift, color=SERIES_COLORS[(k) % len(SERIES_COLORS)], linewidth=1, alpha=0.45)
        samples[j], = ax1.plot(i, np.sin(i * w) + shift, "o", color=SERIES_COLORS[(k) % len(SERIES_COLORS)], markersize=3,
                               label=_("col {c} (λ = {wavelength:.1f})").format(c=2 * j, wavelength=float(lam[j])))
    ax1.set(yticks=[], xlabel=_("position i"), ylabel=_("P[i, column] (curves shifted apart)"))
    ax1.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    ax1.set_title(_("sine columns {columns}: samples (dots) of smooth waves (thin)").format(
        columns=", ".join(str(2 * j) for j in pairs)))
    return CounterFigure(fig, ax0, ax1, samples, waves)


class SimilarityFigure(NamedTuple):
    figure: object
    ax_matrix: object
    ax_offset: object
    closed: object     # Line2D: the closed form against δ
    diagonals: object  # Line2D: the mean of each diagonal of P Pᵀ


@checks.arguments(P=checks.Tensor(2))
def similarity_figure(P, *, base=10000.0, figsize=(12, 4)):
    """Left: P Pᵀ (constant along each diagonal). Right: its diagonals against the closed form Σ cos(δ ω_j)."""
    n, d = P.shape
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=figsize, layout="constrained")
    encoding_heatmap(P @ P.T, ax=ax0, vmax=d / 2, title=_("P Pᵀ: constant along every diagonal"))
    ax0.set_xlabel(_("position m"))
    ax0.set_ylabel(_("position i"))
    deltas = np.arange(n)
    mean, _spread = similarity_by_offset(P, max_offset=n - 1)
    closed, = ax1.plot(deltas, offset_similarity(torch.arange(n), d, base), color=SERIES_COLORS[0], label=_("closed form Σ cos(δ ω_j)"))
    diagonals, = ax1.plot(deltas, to_numpy(mean), "o", color=SERIES_COLORS[1], markersize=3, label=_("diagonals of P Pᵀ"))
    ax1.axhline(0, color="0.7", linewidth=0.8)
    ax1.set(xlabel=_("offset δ = m − i"), ylabel="P_i · P_(i+δ)",
            title=_("similarity falls (not monotonically) with the offset"))
    ax1.legend(fontsize=8)
    return SimilarityFigure(fig, ax0, ax1, closed, diagonals)


class CircleFigure(NamedTuple):
    figure: object
    ax: object
    dots: object       # PathCollection: pair j of every row, coloured by position
    arrows: list       # one Annotation per start position


@checks.arguments(P=checks.Tensor(2), pair=checks.Int(0), starts=checks.Items(checks.Int(0), min_len=1),
                   delta=checks.Int(0))
def rotation_circle_figure(P, pair=3, starts=(0, 12, 30), delta=5, *, figsize=(6, 4.5)):
    """Pair ``pair`` of every row of P as a point (sin, cos) on the unit circle, with arrows for the
    move of ``delta`` positions from each start: the same clockwise turn from any start."""
    n, j = P.shape[0], pair
    if not 0 <= j < P.shape[1] // 2:
        raise checks.error("pair", f"0 <= pair < D/2 = {P.shape[1] // 2}", pair)
    if any(not 0 <= s <= n - 1 - delta for s in starts):
        raise checks.error("starts", f"positions with s + delta <= {n - 1}", list(starts))
    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    angle = np.linspace(0, 2 * math.pi, 200)
    ax.plot(np.sin(angle), np.cos(angle), color="0.85")
    dots = ax.scatter(to_numpy(P[:, 2 * j]), to_numpy(P[:, 2 * j + 1]), c=np.arange(n), cmap="viridis", s=12, zorder=2)
    fig.colorbar(dots, ax=ax, label=_("position i"))
    arrows = []
    for k, i0 in enumerate(starts):
        a, b = P[i0, 2 * j:2 * j + 2].tolist(), P[i0 + delta, 2 * j:2 * j + 2].tolist()   # (sin, cos) at i, i+δ
        arrows.append(ax.annotate("", xy=b, xytext=a, arrowprops=dict(arrowstyle="-|>", color=SERIES_COLORS[(k + 1) % len(SERIES_COLORS)], linewidth=2)))
        ax.annotate(f"{i0} → {i0 + delta}", xy=a, xytext=(1.3 * a[0], 1.2 * a[1]), color=text_color(SERIES_COLORS[(k + 1) % len(SERIES_COLORS)]), ha="center", fontsize=10)
    ax.set(xlabel=_("column {c} = sin(i ω_{j})").format(c=2 * j, j=j),
           ylabel=_("column {c} = cos(i ω_{j})").format(c=2 * j + 1, j=j),
           xlim=(-1.5, 1.5), ylim=(-1.35, 1.35), aspect="equal")
    ax.set_title(_("{delta} positions on = the same clockwise turn, from any start").format(delta=delta))
    return CircleFigure(fig, ax, dots, arrows)


@checks.arguments(ax=_AX)
def thumbnail(ax):
    """The index's small picture of this notebook, drawn into ``ax``."""
    im = ax.imshow(sinusoidal_encoding(60, 32).T.numpy(), cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto")
    ax.set_xlabel(_("position i"), fontsize=6)
    ax.set_ylabel(_("dimension (column of P)"), fontsize=6)
    cbar = ax.figure.colorbar(im, ax=ax, fraction=0.05, pad=0.03)
    cbar.ax.tick_params(labelsize=5)
    cbar.set_label(_("value"), fontsize=6)

