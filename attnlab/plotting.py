"""Plot helpers: each takes data and an optional ``ax`` and returns the Axes it drew on.

Weights are drawn with viridis on a fixed 0–1 scale, so heads and settings compare by colour.
``update_heatmap`` changes a drawn heatmap in place, for the live panels.

Figure state lives in one place: ``heatmap_state(ax)`` is the record of a heatmap drawn on ``ax``
(its image, labels, number format, scale and the texts written in its cells), kept in a registry
keyed by the Axes (weakly: it goes when the Axes goes), never as attributes set on matplotlib objects.
"""
import weakref
from dataclasses import dataclass, field

import matplotlib.pyplot as plt
import numpy as np
import torch

WEIGHT_CMAP = "viridis"


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
        raise ValueError(f"ax: expected an Axes drawn by attnlab.plotting.heatmap, got {ax!r}") from None


def to_numpy(x):
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().double().numpy()
    return np.asarray(x, dtype=float)


def _annotate_default(w):
    return w.shape[0] * w.shape[1] <= 100


def _text_color(value, vmin, vmax):
    return "black" if (value - vmin) / ((vmax - vmin) or 1.0) > 0.6 else "white"


def heatmap(weights, *, x_labels=None, y_labels=None, ax=None, title=None, xlabel="keys",
            ylabel="queries", vmin=0.0, vmax=1.0, cmap=WEIGHT_CMAP, annotate=None, fmt="{:.2f}",
            colorbar=True):
    """Draw a (Tq, Tk) matrix of weights with token labels; returns the Axes.

    annotate (default: when there are at most 100 cells) writes each value in its cell.
    """
    w = to_numpy(weights)
    if w.ndim != 2:
        raise ValueError(f"weights: expected a 2-D (Tq, Tk) matrix, got shape {w.shape}")
    if ax is None:
        _, ax = plt.subplots(figsize=(1.2 + 0.55 * w.shape[1], 1.0 + 0.45 * w.shape[0]))
    im = ax.imshow(w, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto", interpolation="nearest")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    _HEATMAPS[ax] = HeatmapState(im, x_labels, y_labels, annotate, fmt, vmin, vmax)
    _set_ticks_and_text(ax, w)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    return ax


def update_heatmap(ax, weights, *, x_labels=None, y_labels=None, title=None):
    """Put new values (and, if given, labels) into a heatmap drawn by ``heatmap``; returns the Axes."""
    state = heatmap_state(ax)
    w = to_numpy(weights)
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
    _set_ticks_and_text(ax, w)
    return ax


def _tuple(labels):
    return None if labels is None else tuple(map(str, labels))


def _set_ticks_and_text(ax, w):
    state = heatmap_state(ax)
    rows, cols = w.shape
    ticks = (rows, cols, _tuple(state.x_labels), _tuple(state.y_labels))
    if state.ticks != ticks:     # unchanged ticks stay untouched, so a live panel need not redraw them
        state.ticks = ticks
        ax.set_xticks(range(cols))
        ax.set_yticks(range(rows))
        ax.set_xticklabels(state.x_labels if state.x_labels is not None else range(cols),
                           rotation=45 if state.x_labels is not None else 0,
                           ha="right" if state.x_labels is not None else "center")
        ax.set_yticklabels(state.y_labels if state.y_labels is not None else range(rows))
    annotate = state.annotate if state.annotate is not None else _annotate_default(w)
    if not annotate or len(state.cells) != rows * cols:
        for t in state.cells:
            t.remove()
        state.cells = [ax.text(j, i, "", ha="center", va="center", fontsize=8)
                       for i in range(rows) for j in range(cols)] if annotate else []
    for t, value in zip(state.cells, w.ravel()):
        t.set_text(state.fmt.format(value))
        t.set_color(_text_color(value, state.vmin, state.vmax))


def heads_grid(weights, *, x_labels=None, y_labels=None, axes=None, titles=None, annotate=False):
    """One heatmap per head from (H, Tq, Tk) weights, on a shared 0–1 colour bar; returns the axes."""
    w = to_numpy(weights)
    if w.ndim != 3:
        raise ValueError(f"weights: expected (H, Tq, Tk), got shape {w.shape}")
    H = w.shape[0]
    if axes is None:
        cols = min(H, 4)
        rows = -(-H // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.8 * rows), squeeze=False,
                                 layout="constrained")
    axes = np.asarray(axes).ravel()
    for h, ax in enumerate(axes):
        if h >= H:
            ax.set_visible(False)
            continue
        ax.set_visible(True)
        heatmap(w[h], x_labels=x_labels, y_labels=y_labels, ax=ax, colorbar=False, annotate=annotate,
                title=titles[h] if titles else f"head {h + 1}")
    axes[0].figure.colorbar(axes[0].images[0], ax=list(axes[:H]), shrink=0.8, label="weight")
    return axes


def weights_summary(weights, x_labels=None, y_labels=None, *, top=2):
    """Text for readers who can't see colour: each query row's largest weights, one line per row."""
    w = to_numpy(weights)
    xs = list(x_labels) if x_labels is not None else [str(j) for j in range(w.shape[1])]
    ys = list(y_labels) if y_labels is not None else [str(i) for i in range(w.shape[0])]
    lines = []
    for i, row in enumerate(w):
        if row.sum() == 0:
            lines.append(f"{ys[i]}: no visible key (all weights 0)")
            continue
        best = np.argsort(-row, kind="stable")[:top]
        lines.append(f"{ys[i]}: " + ", ".join(f"{xs[j]} {row[j]:.2f}" for j in best))
    return "\n".join(lines)
