"""Figures for notebook 04: the table of the six steps (drawn once, then updated in place through
the ``StepTable`` it returns) and the cost and path-length plots of self-attention, RNN and CNN
layers against sequence length n."""
from dataclasses import dataclass, field

import numpy as np
import torch

from ...core import checks
from ...core.attention import scaled_dot_product_attention
from ...core.masking import causal_mask
from ...i18n import N_, gettext as _
from ...ui.plotting import SERIES_COLORS, heatmap, heatmap_state, text_color
from .steps import COMPLEXITY, LAYER_TYPES, crossover, layer_cost, path_length, plain_label

__all__ = ["StepTable", "draw_step_table", "cost_plot", "path_plot", "thumbnail"]

_AX = checks.Axes()
_LAYER_NAMES = {"self-attention": N_("self-attention")}        # shown with _(); RNN and CNN stay as they are


def _drawable(label):
    """A step label as drawn: mathtext ("$W^Q$"), unless it holds CJK characters, which mathtext's
    fonts do not have; then in the prose's Unicode symbols ("W^Q", "q₁·kⱼ"), as ``plain_label`` writes them."""
    return plain_label(label) if "$" in label and any("\u2e80" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef"
                                                    for c in label) else label


# ---- figures (take data and an optional ax, return the Axes; update in place for the panels) ----

@dataclass
class StepTable:
    """The text artists of one ``draw_step_table``: the Axes, a label per row and a cell per (row, word).
    ``update`` puts new rows (same size) into them; the table's state lives here, not on the Axes."""
    ax: object
    labels: list = field(default_factory=list)
    cells: list = field(default_factory=list)

    def update(self, table, *, current=None, title=None):
        """Show new ``step_table`` rows; rows up to the current step black, the current one orange and
        bold, later ones grey "?". Returns self."""
        if len(table) != len(self.labels) or any(len(row) != len(c) for (_, _, row), c in zip(table, self.cells)):
            raise checks.error("table", f"{len(self.labels)} rows of {len(self.cells[0])} cells as when drawn",
                               f"{len(table)} rows")
        shown = [n for n, _, row in table if all(c != "?" for c in row)]
        current = max(shown) if current is None and shown else current
        for r, (n, label, row) in enumerate(table):
            hidden = any(c == "?" for c in row)
            color = text_color("0.6") if hidden else (text_color(SERIES_COLORS[1]) if n == current else "black")
            self.labels[r].set_text(_drawable(f"{n}  {label}" if n else f"   {label}"))
            self.labels[r].set_color(color)
            self.labels[r].set_fontweight("bold" if n == current and not hidden else "normal")
            for text, c in zip(self.cells[r], row):
                text.set_text(c)
                text.set_color(color)
        if title is not None:
            self.ax.set_title(title, fontsize=10)
        return self


@checks.arguments(table=checks.Items(min_len=1), words=checks.Items(checks.Text(), min_len=1), ax=checks.Optional(_AX))
def draw_step_table(table, words, *, ax=None, title=None, current=None):
    """Draw ``step_table`` rows as a text table (words across, steps down); returns a ``StepTable``
    handle whose ``update`` changes it in place."""
    import matplotlib.pyplot as plt

    if ax is None:
        _fig, ax = plt.subplots(figsize=(7.5, 3.6))
    ax.set_axis_off()
    ax.set_xlim(0, 1)
    ax.set_ylim(len(table) + 0.5, -1)
    n = len(words)
    x_cells = [0.24 + (0.76 / n) * (j + 0.5) for j in range(n)]
    ax.text(0.0, -0.5, _("step"), ha="left", va="center", fontsize=9.5, color="0.35")
    for j, w in enumerate(words):
        ax.text(x_cells[j], -0.5, w, ha="center", va="center", fontsize=11, fontweight="bold")
    handle = StepTable(ax)
    for r, (_step, label, row) in enumerate(table):
        handle.labels.append(ax.text(0.0, r + 0.5, _drawable(label), ha="left", va="center", fontsize=9.5))
        handle.cells.append([ax.text(x_cells[j], r + 0.5, c, ha="center", va="center", fontsize=9,
                                     family="monospace") for j, c in enumerate(row)])
    if title:
        ax.set_title(title, fontsize=10)
    return handle.update(table, current=current)


@checks.arguments(d=checks.Int(1, 10 ** 6), k=checks.Int(1, 1000), ax=checks.Optional(_AX))
def cost_plot(d=512, k=3, n=None, *, ax=None):
    """Cost per layer against sequence length n (log axes) for CNN, RNN, self-attention; returns the Axes.

    Marks n = d, where self-attention (n²d) overtakes an RNN (n d²), and n = k·d (a CNN). Labels use
    the notebook's letters: D for the width d, κ for the kernel width k.
    """
    import matplotlib.pyplot as plt

    n = np.logspace(0, 5, 200) if n is None else np.asarray(n, dtype=float)
    if ax is None:
        _fig, ax = plt.subplots(figsize=(6, 3.6))
    styles = {"self-attention": (SERIES_COLORS[0], "-"), "RNN": (SERIES_COLORS[1], "--"), "CNN": (SERIES_COLORS[2], ":")}
    for kind in LAYER_TYPES:
        color, ls = styles[kind]
        ax.loglog(n, layer_cost(kind, n, d, k), color=color, linestyle=ls, linewidth=2,
                  label=f"{_(_LAYER_NAMES.get(kind, kind))}  {COMPLEXITY[kind][0]}")
    for x, text, color in ((crossover(d, k, "RNN"), f"n = D = {d}", SERIES_COLORS[1]),
                           (crossover(d, k, "CNN"), f"n = κ·D = {k * d}", SERIES_COLORS[2])):
        ax.axvline(x, color="0.5", linewidth=0.8)
        ax.plot([x], [layer_cost("self-attention", x, d, k)], "o", color=color, markersize=6)
        ax.text(x * 1.15, 0.03, text, transform=ax.get_xaxis_transform(), rotation=90,
                va="bottom", ha="left", fontsize=8)
    ax.set_xlabel(_("sequence length n (tokens)"))
    ax.set_ylabel(_("multiply-adds per layer (constants dropped)"))
    ax.set_title(_("cost per layer, D = {d}, κ = {k}").format(d=d, k=k), fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    return ax


@checks.arguments(k=checks.Int(2, 1000), ax=checks.Optional(_AX))
def path_plot(k=3, n=None, *, ax=None):
    """Maximum path length against n (log axes): RNN n, CNN n/k or log_k n, self-attention 1."""
    import matplotlib.pyplot as plt

    n = np.logspace(0, 5, 200) if n is None else np.asarray(n, dtype=float)
    if ax is None:
        _fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.loglog(n, path_length("self-attention", n), color=SERIES_COLORS[0], linewidth=2, label=_("self-attention  O(1)"))
    ax.loglog(n, path_length("RNN", n), color=SERIES_COLORS[1], linestyle="--", linewidth=2, label="RNN  O(n)")
    ax.loglog(n, path_length("CNN", n, k), color=SERIES_COLORS[2], linestyle=":", linewidth=2, label=_("CNN, contiguous  O(n/κ)"))
    ax.loglog(n, path_length("CNN", n, k, dilated=True), color=SERIES_COLORS[2], linestyle="-.",
              linewidth=2, label=_("CNN, dilated  O(log_κ n)"))
    ax.set_xlabel(_("sequence length n (tokens)"))
    ax.set_ylabel(_("maximum path length"))
    ax.set_title(_("longest path between two tokens, κ = {k}").format(k=k), fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    return ax


@checks.arguments(ax=_AX)
def thumbnail(ax):
    """The index's small picture of this notebook, drawn into ``ax``."""
    g = torch.Generator().manual_seed(2)
    x = torch.randn(6, 8, generator=g)
    _out, w = scaled_dot_product_attention(x, x, x, causal_mask(6, 6))
    heatmap(w, ax=ax, colorbar=False, annotate=False, xlabel=_("keys (j)"), ylabel=_("queries (i)"))
    ax.set_xticks([])
    ax.set_yticks([])
    ax.xaxis.label.set_fontsize(6)
    ax.yaxis.label.set_fontsize(6)
    cbar = ax.figure.colorbar(heatmap_state(ax).image, ax=ax, fraction=0.05, pad=0.03)
    cbar.ax.tick_params(labelsize=5)
    cbar.set_label(_("weight"), fontsize=6)

