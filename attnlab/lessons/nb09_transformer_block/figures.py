"""Figures of notebook 09: the block as a diagram, "it"'s attention per layer and head, the heads'
accuracy over the test split, the ablations' measured accuracy, and the index's thumbnail.

Each function takes data (and an optional ``ax``) and returns the Axes; nothing is drawn on import.
"""
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyBboxPatch

from ...core import checks
from ...i18n import N_, gettext as _
from ...ui import plotting
from ...ui.plotting import SERIES_COLORS
from .model import Resolution, pretrained, resolve

__all__ = [
    "BLOCK_PARTS", "TICK_LABELS", "block_diagram", "row_labels", "attention_rows", "it_attention", "head_accuracy_map",
    "ablation_bars", "pointer_rows", "thumbnail"
]

# (label, job, colour) from the bottom of the diagram to its top; label and job marked N_, drawn with _().
BLOCK_PARTS = [
    (N_("word embedding\n+ positional encoding"), N_("a vector per word, plus where it stands"), "#dddddd"),
    ("LayerNorm", N_("rescale each word's vector to mean 0, variance 1"), "#fde7a9"),
    (N_("multi-head self-attention"), N_("each word gathers information from the others"), "#b9d7f0"),
    (N_("+  (residual)"), N_("add what was gathered to what the word already was"), "#ffffff"),
    ("LayerNorm", N_("rescale again"), "#fde7a9"),
    (N_("position-wise FFN"), N_("each word on its own: Linear → ReLU → Linear"), "#c8e6c1"),
    (N_("+  (residual)"), N_("add the FFN's change to the word"), "#ffffff"),
]


# An ablation's tick label where its name is too long for one line: a whole message of its own,
# broken where each language breaks it (names not here are one line: their _(name)).
TICK_LABELS = {
    "6 blocks, no residual": N_("6 blocks,\nno residual"),
}

_AX = checks.Axes()
_RESOLUTION = checks.Instance(Resolution, "a Resolution (from resolve)")


@checks.arguments(ax=checks.Optional(_AX), num_layers=checks.Int(1, 12))
def block_diagram(ax=None, *, num_layers=2):
    """The pre-norm encoder block, bottom to top, each part with its job; returns the Axes."""
    if ax is None:
        _fig, ax = plt.subplots(figsize=(9, 5.2), layout="constrained")
    ax.set_xlim(0, 10)
    ax.set_ylim(-0.4, len(BLOCK_PARTS) + 1.1)
    ax.set_axis_off()
    for i, (label, job, colour) in enumerate(BLOCK_PARTS):
        y = i + 0.5
        box = FancyBboxPatch((0.3, y - 0.32), 3.6, 0.64, boxstyle="round,pad=0.02,rounding_size=0.12",
                             facecolor=colour, edgecolor="0.3", linewidth=1.2)
        ax.add_patch(box)
        ax.text(2.1, y, _(label), ha="center", va="center", fontsize=9)
        ax.text(4.3, y, _(job), ha="left", va="center", fontsize=9, color="0.15")
        if i:
            ax.annotate("", (2.1, y - 0.32), (2.1, y - 0.68), arrowprops={"arrowstyle": "->", "color": "0.3"})
    for top, bottom in ((3.5, 0.85), (6.5, 3.85)):          # the residual paths skip their sublayer
        ax.annotate("", (0.3, top), (0.3, bottom), arrowprops={
            "arrowstyle": "->", "color": "#c0392b", "linewidth": 1.6,
            "connectionstyle": "arc,angleA=180,angleB=180,armA=14,armB=14,rad=6"})
    ax.add_patch(FancyBboxPatch((0.05, 1.05), 9.8, 5.9, boxstyle="round,pad=0.02", fill=False,
                                edgecolor="0.55", linestyle="--"))
    ax.text(9.8, 6.98, _("one encoder block, repeated ×{n}").format(n=num_layers), ha="right", va="bottom", fontsize=9,
            color="0.35")
    ax.text(2.1, len(BLOCK_PARTS) + 0.6, _("after the last block's attention: “it”'s weights point at the referent"),
            ha="left", va="center", fontsize=9.5, fontweight="bold")
    ax.set_title(_("A Transformer encoder block (pre-norm); red arrows: the residual paths"), fontsize=11)
    return ax


@checks.arguments(num_layers=checks.Int(1, 64), num_heads=checks.Int(1, 64))
def row_labels(num_layers, num_heads):
    """Row labels of ``attention_rows``: "block 1 · head 1", ..., then the answer row."""
    return ([_("block {block} · head {head}").format(block=l + 1, head=h + 1)
             for l in range(num_layers) for h in range(num_heads)]
            + [_("answer (block {block} mean)").format(block=num_layers)])


@checks.arguments(resolution=_RESOLUTION)
def attention_rows(resolution):
    """(layers·heads + 1, n_words): every head's "it" weights, then the pointer (the last layer's mean)."""
    L, H, n = resolution.attention.shape
    return np.vstack([resolution.attention.reshape(L * H, n).numpy(), resolution.pointer.numpy()[None]])


@checks.arguments(resolution=_RESOLUTION, ax=checks.Optional(_AX))
def it_attention(resolution, ax=None, *, title=None):
    """Heatmap: one row per (layer, head) of the query "it", plus the answer row; returns the Axes."""
    rows = attention_rows(resolution)
    L, H, n = resolution.attention.shape
    if ax is None:
        _fig, ax = plt.subplots(figsize=(1.6 + 0.62 * n, 0.9 + 0.34 * rows.shape[0]), layout="constrained")
    plotting.heatmap(rows, x_labels=resolution.words, y_labels=row_labels(L, H), ax=ax, xlabel=_("the sentence's words (keys)"),
                     ylabel="", annotate=True, fmt="{:.2f}",
                     title=title or _("where “it” looks: answer = {referent}").format(referent=resolution.referent))
    ax.axhline(L * H - 0.5, color="white", linewidth=3)
    for l in range(1, L):
        ax.axhline(l * H - 0.5, color="white", linewidth=1.5)
    return ax


@checks.arguments(accuracy=checks.Array(2), ax=checks.Optional(_AX))
def head_accuracy_map(accuracy, ax=None):
    """(layers, heads) fractions of test sentences whose head's peak is the referent; returns the Axes."""
    acc = np.asarray(accuracy, dtype=float)
    if ax is None:
        _fig, ax = plt.subplots(figsize=(1.8 + 1.0 * acc.shape[1], 0.9 + 0.7 * acc.shape[0]), layout="constrained")
    plotting.heatmap(acc, x_labels=[_("head {head}").format(head=h + 1) for h in range(acc.shape[1])],
                     y_labels=[_("block {block}").format(block=l + 1) for l in range(acc.shape[0])], ax=ax,
                     xlabel="", ylabel="", annotate=True, fmt="{:.3f}",
                     title=_("how often the head's peak is the referent (test split)"))
    ax.tick_params(axis="x", labelrotation=0)
    return ax


@checks.arguments(measured=checks.Dict(), ax=checks.Optional(_AX))
def ablation_bars(measured, ax=None):
    """Bars: train and test accuracy of the full model and each ablation, as measured; returns the Axes."""
    rows = measured["ablations"]
    names = list(rows)
    if ax is None:
        _fig, ax = plt.subplots(figsize=(10, 3.6), layout="constrained")
    x = np.arange(len(names))
    for offset, split, colour, label in ((-0.2, "train", SERIES_COLORS[0], _("train accuracy")), (0.2, "test", SERIES_COLORS[1], _("test accuracy"))):
        values = [rows[n][split] for n in names]
        bars = ax.bar(x + offset, values, width=0.38, color=colour, label=label)
        ax.bar_label(bars, labels=[f"{v:.3f}" for v in values], fontsize=7, padding=1)
    ax.axhline(0.95, color="0.4", linestyle=":", linewidth=1)
    ax.text(len(names) - 0.5, 0.955, _("target 0.95"), ha="right", va="bottom", fontsize=7, color="0.4")
    ax.set_xticks(x, [_(TICK_LABELS.get(n, n)) for n in names], fontsize=8.5)
    ax.set(ylim=(0, 1.12), ylabel=_("accuracy"),
           title=_("the shipped model and its ablations, each trained {steps} steps, same seed and data").format(
               steps=measured["steps"]))
    ax.legend(loc="lower left", fontsize=8)
    return ax


@checks.arguments(ax=_AX, resolutions=checks.Items(_RESOLUTION, min_len=1))
def pointer_rows(ax, resolutions):
    """The index's small picture: the answer row ("it"'s pointer) for sentences of the same length,
    one row each, labelled by their last word (seed 004's "sweet" / "hungry")."""
    w = np.vstack([r.pointer.numpy() for r in resolutions])
    im = ax.imshow(w, cmap=plotting.WEIGHT_CMAP, vmin=0, vmax=1, aspect="auto")
    words = list(resolutions[0].words[:-1]) + ["…"]
    ax.set_xticks(range(len(words)), words, rotation=60, ha="right", fontsize=6)
    ax.set_yticks(range(len(resolutions)), [_("…{word}: it →").format(word=r.words[-1]) for r in resolutions],
                  fontsize=6)
    ax.set_xlabel(_("word the pointer from “it” lands on"), fontsize=6)
    cbar = ax.figure.colorbar(im, ax=ax, fraction=0.05, pad=0.03)
    cbar.ax.tick_params(labelsize=5)
    cbar.set_label(_("weight"), fontsize=6)
    return ax


@checks.arguments(ax=_AX)
def thumbnail(ax):
    """The index's small picture of this notebook, drawn into ``ax``."""
    model = pretrained()
    pointer_rows(ax, [resolve(model, f"the cat drank the milk because it was {adjective}")
                      for adjective in ("sweet", "hungry")])
