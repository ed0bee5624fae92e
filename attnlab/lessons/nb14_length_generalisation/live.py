"""Notebook 14's Play panels.

play           a shipped model (encoding, task) on sequences of a chosen test length: one example's attention
               weights in every head of a chosen layer, each head's weight on the first token against
               1 / (t + 1), and the accuracy at that length
play_trainer   train a fresh model behind a button (an encoding, a task, a training length) and watch its
               accuracy-against-length curve join the shipped ones
"""
import collections
import html

import ipywidgets as widgets
import numpy as np
import torch
from matplotlib.ticker import MaxNLocator

from ...core import checks
from ...i18n import gettext as _
from ...ui.panels import Later, Panel, new_figure
from ...ui.plotting import WEIGHT_CMAP
from ...ui.trainer import Trainer
from . import training
from .data import MAX_LENGTH, MIN_LENGTH, TASKS, TRAIN_LENGTH, batch_unchecked
from .figures import NAMES, STYLE, counting_figure, shade_training, spread
from .measure import curve_unchecked
from .model import ENCODINGS, MODEL, run_unchecked
from .shipped import load_unchecked, measured

__all__ = ["EXAMPLE_SEED", "MEASURED_KEPT", "PANEL_N", "PatternView", "SECONDS_PER_STEP", "play", "play_trainer"]

EXAMPLE_SEED = 7              # the sequences the pattern panel shows (data seed EXAMPLE_SEED + length)
PANEL_N = 200                 # sequences behind the pattern panel's accuracy and first-token weights
MEASURED_KEPT = 64            # (encoding, task, length) runs the pattern panel keeps (PatternView.measure)
SECONDS_PER_STEP = 0.037      # CPU seconds per training step at length 20 (bench/bench_nb14_live.py: 26-32 s for 800)


def _encoding_menu(value):
    return widgets.Dropdown(options=[(_(NAMES[e]), e) for e in ENCODINGS], value=value, description=_("encoding"))


def _task_menu(value):
    return widgets.ToggleButtons(options=[(t, t) for t in TASKS], value=value, description=_("task"))


class PatternView:
    """The pattern panel's figure and ``update(encoding, task, length, layer)`` (returns the text under it)."""

    def __init__(self):
        self.models = {}
        self.measured = collections.OrderedDict()   # (encoding, task, length) -> what one run of the model gave
        heads = MODEL["heads"]
        self.figure = new_figure(figsize=(13, 3.9))[0]
        self.figure.clear()
        grid = self.figure.add_gridspec(1, heads + 2, width_ratios=[1] * heads + [0.08, 1.7])
        self.head_axes = [self.figure.add_subplot(grid[0, h]) for h in range(heads)]
        self.images = [ax.imshow(np.zeros((2, 2)), vmin=0, vmax=1, cmap=WEIGHT_CMAP, interpolation="nearest")
                       for ax in self.head_axes]
        self.figure.colorbar(self.images[0], cax=self.figure.add_subplot(grid[0, heads]), label=_("weight"))
        self.count_ax = self.figure.add_subplot(grid[0, heads + 1])

    def model(self, encoding, task):
        if (encoding, task) not in self.models:
            self.models[(encoding, task)] = load_unchecked(encoding, task)
        return self.models[(encoding, task)]

    def measure(self, encoding, task, length):
        """The shipped model on the panel's PANEL_N sequences of ``length`` tokens: (accuracy, every layer's heads
        on the first sequence (layers, H, T, T), every layer's mean weight on the first token (layers, H, T)).
        The model runs once per (encoding, task, length): moving the layer, or back to a length seen, only draws
        (the last MEASURED_KEPT kept; a few hundred kB each)."""
        key = (encoding, task, length)
        if key in self.measured:
            self.measured.move_to_end(key)
            return self.measured[key]
        b = batch_unchecked(task, PANEL_N, length, torch.Generator().manual_seed(EXAMPLE_SEED + length))
        with torch.no_grad():
            logits, patterns = run_unchecked(self.model(encoding, task).eval(), b.tokens)
        scored = b.targets[:, 1:]
        acc = (logits[:, :-1].argmax(-1)[scored] == b.tokens[:, 1:][scored]).float().mean().item()
        example = np.stack([p[0].numpy() for p in patterns])                      # (layers, H, T, T)
        first = np.stack([p[..., 0].mean(0).numpy() for p in patterns])          # (layers, H, T)
        self.measured[key] = acc, example, first
        while len(self.measured) > MEASURED_KEPT:
            self.measured.popitem(last=False)
        return self.measured[key]

    def update(self, encoding, task, length, layer):
        """A move answers in two parts (issue 51) when (encoding, task, length) is new: the heads' weights on the
        sequence drawn (the model on that sequence alone) at once, the count panel and the accuracy (the model on
        all PANEL_N sequences) after the picture; a setting already measured answers whole, at once."""
        model = self.model(encoding, task)
        name = _(NAMES[encoding])
        self.count_ax.clear()
        missing = encoding == "learned" and length > model.config["max_length"]
        for h, ax in enumerate(self.head_axes):
            for text in ax.texts[:]:
                text.remove()
            ax.set_title(_("layer {l}, head {h}").format(l=layer, h=h + 1), fontsize=9)
            ax.set_xlabel(_("key position"), fontsize=8)
            ax.tick_params(labelsize=7)
            for axis in (ax.xaxis, ax.yaxis):
                axis.set_major_locator(MaxNLocator(integer=True))
        self.head_axes[0].set_ylabel(_("query position"), fontsize=8)
        if missing:
            rows = model.config["max_length"]
            for ax, image in zip(self.head_axes, self.images):
                image.set_data(np.full((length, length), np.nan))
                image.set_extent((-0.5, length - 0.5, length - 0.5, -0.5))
                ax.text(length / 2, length / 2, _("no position\nvector past {n}").format(n=rows - 1), ha="center",
                        va="center", fontsize=9)
            self.count_ax.set(title=_("no model to run at n = {n}").format(n=length), xticks=[], yticks=[])
            return _("{name} on {task} at n = {n}: a learned model has {rows} position vectors (positions 0 to {last}) "
                     "and none for position {rows} or later, so it cannot read {n} tokens at all.").format(
                name=name, task=task, n=length, rows=rows, last=rows - 1)
        where = _("inside the training range") if length <= TRAIN_LENGTH else _("past the training range")
        key = (encoding, task, length)
        if key in self.measured:
            return self._draw_measured(key, name, task, length, layer, where)
        b = batch_unchecked(task, PANEL_N, length, torch.Generator().manual_seed(EXAMPLE_SEED + length))
        with torch.no_grad():        # the sequence drawn (the first of the PANEL_N measured), alone
            patterns = run_unchecked(model.eval(), b.tokens[:1])[1]
        self._draw_heads(patterns[layer - 1][0].numpy(), length)
        self.count_ax.set(title=_("each head's weight on the first token: being measured…"), xlim=(0, length),
                          ylim=(0, 1.02), xlabel=_("query position t"))
        self.count_ax.title.set_fontsize(9)

        def finish():
            self.measure(encoding, task, length)
            return self._draw_measured(key, name, task, length, layer, where)
        return Later(_("{name} on {task} at n = {n} ({where}, n ≤ {L}): accuracy and first-token weights on {count} "
                       "fresh sequences being measured…").format(name=name, task=task, n=length, where=where,
                                                                  L=TRAIN_LENGTH, count=PANEL_N), finish, draws=True)

    def _draw_heads(self, weights, length):
        for image, w in zip(self.images, weights):
            image.set_data(w)
            image.set_extent((-0.5, length - 0.5, length - 0.5, -0.5))

    def _draw_measured(self, key, name, task, length, layer, where):
        """The whole picture and text of a measured (encoding, task, length) at ``layer``."""
        acc, example, first = self.measure(*key)
        first = first[layer - 1]                                                      # (H, T)
        self._draw_heads(example[layer - 1], length)
        self.count_ax.clear()
        counting_figure(first, ax=self.count_ax, layer=layer)
        self.count_ax.title.set_fontsize(9)
        self.count_ax.set_xlim(0, length)
        shade_training(self.count_ax, TRAIN_LENGTH, label=False)
        t = np.arange(1, length)
        gap = np.abs(first[:, 1:] - 1 / (t + 1)).mean(1)
        closest = int(gap.argmin())
        return "\n".join([
            _("{name} on {task} at n = {n} ({where}, n ≤ {L}): accuracy {acc:.3f} on {count} fresh sequences").format(
                name=name, task=task, n=length, where=where, L=TRAIN_LENGTH, acc=acc, count=PANEL_N),
            _("layer {l}: mean distance between a head's weight on the first token and 1 / (t + 1), per head: {gaps}; "
              "closest: head {h}").format(l=layer, gaps=" ".join(f"{g:.3f}" for g in gap), h=closest + 1),
        ])


@checks.arguments(encoding=checks.Choice(ENCODINGS), task=checks.Choice(TASKS),
                  length=checks.Int(MIN_LENGTH, MAX_LENGTH, why="the slider's range"),
                  layer=checks.Int(1, MODEL["layers"]))
def play(*, encoding="nope", task="copy", length=2 * TRAIN_LENGTH, layer=1) -> Panel:
    """The pattern panel: the shipped model of ``encoding`` trained on ``task``, on sequences of ``length``
    tokens: every head of ``layer`` (from 1) on one example, each head's weight on the first token, the accuracy."""
    controls = {"encoding": _encoding_menu(encoding), "task": _task_menu(task),
                "length": widgets.IntSlider(value=length, min=MIN_LENGTH, max=MAX_LENGTH, description=_("test length n"),
                                            style={"description_width": "initial"}, layout=widgets.Layout(width="480px")),
                "layer": widgets.IntSlider(value=layer, min=1, max=MODEL["layers"], description=_("layer"),
                                           layout=widgets.Layout(width="300px"))}
    view = PatternView()
    return Panel(view.figure, controls, view.update, moving=[*view.head_axes, view.count_ax], name="14-patterns",
                 columns=2)


@checks.arguments(encoding=checks.Choice(ENCODINGS), task=checks.Choice(TASKS),
                  length=checks.Int(10, training.MAX_TRAIN_LENGTH, why="the slider's range"),
                  steps=checks.Int(100, 3000, why="the slider's range"))
def play_trainer(*, encoding="alibi", task="copy", length=TRAIN_LENGTH, steps=training.LIVE_STEPS) -> Trainer:
    """Train a fresh model of ``encoding`` on ``task`` (sequences of length // 2 .. ``length`` tokens, seed 0)
    behind a button: the loss, the accuracy on held-out sequences at ``length`` and, when it is done, its
    accuracy against the test length beside the shipped runs of that encoding (trained at TRAIN_LENGTH)."""
    controls = {"encoding": _encoding_menu(encoding), "task": _task_menu(task),
                "length": widgets.IntSlider(value=length, min=10, max=training.MAX_TRAIN_LENGTH, step=2,
                                            description=_("training length"), style={"description_width": "initial"})}
    results = measured()
    lengths = tuple(results["curve"]["lengths"])
    done_curve = {}

    def run(steps, encoding, task, length):
        model = yield from training.run(encoding, task, steps, seed=0, length=length)
        return model

    def curves(ax, latest, encoding, task, length):
        ax.clear()
        if latest is None or done_curve.get("model") is not latest.get("model"):
            done_curve.clear()                                   # nothing trained yet, or a new run
        shade_training(ax, length)
        colour, marker, style = STYLE[encoding]
        for seed, run_ in results["runs"][task][encoding].items():
            xs, ys, _low, _high = spread({seed: run_["curve"]})
            ax.plot(xs, ys, color=colour, linestyle=style, linewidth=1, alpha=0.6)
        ax.axvline(results["train length"], color="0.45", linewidth=0.8, linestyle=":")
        ax.set(xlim=(0, max(lengths) + 2), ylim=(0, 1.03), xlabel=_("test length n (tokens)"),
               ylabel=_("accuracy"), title=_("{name}: shipped seeds (thin), yours (thick)").format(name=_(NAMES[encoding])))
        ax.title.set_fontsize(9)
        if "curve" not in done_curve:
            return None
        xs = sorted(done_curve["curve"])
        ax.plot(xs, [done_curve["curve"][x] for x in xs], color="black", marker=marker, linewidth=2.2)
        return _("your model against the test length: {points}").format(
            points=", ".join(f"n={x} {done_curve['curve'][x]:.2f}" for x in xs))

    t = None

    def done(result, history, encoding, task, length):
        if result is None:
            return ""
        test = sorted(set(lengths) | {length})
        done_curve.update(model=result, curve=curve_unchecked(result, task, test, PANEL_N, training.CURVE["seed"]))
        t.refresh()
        at = done_curve["curve"]
        far = max(at)
        return html.escape(_("accuracy {a:.3f} at n = {n} (its training length), {b:.3f} at n = {far}.").format(
            a=at[length], n=length, b=at[far], far=far))

    t = Trainer(run, steps=steps, min_steps=100, max_steps=3000, step=100, controls=controls,
                curves=("loss", "accuracy"), extra=curves, done=done, seconds_per_step=SECONDS_PER_STEP,
                figsize=(13, 3.6), name="14-training")
    t.axes["accuracy"].set(ylabel=_("accuracy at the training length"))
    t.refresh()
    return t

