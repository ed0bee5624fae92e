"""Notebook 02's figures: which key the queries pick, queries and keys with their weights, and the index
thumbnail. The Play panel is in ``live``."""
import math

import matplotlib.pyplot as plt
import torch

from ...core import checks
from ...i18n import gettext as _
from ...ui.plotting import SERIES_COLORS, heatmap, heatmap_state, text_color, to_numpy
from .stats import METHODS

__all__ = ["LABEL_AT", "key_choice_plot", "thumbnail", "vectors_and_weights"]

_AX = checks.Axes()


@checks.arguments(keys=checks.Tensor(2), picks=checks.Dict(0), ax=checks.Optional(_AX))
def key_choice_plot(keys, picks, *, ax=None):
    """Bars: how many queries pick each key, one group of bars per method; picks = {method: counts (Tk,)}.

    Each key's label gives its length ‖k‖; the shortest key's label is starred. Returns the Axes.
    """
    if not picks:
        raise checks.error("picks", "at least one {method: counts} entry", "none")
    lengths = keys.norm(dim=-1)                                                  # (Tk,)
    n = keys.shape[0]
    for name, counts in picks.items():
        if tuple(counts.shape) != (n,):
            raise checks.error("picks", f"counts of shape ({n},) for {n} keys", f"{tuple(counts.shape)} for {name!r}")
    if ax is None:
        ax = plt.subplots(figsize=(7.5, 3), layout="constrained")[1]
    width = 0.8 / len(picks)
    shortest = int(lengths.argmin())
    for i, (name, counts) in enumerate(picks.items()):
        xs = [j + (i - (len(picks) - 1) / 2) * width for j in range(n)]
        ax.bar(xs, to_numpy(counts), width, label=_(METHODS[name]) if name in METHODS else name, color=SERIES_COLORS[(i) % len(SERIES_COLORS)])
    total = int(next(iter(picks.values())).sum())
    ax.axhline(total / n, color="0.5", linestyle=":", label=_("{total}/n: every key equally often").format(total=total))
    ax.set_xticks(range(n), [f"k{j + 1}{'*' if j == shortest else ''}\n{lengths[j].item():.1f}" for j in range(n)])
    ax.set(xlabel=_("key (its length ‖k‖ below; * = the shortest)"), ylabel=_("queries that pick it"),
           title=_("which key gets each query's largest weight"))
    ax.legend(fontsize=8)
    return ax


#: Where section 1's names are written (q1 sits on the tip of k1, so the names are placed by hand).
LABEL_AT = {"k1": (0.75, -0.45), "k2": (2.9, 0.15), "k3": (-0.35, 1.0), "k4": (-1.1, 0.15), "k5": (1.0, 0.35),
            "q1": (1.15, 0.15), "q2": (0.15, 0.9), "q3": (1.95, 2.35)}


@checks.arguments(queries=checks.Tensor(2), keys=checks.Tensor(2), weights=checks.Dict(0),
                   key_names=checks.Items(checks.Text()), query_names=checks.Items(checks.Text()),
                   label_at=checks.Optional(checks.Dict(0)))
def vectors_and_weights(queries, keys, weights, key_names, query_names, *, label_at=None):
    """Section 1's figure: 2-D keys (arrows) and queries (dots), then one heatmap per scoring function.

    weights: {title: (Tq, Tk) weights}, at most five. label_at: {short name: (x, y)} where each name is
    written (default LABEL_AT; a name missing there is written at its vector's tip). Returns the Figure.
    """
    if queries.shape[-1] != 2 or keys.shape[-1] != 2:
        raise checks.error("queries, keys", "2-D vectors to draw", f"sizes {queries.shape[-1]} and {keys.shape[-1]}")
    if not 1 <= len(weights) <= 5:
        raise checks.error("weights", "1 to 5 weight matrices", len(weights))
    label_at = LABEL_AT if label_at is None else label_at
    fig, axes = plt.subplots(2, 3, figsize=(11, 6), layout="constrained")
    ax = axes[0, 0]
    for (x, y), name in zip(keys.tolist(), key_names):
        ax.annotate("", xy=(x, y), xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=SERIES_COLORS[0]))
        ax.text(*label_at.get(name, (x, y)), name, color=text_color(SERIES_COLORS[0]))
    for (x, y), name in zip(queries.tolist(), query_names):
        short = name.split(" ")[0]
        ax.plot(x, y, "o", color=SERIES_COLORS[3])
        ax.text(*label_at.get(short, (x, y)), short, color=text_color(SERIES_COLORS[3]))
    ax.set(xlim=(-1.5, 3.5), ylim=(-0.6, 2.9), aspect="equal", xlabel=_("dimension 1"), ylabel=_("dimension 2"),
           title=_("keys (arrows) and queries (dots)"))
    maps = list(axes.ravel()[1:])
    for a, (title, w) in zip(maps, weights.items()):
        heatmap(w, x_labels=key_names, y_labels=query_names, ax=a, title=title, colorbar=False)
    for a in maps[len(weights):]:
        a.set_visible(False)
    fig.colorbar(heatmap_state(maps[0]).image, ax=axes[:, 1:], shrink=0.7, label=_("attention weight (0–1)"))
    return fig


@checks.arguments(ax=_AX)
def thumbnail(ax):
    """The index's small picture of this notebook, drawn into ``ax``: q·k spreads out as d_k grows."""
    g = torch.Generator().manual_seed(0)
    for d_k, colour in ((4, SERIES_COLORS[0]), (64, SERIES_COLORS[3])):
        q, k = torch.randn(2, 4000, d_k, generator=g, dtype=torch.float64)
        ax.hist(to_numpy((q * k).sum(-1)), bins=60, range=(-30, 30), histtype="step", color=colour,
                label=_("d_k = {d_k}: std {std:.0f}").format(d_k=d_k, std=math.sqrt(d_k)))
    ax.set_yticks([])
    ax.set_xlabel(_("score q·k (no scaling)"), fontsize=6, labelpad=1)
    ax.set_ylabel(_("how often"), fontsize=6, labelpad=1)
    ax.legend(fontsize=5.5, loc="upper right", handlelength=1.2)
