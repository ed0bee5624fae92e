"""Notebook 01's figures: the fit plot, pooling weights compared, weight maps and the index thumbnail.

State lives in the objects returned here (``FitLines``), never on matplotlib objects. The Play panels are
in ``live``.
"""
from typing import NamedTuple

import matplotlib.pyplot as plt
import torch
from matplotlib.patches import Rectangle

from ...core import checks
from ...core.attention import nadaraya_watson
from ...i18n import N_, gettext as _
from ...ui.plotting import SERIES_COLORS, heatmap, heatmap_state, to_numpy
from . import data

__all__ = ["FitLines", "POOLINGS", "every_label", "fit_lines", "kernel_regression_plot", "pooling_weights", "thumbnail",
           "weight_maps"]

_AX = checks.Axes()
_LINE = checks.Array(1)
_PREDICTION = N_("prediction")          # the fit's default legend label, shown translated


class FitLines(NamedTuple):
    """The artists of one fit plot: dashed truth, orange prediction, blue training points (or None)."""
    truth: object
    fit: object
    points: object


@checks.arguments(ax=_AX, x_test=_LINE, y_truth=_LINE, y_hat=_LINE, x_train=checks.Optional(_LINE),
                   y_train=checks.Optional(_LINE), label=checks.Text())
def fit_lines(ax, x_test, y_truth, y_hat, x_train=None, y_train=None, *, label=_PREDICTION):
    """Draw truth, prediction and (optionally) the training points into ``ax``; returns FitLines."""
    xs, truth_, fit_ = (to_numpy(v).ravel() for v in (x_test, y_truth, y_hat))
    for name, values in (("y_truth", truth_), ("y_hat", fit_)):
        if values.shape != xs.shape:
            raise checks.error(name, f"{xs.shape[0]} values, one per x_test", values.shape[0])
    if (x_train is None) != (y_train is None):
        raise checks.error("y_train", "x_train and y_train together (both or neither)",
                           f"{'x_train' if y_train is None else 'y_train'} alone")
    if x_train is not None and to_numpy(x_train).size != to_numpy(y_train).size:
        raise checks.error("y_train", f"{to_numpy(x_train).size} values, one per x_train", to_numpy(y_train).size)
    truth, = ax.plot(to_numpy(x_test), to_numpy(y_truth), label=_("truth"), color="0.3", linestyle="--")
    label = _(_PREDICTION) if label == _PREDICTION else label             # the caller translates a label it gives
    fit, = ax.plot(to_numpy(x_test), to_numpy(y_hat), label=label, color=SERIES_COLORS[1], linewidth=2)
    points = None
    if x_train is not None:
        points, = ax.plot(to_numpy(x_train), to_numpy(y_train), "o", color=SERIES_COLORS[0], alpha=0.5, markersize=4,
                          label=_("training data"))
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_xlim(0, 5)
    ax.legend(loc="upper right", fontsize=8)
    return FitLines(truth, fit, points)


@checks.arguments(ax=checks.Optional(_AX), x_test=_LINE, y_truth=_LINE, y_hat=_LINE,
                   x_train=checks.Optional(_LINE), y_train=checks.Optional(_LINE), label=checks.Text())
def kernel_regression_plot(x_test, y_truth, y_hat, x_train=None, y_train=None, *, ax=None, label=_PREDICTION):
    """Truth, prediction and (optionally) the training points; returns the Axes."""
    if ax is None:
        ax = plt.subplots(figsize=(6, 3.5))[1]
    fit_lines(ax, x_test, y_truth, y_hat, x_train, y_train, label=label)
    return ax


POOLINGS = (N_("average pooling"), N_("max pooling"), N_("attention pooling"))    # keys; shown as _(name)


@checks.arguments(x_queries=checks.Tensor(min_dim=1), x_train=checks.Tensor(1), y_train=checks.Tensor(1))
def pooling_weights(x_queries, x_train, y_train, *, sigma=0.3):
    """The weight each pooling gives each value, per query: {name in POOLINGS: (Tq, n)}.

    average pooling: 1/n everywhere (no cue at all); max pooling: one-hot on the largest value yᵢ
    (seed 003's saliency-based attention (显著性注意力): the most salient input wins, whatever the
    query); attention pooling: Nadaraya-Watson weights softmax(-(x - xᵢ)² / (2σ²)) (focused attention
    (聚焦式注意力): the query decides).
    """
    if x_queries.dim() != 1:
        raise checks.error("x_queries", "a 1-D tensor of positions (Tq,)", f"shape {tuple(x_queries.shape)}")
    _, attention = nadaraya_watson(x_queries, x_train, y_train, sigma=sigma)        # (Tq, n), checks the rest
    tq, n = attention.shape
    average = torch.full((tq, n), 1.0 / n, dtype=attention.dtype)
    largest = torch.zeros(tq, n, dtype=attention.dtype)
    largest[:, int(y_train.argmax())] = 1.0
    return dict(zip(POOLINGS, (average, largest, attention)))

def every_label(xs, k):
    """Tick labels for ``xs``: every k-th value with one decimal, the others blank."""
    return [f"{v:.1f}" if i % k == 0 else "" for i, v in enumerate(xs.tolist())]

@checks.arguments(ax=_AX)
def thumbnail(ax):
    """The index's small picture of this notebook, drawn into ``ax``: fits at three widths."""
    d = data.kernel_regression_data()
    ax.plot(to_numpy(d.x_train), to_numpy(d.y_train), "o", color="0.6", markersize=2, label=_("data"))
    for sigma, colour in ((0.05, SERIES_COLORS[3]), (0.3, SERIES_COLORS[1]), (3.0, SERIES_COLORS[2])):
        y_hat = nadaraya_watson(d.x_test, d.x_train, d.y_train, sigma=sigma)[0]
        ax.plot(to_numpy(d.x_test), to_numpy(y_hat), color=colour, linewidth=1.2, label=f"σ = {sigma}")
    ax.set_xlabel(_("x (query)"), fontsize=6, labelpad=1)
    ax.set_ylabel(_("prediction"), fontsize=6, labelpad=1)
    ax.legend(fontsize=5.5, loc="lower right", ncol=2, handlelength=1.2, columnspacing=0.8)


@checks.arguments(x_test=_LINE, x_train=_LINE, maps=checks.Items(max_len=6), row=checks.Optional(checks.Int(0)),
                   every=checks.Int(1))
def weight_maps(x_test, x_train, maps, *, row=None, every=5):
    """Weight matrices side by side on one fixed 0–1 colour bar: maps = [(weights (Tq, Tk), sigma), ...].

    ``row`` (a query index) is boxed in red in every map. Returns the Figure.
    """
    if not maps:
        raise checks.error("maps", "at least one (weights, sigma) pair", "none")
    fig, axes = plt.subplots(1, len(maps), figsize=(5.5 * len(maps), 4.6), layout="constrained", squeeze=False)
    for ax, (weights, sigma) in zip(axes[0], maps):
        heatmap(weights, x_labels=every_label(x_train, every), y_labels=every_label(x_test, every), ax=ax, annotate=False,
                colorbar=False, xlabel=_("keys: training inputs xᵢ (sorted)"), ylabel=_("queries: test inputs x"),
                title=_("Nadaraya-Watson weights, σ = {sigma}").format(sigma=sigma))
        if row is not None:
            ax.add_patch(Rectangle((-0.5, row - 0.5), weights.shape[1], 1, fill=False, edgecolor="red", linewidth=1.5))
    fig.colorbar(heatmap_state(axes[0, 0]).image, ax=list(axes[0]), shrink=0.8,
                 label=_("attention weight (fixed 0–1 scale)"))
    return fig
