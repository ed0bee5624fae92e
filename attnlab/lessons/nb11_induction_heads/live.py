"""Notebook 11's Play panels.

play           a slider over the shipped run's training snapshots: every head's pattern on one repeat at that
               step, the accuracy and the scores of every head, with the step marked on their curves
play_circuit   the shipped model on one repeat of a chosen length, with a chosen head removed: every head's
               pattern, and the accuracy on 300 repeats of that length
play_trainer   train a fresh model behind a button (the loss, the accuracy, the scores as it learns)
"""
import html

import ipywidgets as widgets
import numpy as np
import torch

from ...core import checks
from ...i18n import gettext as _
from ...ui.panels import Later, Panel, new_figure
from ...ui.plotting import SERIES_COLORS, WEIGHT_CMAP
from ...ui.trainer import Trainer
from . import training
from .analysis import phase_change
from .circuits import scores_of
from .data import repeats_unchecked
from .figures import THRESHOLD, pattern_ticks
from .model import ablate_unchecked, accuracy_unchecked, run_unchecked
from .shipped import measured, pretrained, snapshots

__all__ = ["REMOVABLE", "CircuitView", "SnapshotView", "play", "play_circuit", "play_trainer"]


def _grid(figure_size, extra_column):
    """A figure with a 2 x 4 grid of heatmaps (layer, head), and a fifth column of two curve axes if asked."""
    cols = 5 if extra_column else 4
    fig, axes = new_figure(2, cols, figsize=figure_size,
                           gridspec_kw={"width_ratios": [1] * 4 + ([1.6] if extra_column else [])})
    return fig, axes


def _heads(axes, length):
    images = []
    T = 2 * length + 1
    for layer in range(2):
        for head in range(4):
            ax = axes[layer, head]
            images.append(ax.imshow(np.zeros((T, T)), vmin=0, vmax=1, cmap=WEIGHT_CMAP, interpolation="nearest"))
            ax.set_title(_("layer {l}, head {h}").format(l=layer + 1, h=head + 1), fontsize=9)
            pattern_ticks(ax, length)
            ax.tick_params(labelsize=7)
    for ax in axes[1, :4]:
        ax.set_xlabel(_("key position"), fontsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel(_("query position"), fontsize=8)
    axes[0, 0].figure.colorbar(images[0], ax=list(axes[:, :4].ravel()), shrink=0.7, label=_("weight"))
    return images


def _score_line(name, values):
    return _("{name}: {values}").format(name=name, values="  ".join(
        _("H{h} {v:.2f}").format(h=h + 1, v=v) for h, v in enumerate(values)))


class SnapshotView:
    """The shipped run's snapshots: the figure and ``update(step)`` (returns the text under the figure)."""

    def __init__(self):
        self.shots, self.curves = snapshots(), measured()["two_layer"]["curves"]
        self.length = (len(self.shots.tokens) - 1) // 2
        self.figure, axes = _grid((13, 5.4), extra_column=True)
        self.images = _heads(axes, self.length)
        steps = self.curves["step"]
        acc_ax, score_ax = axes[0, 4], axes[1, 4]
        jump = phase_change(steps, self.curves["accuracy"])
        acc_ax.plot(steps, self.curves["accuracy"], color=SERIES_COLORS[1])
        acc_ax.set(ylim=(0, 1.02), title=_("accuracy"), xlabel="")
        induction = np.asarray(self.curves["induction"])[:, 1]         # (steps, heads)
        previous = np.asarray(self.curves["previous_token"])[:, 0]
        for h in range(induction.shape[1]):
            score_ax.plot(steps, induction[:, h], color=SERIES_COLORS[(h) % len(SERIES_COLORS)],
                          label=_("head {h}").format(h=h + 1))          # one colour per head, in both layers
            score_ax.plot(steps, previous[:, h], color=SERIES_COLORS[(h) % len(SERIES_COLORS)], linestyle="--")
        score_ax.axhline(THRESHOLD, color="0.3", linestyle=":")
        score_ax.set(ylim=(0, 1.02), xlabel=_("training step"),
                     title=_("scores: induction (L2, solid),\nprevious-token (L1, dashed)"))
        score_ax.title.set_fontsize(8)
        # top left is empty: every curve is low before the phase change
        score_ax.legend(fontsize=6, loc="upper left", ncol=2, handlelength=1.2, columnspacing=0.8,
                        borderaxespad=0.3, labelspacing=0.2)
        self.markers = []
        for ax in (acc_ax, score_ax):
            if jump is not None:
                ax.axvspan(*jump, color="0.85", zorder=0)
            self.markers.append(ax.axvline(steps[-1], color="k", linewidth=1))

    def update(self, step):
        i = min(range(len(self.shots.steps)), key=lambda j: abs(self.shots.steps[j] - step))
        shot = self.shots.patterns[i]                                   # (layers, heads, T, T)
        for k, image in enumerate(self.images):
            image.set_data(shot[k // 4, k % 4].numpy())
        at = self.shots.steps[i]
        for line in self.markers:
            line.set_xdata([at, at])
        L = self.length
        t = np.arange(L + 1, 2 * L + 1)
        on_next = shot[1][:, t, t - L + 1].mean(-1).numpy()            # each layer-2 head, on this example
        on_previous = shot[0][:, np.arange(1, 2 * L + 1), np.arange(0, 2 * L)].mean(-1).numpy()
        c = self.curves
        return "\n".join([
            _("step {step}: accuracy on the second copy {acc:.2f} (512 held-out repeats)").format(
                step=at, acc=c["accuracy"][i]),
            _score_line(_("layer 1, previous-token score"), c["previous_token"][i][0]),
            _score_line(_("layer 2, induction score"), c["induction"][i][1]),
            _("On the example (L = {L}): layer-1 weight on the previous token, per head: {p}; layer-2 weight on "
              "the token after the earlier occurrence, per head: {q}").format(
                L=L, p=" ".join(f"{v:.2f}" for v in on_previous), q=" ".join(f"{v:.2f}" for v in on_next)),
        ])


@checks.arguments(step=checks.Optional(checks.Int(1)))
def play(*, step=None) -> Panel:
    """The Play panel over the shipped run's training: ``step`` (default: the last snapshot) picks the snapshot
    whose patterns are shown; the slider moves through them."""
    view = SnapshotView()
    steps = view.shots.steps
    start = steps[-1] if step is None else step
    if not steps[0] <= start <= steps[-1]:
        raise checks.error("step", f"a training step in {steps[0]}..{steps[-1]}", start)
    slider = widgets.IntSlider(value=start, min=steps[0], max=steps[-1], step=steps[1] - steps[0],
                               description=_("training step"), continuous_update=True,
                               style={"description_width": "initial"}, layout=widgets.Layout(width="560px"))
    return Panel(view.figure, {"step": slider}, view.update, moving=view.images + view.markers,
                 name="11-training-snapshots", columns=1)


REMOVABLE = ("none",) + tuple(f"{layer}.{head}" for layer in range(2) for head in range(4))


class CircuitView:
    """The shipped 2-layer model on one repeat of a chosen length, a chosen head removed:
    ``update(remove, length)`` (returns the text under the figure, or a ``Later``).

    A move answers in two parts (issue 51): the heads' patterns on the one repeat drawn (the model on that
    repeat alone: about a millisecond) at once; the accuracy and the scores on 300 repeats (the model on
    all of them, three times) after the picture, kept per (remove, length) so a move back is at once."""

    def __init__(self, model):
        self.model = model
        self.cut = {"none": model}
        self.measured = {}              # (remove, length) -> (accuracy, whole model's accuracy, scores)
        self.figure, axes = _grid((11, 5.4), extra_column=False)
        self.axes = axes
        self.images = _heads(axes, 10)
        self.shown_length = 10

    def _model(self, remove):
        if remove not in self.cut:
            layer, head = map(int, remove.split("."))
            self.cut[remove] = ablate_unchecked(self.model, layer, head)
        return self.cut[remove]

    def update(self, remove, length):
        model = self._model(remove)
        batch = repeats_unchecked(300, length, length, torch.Generator().manual_seed(31 + length))
        with torch.no_grad():       # the repeat drawn, alone: its patterns are all the figure needs
            patterns = run_unchecked(model, batch.tokens[:1, :2 * length + 1], need_weights=True)[1]
        if length != self.shown_length:
            for ax in self.axes.ravel():
                ax.images[0].set_extent((-0.5, 2 * length + 0.5, 2 * length + 0.5, -0.5))
                for line in ax.lines[:]:
                    line.remove()
                pattern_ticks(ax, length)
            self.shown_length = length
        gone = None if remove == "none" else 4 * int(remove[0]) + int(remove[2])
        for k, image in enumerate(self.images):
            image.set_data(patterns[k // 4][0, k % 4].numpy())
            image.set_alpha(0.25 if k == gone else 1.0)          # a removed head still attends; its output is cut
            title = _("layer {l}, head {h}").format(l=k // 4 + 1, h=k % 4 + 1)
            image.axes.set_title(_("{head}: removed").format(head=title) if k == gone else title, fontsize=9)
        removed = _("no head removed") if remove == "none" else _("layer {l}, head {h} removed").format(
            l=int(remove[0]) + 1, h=int(remove[2]) + 1)
        key = (remove, length)
        if key in self.measured:
            return self._text(removed, length, *self.measured[key])

        def finish():
            return self._text(removed, length, *self._measure(key, model, batch))
        return Later(_("{removed}; repeats of L = {L}: accuracy and scores on 300 repeats being measured…").format(
            removed=removed, L=length), finish)

    def _measure(self, key, model, batch):
        """(accuracy, the whole model's accuracy, scores) on the 300 repeats of ``batch``, kept per ``key``."""
        length = key[1]
        with torch.no_grad():
            patterns = run_unchecked(model, batch.tokens[:, :2 * length + 1], need_weights=True)[1]
        s = scores_of(patterns, batch.lengths)
        acc = accuracy_unchecked(model, batch)
        whole = acc if model is self.model else self.measured.get(("none", length), (None, None))[1]
        if whole is None:
            whole = accuracy_unchecked(self.model, batch)
        self.measured[key] = (acc, whole, s)
        return self.measured[key]

    def _text(self, removed, length, acc, whole, s):
        return "\n".join([
            _("{removed}; repeats of L = {L}: accuracy on the second copy {acc:.3f} (whole model: {whole:.3f}, "
              "300 repeats)").format(removed=removed, L=length, acc=acc, whole=whole),
            _score_line(_("layer 1, previous-token score"), s.previous_token[0].tolist()),
            _score_line(_("layer 2, induction score"), s.induction[1].tolist()),
        ])


@checks.arguments(remove=checks.Choice(REMOVABLE), length=checks.Int(2, 23))
def play_circuit(*, remove="none", length=10) -> Panel:
    """The Play panel on the finished circuit: remove one head (``remove`` "layer.head", counted from 0, or
    "none") and change the repeat length; the shipped model's patterns and accuracy follow."""
    options = [(_("none"), "none")] + [(_("layer {l}, head {h}").format(l=int(r[0]) + 1, h=int(r[2]) + 1), r)
                                       for r in REMOVABLE[1:]]
    controls = {"remove": widgets.Dropdown(options=options, value=remove, description=_("remove")),
                "length": widgets.IntSlider(value=length, min=2, max=23, description=_("repeat length"),
                                            style={"description_width": "initial"})}
    view = CircuitView(pretrained(2))
    return Panel(view.figure, controls, view.update, name="11-circuit", columns=2)


@checks.arguments(steps=checks.Int(100, 3000, why="the slider's range"), layers=checks.Choice((1, 2)))
def play_trainer(*, steps=1500, layers=2) -> Trainer:
    """Train a fresh attention-only model behind a button (seed 0, the shipped run's settings): the training
    loss, the accuracy on 512 held-out repeats and, beside them, every head's scores at the last measurement.
    Each press starts from the same weights and batches."""
    layer_choice = widgets.ToggleButtons(options=[(_("2 layers"), 2), (_("1 layer"), 1)], value=layers,
                                         description=_("model"))

    def run(steps, layers):
        model = yield from training.run(steps, layers=layers, seed=0)
        return model

    last = {}

    def scores_bars(ax, latest, layers):
        ax.clear()
        ax.set(ylim=(0, 1.02), title=_("scores at the last measurement"), ylabel=_("score"))
        ax.axhline(THRESHOLD, color="0.3", linestyle=":")
        if latest is None or last.get("model") is not latest["model"]:     # nothing yet, or a new run
            last.clear()
        if latest is not None:
            last["model"] = latest["model"]
            if "scores" in latest:
                last["scores"] = latest["scores"]
        if "scores" not in last:
            return None
        s = last["scores"]
        previous, induction = s.previous_token[0].tolist(), s.induction[-1].tolist()
        x = np.arange(len(previous))
        ax.bar(x - 0.2, previous, width=0.4, color=SERIES_COLORS[0], label=_("L1 previous-token"))
        ax.bar(x + 0.2, induction, width=0.4, color=SERIES_COLORS[1], hatch="//",
               label=_("L{l} induction").format(l=len(s.induction)))
        ax.set_xticks(x, [_("H{h}").format(h=h + 1) for h in x])
        ax.legend(fontsize=7, loc="upper left")
        return " ".join([_score_line(_("layer 1, previous-token score"), previous) + ";",
                         _score_line(_("layer {l}, induction score").format(l=len(s.induction)), induction)])

    def done(result, history, layers):
        jump = phase_change(list(range(1, len(history["accuracy"]) + 1)), history["accuracy"])
        where = _("no jump to 0.9 yet") if jump is None else _("accuracy passed 0.9 at step {b}").format(b=jump[1])
        return html.escape(_("final accuracy {acc:.3f}; {where}.").format(acc=history["accuracy"][-1], where=where))

    t = Trainer(run, steps=steps, min_steps=100, max_steps=3000, step=100, controls={"layers": layer_choice},
                curves=("loss", "accuracy"), extra=scores_bars, done=done,
                seconds_per_step=training.SECONDS_PER_STEP, figsize=(12, 3.4), name="11-training")
    t.axes["accuracy"].set(ylabel=_("accuracy on the second copy"))
    # the loss lives between ln V ≈ 4.16 (the plateau) and ~3.3 (only the second copy learnt): on the trainer's
    # default log axis from 0.001 to 5 that is the top few pixels, and the plateau and the jump would not show
    t.axes["loss"].set(yscale="linear", ylim=(3.0, 4.8), ylabel=_("loss"))
    t.refresh()
    return t
