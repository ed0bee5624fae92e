"""Figures of notebook 14, each from data (results.json's curves, a model's weights), drawn into new axes or the
given ones and returned; nothing is drawn on import. Every encoding keeps one colour, marker and line style.

    curves_figure         accuracy against the test length, one panel per task: the mean over seeds, their
                          spread shaded, the training range in grey, where a learned model has no rows
    interpolation_figure  RoPE's accuracy past the training range, as trained and with position interpolation
    angles_figure         the angles RoPE and the sinusoidal P meet in training and at 4 x the training length
    alibi_figure          ALiBi's penalty against the distance, one line per head
    counting_figure       the weight each head of a layer puts on the first token, against 1 / (t + 1)
    thumbnail             the index's picture
"""
import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes

from ...core import checks
from ...i18n import N_, gettext as _
from ...ui.plotting import SERIES_COLORS
from .data import MIN_LENGTH, TASKS, TRAIN_LENGTH
from .model import ENCODINGS, MODEL, alibi_bias_unchecked, largest_angles

__all__ = ["NAMES", "STYLE", "TASK_NAMES", "alibi_figure", "angles_figure", "counting_figure", "curves_figure",
           "interpolation_figure", "shade_training", "spread", "thumbnail"]

NAMES = {"nope": N_("NoPE (no positions)"), "learned": N_("learned"), "sinusoidal": N_("sinusoidal"),
         "rope": "RoPE", "alibi": "ALiBi"}
TASK_NAMES = {"copy": N_("copy: the answer follows the earlier occurrence of the current symbol"),
              "latest": N_("latest: the answer is the value its key got last")}
# colour, marker, line style: highlighted series differ by more than colour
STYLE = {"nope": (SERIES_COLORS[0], "o", "-"), "learned": (SERIES_COLORS[7], "s", ":"),
         "sinusoidal": (SERIES_COLORS[3], "v", "-."), "rope": (SERIES_COLORS[1], "D", "--"),
         "alibi": (SERIES_COLORS[2], "^", "-")}
_AX = checks.Optional(checks.Instance(Axes, "a matplotlib Axes"))
_SHADE = dict(color="0.88", zorder=0)


def _new(ax, size):
    return plt.subplots(figsize=size, layout="constrained")[1] if ax is None else ax


def shade_training(ax, train_length=TRAIN_LENGTH, label=True):
    """Grey behind the lengths trained on (TRAIN_LENGTH / 2 .. TRAIN_LENGTH)."""
    ax.axvspan(train_length // 2, train_length, **_SHADE, label=_("trained on") if label else None)


def spread(runs):
    """{seed: {length: accuracy}} -> (lengths, mean, lowest, highest) over the seeds, numpy arrays."""
    tables = list(runs.values())
    lengths = sorted({int(k) for t in tables for k in t})
    values = np.array([[t[str(L)] if str(L) in t else t[L] for t in tables] for L in lengths])   # (lengths, seeds)
    return np.array(lengths), values.mean(1), values.min(1), values.max(1)


def _curve(ax, encoding, runs, label):
    colour, marker, style = STYLE[encoding]
    lengths, mean, low, high = spread(runs)
    ax.fill_between(lengths, low, high, color=colour, alpha=0.18, linewidth=0)
    return ax.plot(lengths, mean, color=colour, marker=marker, linestyle=style, markersize=4, label=label)[0]


@checks.arguments(results=checks.Dict(), axes=checks.Optional(checks.Items(checks.Axes(), min_len=2, max_len=2)))
def curves_figure(results, axes=None):
    """Accuracy against the test length for every encoding (results.json, ``measured()``), one panel per task:
    the mean over the seeds as a line, lowest to highest seed shaded; returns the axes."""
    if axes is None:
        axes = plt.subplots(1, 2, figsize=(14, 4.2), layout="constrained", sharey=True)[1]
    train_length = results["train length"]
    for ax, task in zip(axes, TASKS):
        shade_training(ax, train_length)
        for encoding in ENCODINGS:
            runs = {seed: run["curve"] for seed, run in results["runs"][task][encoding].items()}
            _curve(ax, encoding, runs, _(NAMES[encoding]))
        ax.axvline(train_length, color="0.45", linewidth=0.8)
        ax.text(train_length + 1, 0.03, _("learned: no position\nvectors past {n}").format(n=train_length),
                fontsize=8, color="0.3")
        ax.set(xlabel=_("test length n (tokens)"), ylim=(0, 1.03), xlim=(0, max(results["curve"]["lengths"]) + 2),
               title=_(TASK_NAMES[task]))
        ax.title.set_fontsize(10)
    axes[0].set_ylabel(_("accuracy on the scored tokens"))
    axes[-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return axes


@checks.arguments(results=checks.Dict(), axes=checks.Optional(checks.Items(checks.Axes(), min_len=2, max_len=2)))
def interpolation_figure(results, axes=None):
    """RoPE's accuracy against the test length as trained (positions 0, 1, 2, ...) and with position
    interpolation (positions scaled by TRAIN_LENGTH / n past the training range), one panel per task."""
    if axes is None:
        axes = plt.subplots(1, 2, figsize=(11, 3.6), layout="constrained", sharey=True)[1]
    for ax, task in zip(axes, TASKS):
        shade_training(ax, results["train length"])
        runs = results["runs"][task]["rope"]
        _curve(ax, "rope", {s: r["curve"] for s, r in runs.items()}, _("RoPE, positions as trained"))
        colour = SERIES_COLORS[4]
        lengths, mean, low, high = spread({s: r["interpolated"] for s, r in runs.items()})
        ax.fill_between(lengths, low, high, color=colour, alpha=0.18, linewidth=0)
        ax.plot(lengths, mean, color=colour, marker="x", linestyle="-", label=_("RoPE, positions × {L}/n").format(
            L=results["train length"]))
        ax.set(xlabel=_("test length n (tokens)"), ylim=(0, 1.03), title=_(TASK_NAMES[task]))
        ax.title.set_fontsize(10)
    axes[0].set_ylabel(_("accuracy on the scored tokens"))
    axes[0].legend(fontsize=8, loc="lower left")
    return axes


@checks.arguments(axes=checks.Optional(checks.Items(checks.Axes(), min_len=2, max_len=2)))
def angles_figure(axes=None, *, train_length=TRAIN_LENGTH, test_length=4 * TRAIN_LENGTH):
    """For each column pair: the angles from 0 to the largest one met in training (dark) and at the test length
    (light), up to one full turn (2π, every angle). Left RoPE in one head (size d = D / H: offsets 0 .. n-1),
    right the sinusoidal P of width D (positions 0 .. n-1). A pair whose dark bar stops short of 2π meets
    angles at the test length that it never met in training."""
    if axes is None:
        axes = plt.subplots(1, 2, figsize=(13, 3.6), layout="constrained")[1]
    for ax, width, title in ((axes[0], MODEL["width"] // MODEL["heads"], _("RoPE in one head (d = {d})")),
                             (axes[1], MODEL["width"], _("sinusoidal P (D = {d})"))):
        seen, met = largest_angles(train_length, width).numpy(), largest_angles(test_length, width).numpy()
        j = np.arange(len(seen))
        ax.barh(j, np.minimum(met, 2 * math.pi), color="0.8", hatch="//", edgecolor="0.55",
                label=_("at n = {n}").format(n=test_length))
        ax.barh(j, np.minimum(seen, 2 * math.pi), color=SERIES_COLORS[0], label=_("in training, n ≤ {n}").format(
            n=train_length))
        ax.axvline(2 * math.pi, color="0.3", linestyle=":")
        ax.set_xscale("log")
        ax.set_xticks([0.001, 0.01, 0.1, 1, 2 * math.pi], ["0.001", "0.01", "0.1", "1", "2π"])
        ax.minorticks_off()
        ax.set(xlim=(5e-4, 2 * math.pi * 1.15), ylim=(len(j) - 0.5, -0.5), title=title.format(d=width),
               xlabel=_("largest angle (n − 1) ω_j in radians, log scale (dotted: a full turn, 2π)"),
               ylabel=_("column pair j"))
        ax.title.set_fontsize(10)
    axes[1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return axes


@checks.arguments(heads=checks.Int(1, 64), length=checks.Int(2, 4096), ax=_AX)
def alibi_figure(heads=MODEL["heads"], length=4 * TRAIN_LENGTH, ax=None, *, train_length=TRAIN_LENGTH):
    """ALiBi's bias -m_h · (i - j) against the distance i - j, one line per head, the distances met in
    training shaded: past them the penalty keeps growing along the same line."""
    ax = _new(ax, (6.4, 3.4))
    bias = alibi_bias_unchecked(heads, length)[:, -1].flip(-1).numpy()       # (H, T): the last query, distance 0..
    distance = np.arange(length)
    ax.axvspan(0, train_length - 1, **_SHADE, label=_("distances met in training"))
    for h in range(heads):
        colour = SERIES_COLORS[h % len(SERIES_COLORS)]
        ax.plot(distance, bias[h], color=colour, linestyle=["-", "--", "-.", ":"][h % 4],
                label=_("head {h}: m = 1/{inverse:g}").format(h=h + 1, inverse=1 / -bias[h][1]))
    ax.set(xlabel=_("distance i − j from the query (tokens)"), ylabel=_("bias added to the score"),
           title=_("ALiBi: a fixed penalty per token of distance"))
    ax.legend(fontsize=8, loc="lower left")
    return ax


@checks.arguments(weights=checks.Array(2), ax=_AX)
def counting_figure(weights, ax=None, *, layer=1):
    """The weight each head puts on the first token (BOS) against the query position t (``weights`` (heads, T),
    e.g. one layer of ``first_token_weights``), with 1 / (t + 1), what an even spread over the t + 1 tokens
    gives, dashed."""
    ax = _new(ax, (6.4, 3.4))
    w = np.asarray(weights, dtype=float)
    t = np.arange(w.shape[1])
    ax.plot(t[1:], 1 / (t[1:] + 1), color="0.2", linestyle="--", linewidth=2, label="1 / (t + 1)")
    for h in range(w.shape[0]):
        colour = SERIES_COLORS[h % len(SERIES_COLORS)]
        ax.plot(t[1:], w[h, 1:], color=colour, marker="os^D"[h % 4], markersize=3, linestyle="-",
                label=_("layer {l}, head {h}").format(l=layer, h=h + 1))
    ax.set(xlabel=_("query position t"), ylabel=_("weight on the first token"), ylim=(0, 1.02),
           title=_("How a model without positions can count"))
    ax.legend(fontsize=8, loc="upper right")
    return ax


@checks.arguments(ax=checks.Instance(Axes, "a matplotlib Axes"))
def thumbnail(ax):
    """The index's small picture: the copy task's accuracy against the length, one line per encoding."""
    from .shipped import measured
    results = measured()
    shade_training(ax, results["train length"], label=False)
    for encoding in ENCODINGS:
        colour, marker, style = STYLE[encoding]
        lengths, mean, _low, _high = spread({s: r["curve"] for s, r in results["runs"]["copy"][encoding].items()})
        ax.plot(lengths, mean, color=colour, linestyle=style, linewidth=1.5)
    ax.set(ylim=(0, 1.03), xlim=(MIN_LENGTH, max(results["curve"]["lengths"])))
    ax.set_xticks([results["train length"], max(results["curve"]["lengths"])])
    ax.set_yticks([0, 1])
