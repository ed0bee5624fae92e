"""Notebook 13's Play panels.

play           the receptive field: window w and layers L; who reaches the last position after each layer
play_sinks     StreamingLLM on the sink model: a window w keeping k first tokens; the heads' patterns on one
               sequence under that window and the extra loss at every position (512 sequences), live
play_latent    latent attention: d_c among the shipped sizes; what the SVD keeps of layer 1's projections, and the
               shipped models' cache bytes against held-out bits (MHA, GQA, MQA, MLA)
play_trainer   train a fresh sink model behind a button (<= 60 s): its loss, the first-token weight, its heads
"""
import html

import ipywidgets as widgets
import numpy as np
import torch

from ...core import checks
from ...i18n import N_, gettext as _
from ...ui.panels import Panel, new_figure
from ...ui.plotting import WEIGHT_CMAP
from ...ui.trainer import Trainer
from . import sinks
from .figures import draw_latent, draw_receptive, draw_sink_patterns, draw_spectrum, draw_streaming
from .mla import latent_spectrum
from .shipped import LATENT_SIZES, gpt, measured, sink_model
from .window import band_mask_unchecked, receptive_field, windowed_logits_unchecked

__all__ = ["FIELD_LENGTH", "LatentView", "SECONDS_PER_STEP", "SINK_SEQUENCES", "SinksView", "WEIGHT_CURVE",
           "latent_points", "play", "play_latent", "play_sinks", "play_trainer"]

FIELD_LENGTH = 40              # positions in the receptive-field picture
SINK_SEQUENCES = 512           # sequences the sinks panel measures the loss on, at every move
WEIGHT_CURVE = N_("first-token weight")     # the trainer's second curve (sinks.run yields it under this name)
SECONDS_PER_STEP = 0.03        # the live trainer, CPU seconds per step on this project's machine (bench_nb13_live.py)


@checks.arguments(window=checks.Int(1, 12, why="the slider's range"), layers=checks.Int(1, 6, why="the slider's range"))
def play(*, window=4, layers=3) -> Panel:
    """The receptive-field panel: ``window`` w and ``layers`` L; the picture colours, for every query t and key j,
    the layer after which j's information reaches t."""
    figure, ax = new_figure(figsize=(7.2, 6.0))
    controls = {"window": widgets.IntSlider(value=window, min=1, max=12, description=_("window w")),
                "layers": widgets.IntSlider(value=layers, min=1, max=6, description=_("layers L"))}

    def update(window, layers):
        return draw_receptive(ax, receptive_field(window, layers, FIELD_LENGTH), window)

    return Panel(figure, controls, update, moving=[ax], name="13-receptive-field", columns=2)


class SinksView:
    """The sinks panel's figure and ``update(window, sinks)`` (returns the text under the figure)."""

    def __init__(self):
        self.model = sink_model()
        r = measured()["sinks"]["streaming"]
        self.batch = sinks.sink_batch(SINK_SEQUENCES, seed=r["seed"])
        self.shown = sinks.sink_batch(1, seed=sinks.EXAMPLE_SEED)
        self.T = sinks.CONTEXT
        self.losses = {}                  # (window, kept) -> each position's mean loss: the model runs once for each
        self.full = self._losses(self.T, 0)
        self.figure = new_figure(figsize=(11, 6.4))[0]
        self.figure.clear()
        grid = self.figure.add_gridspec(2, 2, height_ratios=[1.25, 1])
        self.head_axes = [self.figure.add_subplot(grid[0, h]) for h in range(2)]
        self.loss_ax = self.figure.add_subplot(grid[1, :])
        images = draw_sink_patterns(self.head_axes, np.zeros((2, self.T, self.T)), self.shown.trigger[0, :-1])
        self.figure.colorbar(images[0], ax=self.head_axes, shrink=0.8, label=_("weight"))

    def _losses(self, window, kept):
        """Each position's mean loss over the panel's sequences, with a ``window`` that keeps the first ``kept``;
        computed once per pair (window 4-48 and 0-4 kept: 225 rows of 64 numbers at most)."""
        if (window, kept) not in self.losses:
            self.losses[window, kept] = sinks.position_losses(self.model, self.batch, window, kept).numpy()
        return self.losses[window, kept]

    def update(self, window, sinks_kept):
        kept = min(sinks_kept, window - 1)
        evicted = self._losses(window, 0)
        mine = self._losses(window, kept)
        x = self.shown.tokens[:, :-1]
        with torch.no_grad():
            _logits, weights = windowed_logits_unchecked(self.model, x, window, kept, need_weights=True)
        mask = band_mask_unchecked(self.T, window, kept).numpy()
        draw_sink_patterns(self.head_axes, weights[0][0].numpy(), self.shown.trigger[0, :-1], mask=mask)
        for h, ax in enumerate(self.head_axes):
            ax.set_title(_("head {h}: window {w}, first {k} kept").format(h=h + 1, w=window, k=kept), fontsize=9)
        kept_rows = {} if kept == 0 else {kept: mine}
        text = draw_streaming(self.loss_ax, self.full, evicted, kept_rows, window)
        on_first = weights[0][0, :, window:, 0].mean(-1).tolist()
        return "\n".join([
            _("window {w}, keeping the first {k}: on the sequence shown, each head's mean weight on position 0 at "
              "positions {w}–{last}: {a}").format(w=window, k=kept, last=self.T - 1,
                                                   a=", ".join(f"{v:.2f}" for v in on_first)),
            text,
        ])


@checks.arguments(window=checks.Int(4, 48, why="the slider's range"), sinks=checks.Int(0, 4, why="the slider's range"))
def play_sinks(*, window=16, sinks=0) -> Panel:
    """The StreamingLLM panel on the shipped sink model: a sliding ``window`` that keeps the first ``sinks``
    positions (0: evicts them)."""
    view = SinksView()
    controls = {"window": widgets.IntSlider(value=window, min=4, max=48, description=_("window w")),
                "sinks_kept": widgets.IntSlider(value=sinks, min=0, max=4, description=_("sinks k"))}
    return Panel(view.figure, controls, view.update, moving=[*view.head_axes, view.loss_ax], name="13-sinks",
                 columns=2)


def latent_points():
    """From results.json: ({label: (bytes per position, bits)} for MHA, GQA, MQA; {d_c: (bytes, bits)} fine-tuned;
    {d_c: (bytes, bits)} before fine-tuning)."""
    r = measured()["latent"]
    names = {"kv4": _("MHA (4 kv heads)"), "kv2": _("GQA (2 kv heads)"), "kv1": _("MQA (1 kv head)")}
    course = {names[k]: (v["cache bytes per token"], v["heldout bits"]) for k, v in r["course models"].items()}
    tuned = {int(d): (v["cache bytes per token"], v["heldout bits"]) for d, v in r["latent models"].items()}
    converted = {int(d): (v["cache bytes per token"], v["converted heldout bits"]) for d, v in r["latent models"].items()}
    return course, tuned, converted


class LatentView:
    """The latent panel's figure and ``update(latent)``."""

    def __init__(self):
        self.course, self.tuned, self.converted = latent_points()
        self.singular = latent_spectrum(gpt()).numpy()
        self.figure, (self.spectrum_ax, self.chart_ax) = new_figure(1, 2, figsize=(12, 4.4),
                                                                    gridspec_kw={"width_ratios": [1, 1.3]})

    def update(self, latent):
        kept = draw_spectrum(self.spectrum_ax, self.singular, latent)
        chosen = draw_latent(self.chart_ax, self.course, self.tuned, selected=latent, converted=self.converted)
        mha = next(iter(self.course.values()))
        return "\n".join([chosen, kept, _("MHA: {b:,} bytes per position, {bits:.3f} bits per character; the cache of "
                                          "d_c = {d} is {r:.1%} of MHA's").format(b=mha[0], bits=mha[1], d=latent,
                                                                                  r=self.tuned[latent][0] / mha[0])]
                         + [_("{name}: {b:,} bytes, {bits:.3f} bits").format(name=n, b=v[0], bits=v[1])
                            for n, v in list(self.course.items())[1:]])


@checks.arguments(latent=checks.Choice(LATENT_SIZES))
def play_latent(*, latent=32) -> Panel:
    """The latent-attention panel: the latent size ``latent`` (d_c, one of LATENT_SIZES)."""
    view = LatentView()
    controls = {"latent": widgets.ToggleButtons(options=[(str(d), d) for d in LATENT_SIZES], value=latent,
                                                description=_("latent d_c"))}
    return Panel(view.figure, controls, view.update, moving=[view.spectrum_ax, view.chart_ax], name="13-latent",
                 columns=1)


@checks.arguments(steps=checks.Int(100, 3000, why="the slider's range"), seed=checks.Int(0, 99))
def play_trainer(*, steps=1500, seed=0) -> Trainer:
    """Train a fresh sink model behind a button (``seed``; the shipped model's settings): the loss, the larger
    head's weight on the first token at ordinary positions, and both heads' patterns on one sequence."""
    shown = sinks.sink_batch(1, seed=sinks.EXAMPLE_SEED)
    x = shown.tokens[:, :-1]

    def run(steps):
        model = yield from sinks.run(steps, seed=seed)
        return model

    def patterns(ax, latest):
        ax.clear()
        ax.set_title(_("both heads on one sequence (first column: position 0)"), fontsize=9)
        ax.set(xticks=[], yticks=[])
        if latest is None:
            return None
        with torch.no_grad():
            _logits, weights = windowed_logits_unchecked(latest["model"], x, x.shape[1], 0, need_weights=True)
        w = weights[0][0].numpy()                                                        # (H, T, T)
        gap = np.full((w.shape[1], 2), np.nan)
        ax.imshow(np.concatenate([w[0], gap, w[1]], axis=1), vmin=0, vmax=1, cmap=WEIGHT_CMAP, interpolation="nearest")
        on_first = w[:, 1:, 0].mean(-1)
        return _("on this sequence, mean weight on position 0: head 1 {a:.2f}, head 2 {b:.2f}").format(
            a=on_first[0], b=on_first[1])

    def done(result, history):
        return html.escape(_("weight on the first token at ordinary positions: {w:.2f} (shipped model: {s:.2f})").format(
            w=history[WEIGHT_CURVE][-1], s=max(max(r) for r in measured()["sinks"]["scores"]["first-token weight"])))

    t = Trainer(run, steps=steps, min_steps=100, max_steps=3000, step=100, curves=("loss", WEIGHT_CURVE),
                extra=patterns, done=done, seconds_per_step=SECONDS_PER_STEP, figsize=(12, 3.4), name="13-training")
    t.axes[WEIGHT_CURVE].set(yscale="linear", ylim=(0, 1.02), ylabel=_("weight on position 0"))
    t.axes["loss"].set(yscale="linear", ylim=(2.0, 5.2), ylabel=_("loss"))
    t.refresh()
    return t
