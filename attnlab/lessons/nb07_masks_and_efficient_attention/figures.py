"""Notebook 07's figures: masks, the sparse-pattern gallery, errors and memory of the cheap methods, the
weights so far of the tiled step-through, and the index thumbnail (the Play panels are in ``live``). Each
returns its figure with named handles (NamedTuple or object attributes), so the notebook never looks an
artist up by position.

The numbers come from ``masks``, ``costs`` and ``tiles``; nothing here computes attention itself
except through them and ``al.scaled_dot_product_attention``.
"""
from typing import NamedTuple

import matplotlib.pyplot as plt
import torch
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from ...core import checks
from ...core.masking import causal_mask, local_mask
from ...i18n import N_, gettext as _
from ...ui import plotting
from ...ui.plotting import SERIES_COLORS
from .costs import memory_bytes
from .tiles import implied_weights

__all__ = [
    "MASK_CMAP", "SCORE_CMAP", "OUTSIDE_COLOUR", "NOT_VISITED_HATCH", "NOT_VISITED_EDGE", "MASK_CMAP_OUTSIDE",
    "WEIGHT_CMAP_OUTSIDE", "KEYS", "QUERIES", "mask_heatmap", "mask_key", "not_visited_background", "not_visited_patch", "Gallery",
    "mask_gallery", "ErrorPlot", "error_plot", "SoFarFigure", "weights_so_far_figure", "MemoryPlot",
    "memory_plot", "thumbnail"
]

MASK_CMAP = "Greys"          # black = may attend
# One colour, one meaning in notebook 07: grey (OUTSIDE_COLOUR) is only "not in this sequence" (the mask
# panel); a tile not visited yet is hatched (NOT_VISITED_HATCH, drawn under a transparent NaN cell).
SCORE_CMAP = plt.get_cmap("RdBu_r").with_extremes(bad=(0.0, 0.0, 0.0, 0.0))   # signed scores; NaN = not computed yet
OUTSIDE_COLOUR = "#b8b8b8"   # MaskExplorer: a cell whose row is no query or whose column is no key now
NOT_VISITED_HATCH = "///"    # the tile figures: a cell no tile has reached yet (no score computed)
NOT_VISITED_EDGE = "0.55"    # the hatch lines' colour (on white)
MASK_CMAP_OUTSIDE = plt.get_cmap(MASK_CMAP).with_extremes(bad=OUTSIDE_COLOUR)
WEIGHT_CMAP_OUTSIDE = plt.get_cmap(plotting.WEIGHT_CMAP).with_extremes(bad=OUTSIDE_COLOUR)


_AX = checks.Axes()


KEYS, QUERIES = N_("keys"), N_("queries")          # the default axis labels, looked up where shown


@checks.arguments(ax=_AX)
def mask_heatmap(mask, ax, *, title=None, x_labels=None, y_labels=None, xlabel=KEYS, ylabel=QUERIES):
    """A bool (Tq, Tk) mask in black (may attend) and white; returns the Axes. The axis labels are
    looked up in the learner's language (a label not in the catalog is shown as given)."""
    checks.bool_mask(mask, "mask", mask.shape if isinstance(mask, torch.Tensor) else ())
    if mask.dim() != 2:
        raise checks.error("mask", "a 2-D (Tq, Tk) mask", f"shape {tuple(mask.shape)}")
    return plotting.heatmap(mask.float(), ax=ax, cmap=MASK_CMAP, colorbar=False, annotate=False, title=title,
                            x_labels=x_labels, y_labels=y_labels, xlabel=_(xlabel) if xlabel else xlabel,
                            ylabel=_(ylabel) if ylabel else ylabel)


@checks.arguments(figure=checks.Instance(Figure, "a matplotlib Figure"))
def mask_key(figure):
    """A key under a mask figure: black = may attend (True), white = masked (False). Masks use the
    opposite shading of weight heatmaps (where dark = 0), so every mask figure says which is which.
    Returns the Legend."""
    handles = [Patch(facecolor="black", edgecolor="0.3", label=_("black = may attend (True)")),
               Patch(facecolor="white", edgecolor="0.3", label=_("white = masked (False)"))]
    return figure.legend(handles=handles, loc="outside lower center", ncols=2, fontsize=9, frameon=False)


@checks.arguments(ax=_AX)
def not_visited_background(ax, shape):
    """A hatched white rectangle under the (Tq, Tk) cells of a heatmap on ``ax``: a NaN cell (drawn
    transparent) shows the hatching, i.e. "not visited yet". Returns the Rectangle."""
    Tq, Tk = shape
    return ax.add_patch(Rectangle((-0.5, -0.5), Tk, Tq, facecolor="white", edgecolor=NOT_VISITED_EDGE,
                                  hatch=NOT_VISITED_HATCH, linewidth=0, zorder=-1))


def not_visited_patch():
    """The legend handle of ``not_visited_background``."""
    return Patch(facecolor="white", edgecolor=NOT_VISITED_EDGE, hatch=NOT_VISITED_HATCH,
                 label=_("hatched = not visited yet (no score computed)"))


class Gallery(NamedTuple):
    figure: object
    axes: dict         # name -> Axes
    key: object = None  # the Legend saying black = may attend


@checks.arguments(masks=checks.Dict(0), ncols=checks.Int(1, 8), figsize=checks.Optional(checks.Items(checks.Real(positive=True), 2, 2)))
def mask_gallery(masks, *, ncols=3, figsize=None):
    """One black-and-white panel per mask of ``masks`` ({name: bool (Tq, Tk)}), titled with the name
    (in the learner's language when the catalog has it, as SPARSE_PATTERNS' names) and the number of
    keys per query; returns a Gallery (figure, axes by name)."""
    masks = dict(masks)
    if not masks:
        raise checks.error("masks", "at least one {name: mask}", "an empty dict")
    nrows = -(-len(masks) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=figsize or (3.6 * ncols, 3.3 * nrows), layout="constrained",
                             squeeze=False)
    named = {}
    for ax, (name, m) in zip(axes.flat, masks.items()):
        per_query = m.sum(-1).float()
        every = 1 if max(m.shape) <= 12 else 2                                  # readable tick labels
        labels = [[str(p) if p % every == 0 else "" for p in range(size)] for size in m.shape]
        title = _("{name}\n{mean:.1f} keys per query (of {total})").format(name=_(name), mean=per_query.mean(),
                                                                           total=m.shape[-1])
        mask_heatmap(m, ax, title=title,
                     x_labels=labels[1], y_labels=labels[0])
        named[name] = ax
    for ax in list(axes.flat)[len(masks):]:
        ax.set_visible(False)
    return Gallery(fig, named, mask_key(fig))


class ErrorPlot(NamedTuple):
    figure: object
    axes: dict         # data set name -> Axes
    lines: dict        # (data set name, "local" or "block") -> Line2D


@checks.arguments(errors=checks.Dict(1, 6), num_keys=checks.Int(1))
def error_plot(errors, *, num_keys=64):
    """Relative error of local and block attention against the keys each query sees, one panel per
    data set of ``errors`` ({name: lesson.approximation_errors(...)}), log-log."""
    fig, axes = plt.subplots(1, len(errors), figsize=(5.5 * len(errors), 3.8), layout="constrained", sharey=True,
                             squeeze=False)
    named, lines = {}, {}
    ticks = [2 ** p for p in range(num_keys.bit_length()) if 2 ** p <= num_keys]
    for ax, (name, e) in zip(axes[0], errors.items()):
        lines[name, "local"], = ax.plot([2 * w + 1 for w, _r, _m in e["local"]], [r for _w, r, _m in e["local"]], "o-", color=SERIES_COLORS[0],
                                        label=_("local window (2w + 1 keys)"))
        lines[name, "block"], = ax.plot([b for b, _r, _m in e["block"]], [r for _b, r, _m in e["block"]], "s-", color=SERIES_COLORS[1],
                                        label=_("block (b keys)"))
        ax.set(xscale="log", yscale="log", xlabel=_("keys seen per query (of {total})").format(total=num_keys), title=name,
               xticks=ticks, xticklabels=[str(t) for t in ticks])
        named[name] = ax
    axes[0][0].set_ylabel(_("relative error vs exact attention"))
    axes[0][0].legend(fontsize=8)
    return ErrorPlot(fig, named, lines)


class SoFarFigure(NamedTuple):
    figure: object
    axes: list         # one Axes per tile shown
    colorbar: object
    key: object = None  # the Legend saying hatched = not visited yet


@checks.arguments(states=checks.Items(checks.Dict(), min_len=1), num_keys=checks.Int(1),
                   tiles=checks.Int(1, 16), queries=checks.Int(1, 64))
def weights_so_far_figure(states, num_keys, *, tiles=4, queries=2):
    """The weights implied after each of the first ``tiles`` states, for the first ``queries`` queries
    (hatched = key not visited yet), with one shared 0-1 colour bar and a key."""
    fig, axes = plt.subplots(tiles, 1, figsize=(7, 1.15 * tiles + 0.0), layout="constrained")
    axes = list(axes) if tiles > 1 else [axes]
    for i, ax in enumerate(axes):
        w = implied_weights(states[:i + 1], num_keys)[:queries]                 # (queries, Tk), NaN = not seen
        k0, k1 = states[i]["k_block"]
        plotting.heatmap(w, ax=ax, colorbar=False, y_labels=[f"q{r}" for r in range(queries)],
                         xlabel=_("keys") if i == tiles - 1 else "", ylabel="",
                         title=_("after tile {tile} (keys {k0}–{k1} added)").format(tile=i + 1, k0=k0, k1=k1 - 1))
        not_visited_background(ax, w.shape)
    bar = fig.colorbar(ScalarMappable(Normalize(0, 1), cmap=plotting.WEIGHT_CMAP), ax=axes, label=_("weight"),
                       shrink=0.8)
    key = fig.legend(handles=[not_visited_patch()], loc="outside lower center", fontsize=9, frameon=False)
    return SoFarFigure(fig, axes, bar, key)


class MemoryPlot(NamedTuple):
    figure: object
    ax: object
    lines: dict        # method -> Line2D


@checks.arguments(lengths=checks.Items(checks.Int(1), min_len=1), d=checks.Int(1), block_size=checks.Int(1))
def memory_plot(lengths, d=64, *, methods=("dense", "tiled", "linear"), block_size=128):
    """Working memory (bytes, float32) of one attention head against the sequence length n, log-log."""
    fig, ax = plt.subplots(figsize=(6.5, 4), layout="constrained")
    lines = {}
    for i, (method, style) in enumerate(zip(methods, ("o-", "s-", "^-", "v-", "d-"))):
        lines[method], = ax.plot(lengths, [memory_bytes(method, n, d, block_size=block_size) for n in lengths],
                                 style, color=SERIES_COLORS[i % len(SERIES_COLORS)], label=_(method))
    ax.axhline(2 ** 30, color="grey", linestyle=":", label="1 GiB")
    ax.set(xscale="log", yscale="log", xlabel=_("sequence length n"), ylabel=_("bytes (float32, d = {d})").format(d=d),
           title=_("working memory of one attention head"))
    ax.legend()
    return MemoryPlot(fig, ax, lines)


@checks.arguments(ax=checks.Axes())
def thumbnail(ax):
    """The index's small picture of this notebook, drawn into ``ax``."""
    both = torch.cat([causal_mask(6, 6), torch.zeros(6, 1, dtype=torch.bool), local_mask(6, 6, 1)], dim=1)
    ax.imshow(both.numpy(), cmap="gray_r", vmin=0, vmax=1.25, aspect="auto")
    ax.set_xticks([2.5, 9.5], [_("causal"), _("local, w = 1")], fontsize=7)
    ax.set_yticks([])
    ax.set_xlabel(_("keys (dark = may attend)"), fontsize=6)
    ax.set_ylabel(_("queries"), fontsize=6)
