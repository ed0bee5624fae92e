"""Notebook 10's figures: the three families' masks, the race against notebook 08's GRU (the numbers from
``analysis`` and results.json), and the index thumbnail (the Play panel is in ``live``).

Each function takes data (and an optional ``axes``) and returns what it drew on; nothing is drawn on import.
"""
import matplotlib.pyplot as plt
import numpy as np
import torch

from ...core import checks
from ...core.masking import causal_mask
from ...i18n import gettext as _
from ...ui.plotting import SERIES_COLORS, heatmap
from . import data
from .analysis import COMPARED, FAMILIES
from .model import decode, measured, pretrained

__all__ = ["EXAMPLE", "comparison_figure", "families_figure", "thumbnail", "token_label"]

EXAMPLE = "march 7, 1994"                  # the Play's starting date and the thumbnail's


def token_label(token):
    """A decoded token as a tick label: EOS and BOS by name."""
    return {data.EOS: "EOS", data.BOS: "BOS"}.get(token, token)


@checks.arguments(ax=checks.Axes())
def thumbnail(ax):
    """The index's small picture of this notebook: the last layer's cross-attention (mean of the heads)
    of the shipped model decoding "march 7, 1994", drawn into ``ax``."""
    d = decode(pretrained(), EXAMPLE)
    w = d.cross_attention[-1].mean(0)                                     # (steps, S)
    heatmap(w, x_labels=list(d.source), y_labels=[token_label(c) for c in d.tokens], ax=ax, colorbar=False,
            annotate=False, xlabel="", ylabel="")


@checks.arguments(n=checks.Int(1, 32, why="a readable picture"))
def families_figure(n=6, *, axes=None):
    """The three families' masks side by side (n source or text tokens): encoder-only self-attention
    sees every token; decoder-only is causal; encoder-decoder has a full encoder, a causal decoder and
    cross-attention from every target position to every source token. Returns the axes."""
    if axes is None:
        _fig, axes = plt.subplots(1, 4, figsize=(13, 3.4), layout="constrained")
    full = torch.ones(n, n)
    causal = causal_mask(n, n).float()
    panels = [(full, _(FAMILIES[0]) + "\n" + _("self-attention"), "x"),
              (causal, _(FAMILIES[1]) + "\n" + _("causal self-attention"), "x"),
              (causal, _(FAMILIES[2]) + "\n" + _("decoder self-attention"), "y"),
              (torch.ones(n, n), _(FAMILIES[2]) + "\n" + _("cross-attention"), "xy")]
    for ax, (mask, title, kind) in zip(axes, panels):
        xl = [f"x{i + 1}" for i in range(n)] if kind in ("x", "xy") else [f"y{i + 1}" for i in range(n)]
        yl = [f"x{i + 1}" for i in range(n)] if kind == "x" else [f"y{i + 1}" for i in range(n)]
        heatmap(mask, x_labels=xl, y_labels=yl, ax=ax, colorbar=False, annotate=False, title=title,
                xlabel=_("keys (yellow: may attend)"), ylabel=_("queries"))
    return axes


@checks.arguments(axes=checks.Optional(checks.Items(checks.Axes(), min_len=2,
                                                       max_len=2, kind=(list, tuple, np.ndarray))))
def comparison_figure(*, axes=None):
    """Held-out exact match on 08's format while training from scratch, notebook 08's GRU against this
    Transformer: against the training step (left) and the CPU seconds of training (right), both on a log
    scale, the first measurement at >= 0.99 marked. The numbers are results.json's "bahdanau" "curves"
    (measured by bench/bench_nb10_vs_nb08.py; a notebook imports only its own lesson). Returns the axes."""
    if axes is None:
        _fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), layout="constrained")
    curves = measured()["bahdanau"]["curves"]
    for i, name in enumerate(COMPARED):
        curve = curves[name]
        label = _("{name}: {params} parameters, batch {batch}").format(
            name=_(name), params=curve["parameters"], batch=curve["settings"]["batch_size"])
        first = curve["first at >= 0.99"]
        for ax, x, at in ((axes[0], curve["steps"], first["step"]),
                          (axes[1], curve["cpu seconds"], first["cpu seconds"])):
            ax.plot(x, curve["exact match"], color=SERIES_COLORS[i % len(SERIES_COLORS)], marker=".", label=label)
            if at is not None:
                ax.plot([at], [curve["exact match"][x.index(at)]], color=SERIES_COLORS[i % len(SERIES_COLORS)], marker="o", markersize=10,
                        fillstyle="none", linestyle="none")
    for ax, xlabel in ((axes[0], _("training step (log scale)")),
                       (axes[1], _("CPU seconds of training, one thread (log scale)"))):
        ax.axhline(0.99, color="0.5", linestyle="--", linewidth=1)
        ax.set(xscale="log", ylim=(0, 1.02), xlabel=xlabel, ylabel=_("held-out exact match"))
        ax.grid(True, alpha=0.3)
    axes[0].legend(loc="lower right", fontsize="small")
    axes[0].set_title(_("per training step"))
    axes[1].set_title(_("per CPU second"))
    return axes
