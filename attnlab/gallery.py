"""Thumbnails for the index notebook: one small figure per notebook, computed with attnlab itself
(so the index never shows a stale screenshot)."""
import math

import matplotlib.pyplot as plt
import numpy as np
import torch

from . import data
from .attention import nadaraya_watson, scaled_dot_product_attention
from .masking import causal_mask
from .positional import sinusoidal_encoding
from .plotting import heatmap


def _fit(ax):
    d = data.kernel_regression_data()
    for sigma, colour in ((0.1, "C3"), (0.5, "C1"), (3.0, "C2")):
        y_hat, _ = nadaraya_watson(d.x_test, d.x_train, d.y_train, sigma=sigma)
        ax.plot(d.x_test, y_hat, color=colour, label=f"σ={sigma}")
    ax.plot(d.x_train, d.y_train, "o", color="C0", markersize=2, alpha=0.5)
    ax.legend(fontsize=6, loc="lower right")


def _variance(ax):
    g = torch.Generator().manual_seed(0)
    for d_k, colour in ((4, "C0"), (64, "C3")):
        q, k = torch.randn(2, 4000, d_k, generator=g, dtype=torch.float64)
        ax.hist((q * k).sum(-1), bins=60, range=(-30, 30), histtype="step", color=colour, label=f"q·k, d_k={d_k}")
    ax.set_yticks([])
    ax.legend(fontsize=6)


def _heads(ax):
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(2, 3, 5, 8, generator=g)
    _, w = scaled_dot_product_attention(q, k, k, temperature=0.3)
    ax.imshow(torch.cat(list(w), dim=1).numpy(), cmap="viridis", vmin=0, vmax=1, aspect="auto")
    for h in (1, 2):
        ax.axvline(5 * h - 0.5, color="white", linewidth=2)
    ax.set_xticks([])
    ax.set_yticks([])


def _causal(ax):
    g = torch.Generator().manual_seed(2)
    x = torch.randn(6, 8, generator=g)
    _, w = scaled_dot_product_attention(x, x, x, causal_mask(6, 6))
    heatmap(w, ax=ax, colorbar=False, annotate=False, xlabel="", ylabel="")
    ax.set_xticks([])
    ax.set_yticks([])


def _cat_milk_it(ax):
    words, X = data.cat_milk_it("sweet")
    out, _ = scaled_dot_product_attention(X, X, X, scale=1 / math.sqrt(2))
    names = {"cat": "cat = it", "it": ""}
    for (x0, y0), (x1, y1), w in zip(X.tolist(), out.tolist(), words):
        ax.annotate("", (x1, y1), (x0, y0), arrowprops={"arrowstyle": "->", "color": "0.4"})
        ax.plot([x0], [y0], "o", mfc="none", color="C0")
        ax.plot([x1], [y1], "o", color="C1", markersize=4)
        ax.text(x0 + 0.12, y0 + 0.12, names.get(w, w), fontsize=7)
    ax.set_xlim(-0.5, 4.5)
    ax.set_ylim(-0.5, 4.8)


def _positions(ax):
    ax.imshow(sinusoidal_encoding(60, 32).T.numpy(), cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto")
    ax.set_xlabel("position", fontsize=7)
    ax.set_ylabel("dim", fontsize=7)


def _masks(ax):
    from .masking import local_mask
    both = torch.cat([causal_mask(6, 6), torch.zeros(6, 1, dtype=torch.bool), local_mask(6, 6, 1)], dim=1)
    ax.imshow(both.numpy(), cmap="gray_r", vmin=0, vmax=1.25, aspect="auto")
    ax.set_xticks([2.5, 9.5], ["causal", "local, w = 1"], fontsize=7)
    ax.set_yticks([])


def _alignment(ax):
    from . import seq2seq
    text = "17 mar 1994"
    out, w = seq2seq.translate(seq2seq.pretrained("additive"), [text])
    ax.imshow(w[0, :10].numpy(), cmap="viridis", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(text)), [c if c != " " else "␣" for c in text], fontsize=6)
    ax.set_yticks(range(10), list(out[0]), fontsize=6)


THUMBNAILS = {
    "01_kernel_regression": _fit,
    "02_scoring_functions": _variance,
    "03_multi_head_attention": _heads,
    "04_self_attention_walkthrough": _causal,
    "05_cat_milk_it": _cat_milk_it,
    "06_positional_encoding": _positions,
    "07_masks_and_efficient_attention": _masks,
    "08_bahdanau_attention": _alignment,
}

# One line under each title: what the small picture shows.
CAPTIONS = {
    "01_kernel_regression": "fits with σ too small, right, too large",
    "02_scoring_functions": "q·k spreads out as d_k grows",
    "03_multi_head_attention": "3 heads, each its own 5×5 weights",
    "04_self_attention_walkthrough": "causal weights: no looking ahead",
    "05_cat_milk_it": "each word (○) → its output (●)",
    "06_positional_encoding": "a sin/cos code for each position",
    "07_masks_and_efficient_attention": "masks: dark = may attend",
    "08_bahdanau_attention": "dates: output × input alignment",
}


def thumbnail(name, *, ax=None):
    """Draw the thumbnail of notebook ``name`` (e.g. "01_kernel_regression"); returns the Axes."""
    if name not in THUMBNAILS:
        raise ValueError(f"name: expected one of {sorted(THUMBNAILS)}, got {name!r}")
    if ax is None:
        _, ax = plt.subplots(figsize=(2.6, 1.8))
    THUMBNAILS[name](ax)
    ax.tick_params(labelsize=6)
    return ax


def gallery(names=None, *, columns=3):
    """All thumbnails in one figure, titled by notebook; returns the Figure."""
    names = list(names or THUMBNAILS)
    rows = math.ceil(len(names) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.4 * columns, 2.4 * rows), layout="constrained")
    for ax, name in zip(np.ravel(axes), names):
        thumbnail(name, ax=ax)
        title = name.replace("_", " ", 1).replace("_", " ")
        ax.set_title(f"{title}\n{CAPTIONS.get(name, '')}".strip(), fontsize=9)
    for ax in np.ravel(axes)[len(names):]:
        ax.set_visible(False)
    return fig
