"""Figures of notebook 11, each from data (results.json's numbers, a model's patterns), drawn into new axes or the
given ``ax``, returning the Axes; nothing is drawn on import. Weights are drawn on a fixed 0-1 scale (viridis).

    loss_figure         loss per place in the first and the second copy, against ln V
    patterns_figure     one attention pattern per head, e.g. the hand-built circuit's two heads
    training_figure     loss, accuracy and every head's scores over training, the phase change shaded
    scores_figure       previous-token and induction scores per head, the 0.4 line
    k_composition_figure  K-composition of each layer-2 head with each layer-1 head
    ablation_figure     accuracy with each head removed
    length_figure       accuracy against the repeat length, learned positions against RoPE
    thumbnail           the index's picture
Each figure made here says what it shows as its text in a notebook (attnlab.ui.figure_text). The printed
tables (``*_table``, laid out by attnlab.ui.text.table to line up in both languages) hold the numbers the
prose refers to: the loss by place, the training run at chosen steps, where the previous-token head looks,
accuracy by length, a positional shortcut.
"""
import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes

from ...core import checks
from ...i18n import gettext as _
from ...ui import plotting
from ...ui.figure_text import describe
from ...ui.plotting import SERIES_COLORS
from ...ui.text import table
from .analysis import phase_change, previous_token_where, shortcut, uniform_scores
from .data import BATCH, LENGTHS, VOCAB
from .model import AttentionOnly

__all__ = ["THRESHOLD", "ablation_figure", "k_composition_figure", "length_figure", "length_table", "loss_figure",
           "loss_table", "pattern_ticks", "patterns_figure", "previous_token_table", "scores_figure", "shortcut_table",
           "thumbnail", "training_figure", "training_table"]

THRESHOLD = 0.4                 # a head "is" a previous-token or induction head above this score (ARENA)
_AX = checks.Optional(checks.Instance(Axes, "a matplotlib Axes"))
_SHADE = dict(color="0.85", zorder=0)


def _new(ax, size):
    """A new Axes (its figure described by its own words when shown in a notebook), or ``ax``."""
    return describe(plt.subplots(figsize=size, layout="constrained")[1]) if ax is None else ax


def _numbers(values, digits=2):
    return " ".join(f"{v:.{digits}f}" for v in values)


@checks.arguments(first=checks.Array(1), second=checks.Array(1), ax=_AX)
def loss_figure(first, second, ax=None):
    """Mean loss of predicting each next symbol, first copy against second copy, with ln V dashed."""
    ax = _new(ax, (6.4, 3.4))
    i = np.arange(2, len(first) + 2)
    ax.plot(i, np.asarray(first), "o-", color=SERIES_COLORS[0], label=_("first copy (nothing to look back at)"))
    ax.plot(i, np.asarray(second), "s--", color=SERIES_COLORS[1], label=_("second copy (each symbol seen before)"))
    ax.axhline(math.log(VOCAB), color="0.3", linestyle=":", label=_("ln V = ln {V} = {value:.2f}").format(
        V=VOCAB, value=math.log(VOCAB)))
    ax.set(xlabel=_("symbol predicted (its place in the copy)"), ylabel=_("loss (nats)"), ylim=(0, 4.6),
           title=_("Loss per position: the second copy is predictable"))
    ax.legend(fontsize=8, loc="center right")
    return ax


def pattern_ticks(ax, length):
    """Ticks for a pattern of one repeat of ``length`` (BOS, the two copies): BOS and the copies' last places,
    and thin lines between the copies."""
    ticks = [0, length, 2 * length]
    ax.set_xticks(ticks)
    ax.set_yticks(ticks)
    for edge in (length + 0.5,):
        ax.axvline(edge, color="white", linewidth=0.8)
        ax.axhline(edge, color="white", linewidth=0.8)


@checks.arguments(patterns=checks.Items(checks.Array(2), min_len=1), titles=checks.Items(checks.Text()),
                  length=checks.Int(2, 23))
def patterns_figure(patterns, *, titles, length, axes=None):
    """One heatmap per pattern (a list of (T, T) weights), titled, with the copies marked; returns the axes."""
    if axes is None:
        fig, axes = plt.subplots(1, len(patterns), figsize=(3.2 * len(patterns) + 0.6, 3.2), layout="constrained",
                                 squeeze=False)
        axes = axes[0]
        describe(fig)
    for ax, w, title in zip(axes, patterns, titles):
        image = ax.imshow(np.asarray(w, dtype=float), vmin=0, vmax=1, cmap=plotting.WEIGHT_CMAP,
                          interpolation="nearest")
        ax.set(title=title, xlabel=_("key position"), ylabel=_("query position"))
        pattern_ticks(ax, length)
    axes[0].figure.colorbar(image, ax=list(axes), shrink=0.8, label=_("weight"))
    return axes


@checks.arguments(curves=checks.Dict())
def training_figure(curves, axes=None):
    """Loss, accuracy, and the scores of every head over training (a results.json run's "curves"), the phase
    change (accuracy from below 0.3 to 0.9) shaded in each; returns the three axes."""
    if axes is None:
        axes = plt.subplots(1, 3, figsize=(14, 3.6), layout="constrained")[1]
        describe(axes[0])
    steps = curves["step"]
    jump = phase_change(steps, curves["accuracy"])
    loss_ax, acc_ax, score_ax = axes
    loss_ax.plot(steps, curves["loss"], color=SERIES_COLORS[0])
    loss_ax.axhline(math.log(VOCAB), color="0.3", linestyle=":", label=_("ln V"))
    loss_ax.set(xlabel=_("training step"), ylabel=_("training loss (nats)"), title=_("loss"))
    loss_ax.legend(fontsize=8)
    acc_ax.plot(steps, curves["accuracy"], color=SERIES_COLORS[1])
    acc_ax.set(xlabel=_("training step"), ylabel=_("accuracy on the second copy"), ylim=(0, 1.02),
               title=_("accuracy (held-out repeats)"))
    previous, induction = np.asarray(curves["previous_token"]), np.asarray(curves["induction"])   # (steps, l, h)
    for h in range(previous.shape[2]):
        score_ax.plot(steps, previous[:, 0, h], color=SERIES_COLORS[(h) % len(SERIES_COLORS)], linestyle="--",
                      label=_("layer 1 head {h}: previous-token").format(h=h + 1))
        if previous.shape[1] > 1:
            score_ax.plot(steps, induction[:, 1, h], color=SERIES_COLORS[(h) % len(SERIES_COLORS)], linestyle="-",
                          label=_("layer 2 head {h}: induction").format(h=h + 1))
    score_ax.axhline(THRESHOLD, color="0.3", linestyle=":")
    score_ax.set(xlabel=_("training step"), ylabel=_("score"), ylim=(0, 1.02), title=_("scores of each head"))
    score_ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    if jump is not None:
        for ax in axes:
            ax.axvspan(*jump, **_SHADE, label=None)
        acc_ax.text(jump[1], 0.05, _(" phase change\n steps {a}–{b}").format(a=jump[0], b=jump[1]), fontsize=8)
    return axes


@checks.arguments(previous=checks.Array(2), induction=checks.Array(2), ax=_AX)
def scores_figure(previous, induction, ax=None):
    """Bars: each head's previous-token and induction score, layer by layer, with the 0.4 line."""
    ax = _new(ax, (7, 3.2))
    previous, induction = np.asarray(previous), np.asarray(induction)
    layers, heads = previous.shape
    x = np.arange(layers * heads)
    ax.bar(x - 0.2, previous.ravel(), width=0.4, color=SERIES_COLORS[0], label=_("previous-token score"))
    ax.bar(x + 0.2, induction.ravel(), width=0.4, color=SERIES_COLORS[1], hatch="//", label=_("induction score"))
    ax.axhline(THRESHOLD, color="0.3", linestyle=":")
    ax.set_xticks(x, [_("L{l} H{h}").format(l=l + 1, h=h + 1) for l in range(layers) for h in range(heads)])
    ax.set(ylim=(0, 1.05), ylabel=_("score"), title=_("Scores per head (dotted: 0.4)"))
    ax.legend(fontsize=8)
    return ax


@checks.arguments(matrix=checks.Array(2), ax=_AX)
def k_composition_figure(matrix, ax=None):
    """K-composition (rows: layer-2 heads, columns: layer-1 heads), values written in the cells."""
    ax = _new(ax, (4.2, 3.4))
    m = np.asarray(matrix, dtype=float)
    labels2 = [_("L2 H{h}").format(h=h + 1) for h in range(m.shape[0])]
    labels1 = [_("L1 H{h}").format(h=h + 1) for h in range(m.shape[1])]
    plotting.heatmap(m, x_labels=labels1, y_labels=labels2, ax=ax, vmin=0, vmax=max(0.5, float(m.max())),
                     xlabel=_("layer-1 head (writes)"), ylabel=_("layer-2 head (keys read)"),
                     title=_("K-composition"), colorbar=True)
    return ax


@checks.arguments(ablations=checks.Dict(), intact=checks.Real(low=0), ax=_AX)
def ablation_figure(ablations, intact, ax=None):
    """Accuracy with each head removed (results.json's "ablations": {"layer.head": accuracy}, from 0)."""
    ax = _new(ax, (7, 3.2))
    names = list(ablations)
    values = [ablations[n] for n in names]
    labels = [_("L{l} H{h}").format(l=int(n.split(".")[0]) + 1, h=int(n.split(".")[1]) + 1) for n in names]
    bars = ax.bar(range(len(names)), values, color=[SERIES_COLORS[3] if v < 0.5 else SERIES_COLORS[2] for v in values])
    for bar, v in zip(bars, values):
        ax.text(bar.get_x() + bar.get_width() / 2, v + 0.02, f"{v:.2f}", ha="center", fontsize=8)
        if v < 0.5:
            bar.set_hatch("//")          # the failing heads differ by pattern too, not by red against green alone
    ax.axhline(intact, color="0.3", linestyle=":", label=_("no head removed: {acc:.3f}").format(acc=intact))
    ax.set_xticks(range(len(names)), labels)
    ax.set(ylim=(0, 1.1), ylabel=_("accuracy on the second copy"), title=_("Accuracy with one head removed"))
    ax.legend(fontsize=8, loc="lower right")
    return ax


@checks.arguments(runs=checks.Dict(), ax=_AX)
def length_figure(runs, ax=None):
    """Accuracy against the repeat length L, one line per run ({label: {L: accuracy}}), the trained range shaded."""
    ax = _new(ax, (7, 3.4))
    ax.axvspan(LENGTHS[0] - 0.5, LENGTHS[1] + 0.5, **_SHADE)
    markers = "osD^"
    for i, (label, by_length) in enumerate(runs.items()):
        lengths = sorted(int(L) for L in by_length)
        ax.plot(lengths, [by_length[str(L)] if str(L) in by_length else by_length[L] for L in lengths],
                marker=markers[i % 4],
                linestyle=["-", "--", ":", "-."][i % 4], color=SERIES_COLORS[i % len(SERIES_COLORS)],
                label=label)
    ax.set(xlabel=_("repeat length L (grey: the lengths trained on)"), ylabel=_("accuracy on the second copy"),
           ylim=(0, 1.02), title=_("Accuracy against the repeat length"))
    ax.legend(fontsize=8, loc="lower left")
    return ax


# -- the printed tables ----------------------------------------------------------------------------------
@checks.arguments(first=checks.Array(1), second=checks.Array(1), bets=checks.Array(1))
def loss_table(first, second, bets):
    """One row per place of the symbol predicted (2..L, as the loss figure counts): the first copy's loss, the
    best possible there (ln of the symbols not used yet), the probability given to x₁ (a bet that the second
    copy starts next), the second copy's loss."""
    rows = [[_("symbol predicted (place)"), _("first copy: loss"), _("best possible"), _("probability of x₁"),
             _("second copy: loss")]]
    for i, (a, p, b) in enumerate(zip(np.asarray(first), np.asarray(bets), np.asarray(second))):
        place = i + 2
        rows.append([str(place), f"{a:.2f}", f"{math.log(VOCAB - place):.2f}", f"{p:.2f}", f"{b:.3f}"])
    return table(rows, align="<>>>>")


@checks.arguments(curves=checks.Dict(), steps=checks.Items(checks.Int(1), min_len=1))
def training_table(curves, steps):
    """A training run's curves (results.json's "curves") at the chosen ``steps``: the training loss, the accuracy,
    each layer-1 head's previous-token score and each layer-2 head's induction score."""
    rows = [[_("step"), _("training loss"), _("accuracy"), _("layer 1: previous-token score, heads 1–4"),
             _("layer 2: induction score, heads 1–4")]]
    for step in steps:
        if step not in curves["step"]:
            raise checks.error("steps", f"steps of the run ({curves['step'][0]}, {curves['step'][1]}, ...)", step)
        i = curves["step"].index(step)
        rows.append([str(step), f"{curves['loss'][i]:.2f}", f"{curves['accuracy'][i]:.2f}",
                     _numbers(curves["previous_token"][i][0]), _numbers(curves["induction"][i][-1])])
    return table(rows, align="<>><<")


@checks.arguments(model=checks.Instance(AttentionOnly, "an AttentionOnly model (e.g. pretrained())"), batch=BATCH,
                  layer=checks.Int(0), head=checks.Int(0))
def previous_token_table(model, batch, *, layer, head):
    """Where one head's weight on t − 1 lies on ``batch`` (analysis.previous_token_where), and what a head with
    uniform weights scores there (analysis.uniform_scores)."""
    where, uniform = previous_token_where(model, batch, layer=layer, head=head), uniform_scores(batch)
    name = _("layer {l}, head {h}").format(l=layer + 1, h=head + 1)
    rows = [[_("measured"), _("mean weight")],
            [_("{head} on t − 1, first copy (t = 1 … L)").format(head=name), f"{where['first copy']:.2f}"],
            [_("{head} on t − 1, second copy (t = L+1 … 2L)").format(head=name), f"{where['second copy']:.2f}"],
            [_("{head} on t − 1, both copies: its previous-token score").format(head=name), f"{where['repeated part']:.2f}"],
            [_("{head} on t − 1, the whole context, filler included").format(head=name), f"{where['whole context']:.2f}"],
            [_("uniform weights on t − 1, both copies: previous-token score"), f"{float(uniform.previous_token.flatten()[0]):.2f}"],
            [_("uniform weights on t − L + 1, second copy: induction score"), f"{float(uniform.induction.flatten()[0]):.2f}"]]
    return table(rows, align="<>")


@checks.arguments(runs=checks.Dict(), lengths=checks.Items(checks.Int(2, 23), min_len=1))
def length_table(runs, lengths):
    """Accuracy on the second copy by repeat length: one column per run ({name: {L: accuracy}})."""
    rows = [[_("repeat length L")] + list(runs)]
    for L in lengths:
        rows.append([str(L)] + [f"{(t[str(L)] if str(L) in t else t[L]):.3f}" for t in runs.values()])
    return table(rows, align="<" + ">" * len(runs))


@checks.arguments(model=checks.Instance(AttentionOnly, "an AttentionOnly model (e.g. pretrained())"), batch=BATCH,
                  length=checks.Int(2, 23), early_step=checks.Int(1), early_accuracy=checks.Real(low=0, high=1))
def shortcut_table(model, batch, *, length, early_step, early_accuracy):
    """What analysis.shortcut measures of a model trained on repeats of ``length`` only, on ``batch`` (mixed
    lengths) and on 500 repeats of ``length``, with its accuracy on mixed lengths at an early training step."""
    found = shortcut(model, batch, length=length)
    rows = [[_("measured"), _("value")],
            [_("induction score of each layer-1 head, mixed lengths"), _numbers(found.mixed, 3)],
            [_("share of the second-copy queries in repeats of L = {L}").format(L=length), f"{found.query_share:.3f}"],
            [_("induction score of each layer-1 head, repeats of L = {L} only").format(L=length), _numbers(found.one_length)],
            [_("accuracy on L = {L}").format(L=length), f"{found.accuracy:.3f}"],
            [_("accuracy on L = {L} without layer 1's head 1, 2, 3, 4").format(L=length), _numbers(found.without, 3)],
            [_("accuracy at step {step}, mixed lengths").format(step=early_step), f"{early_accuracy:.3f}"],
            [_("share of the predictable positions in repeats of L = {L}").format(L=length), f"{found.position_share:.3f}"]]
    return table(rows, align="<>")


@checks.arguments(ax=checks.Instance(Axes, "a matplotlib Axes"))
def thumbnail(ax):
    """The index's small picture: the shipped model's induction head on one repeat (the last training snapshot)."""
    from .shipped import measured, snapshots
    shot = snapshots()
    head = int(np.argmax(measured()["two_layer"]["induction"][1]))
    ax.imshow(shot.patterns[-1, 1, head].numpy(), vmin=0, vmax=1, cmap=plotting.WEIGHT_CMAP, interpolation="nearest")
    ax.set_xticks([])
    ax.set_yticks([])
