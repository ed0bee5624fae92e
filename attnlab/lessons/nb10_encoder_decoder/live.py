"""Notebook 10's Play panels: type a date and step through greedy decoding (``play``), and train the small
live model behind a button (``play_trainer``). Both check their arguments once; the panel's update checks
the typed text once (``data.source_problem``) and then calls the unchecked ``model.decode_unchecked``.

Left: the decoder's causal mask over the steps so far. Steps count from 1, as the notebook's text and the
panel's title do: row t is the query of step t; its keys are the cached positions 0..t-1 (the KV cache
after step t holds t positions); with the cache only the last row is computed, a 1 x t block whose mask is
the bottom-right corner of the full one (notebook 07).
Right: each head's cross-attention in the chosen decoder layer, one row per output character so far,
one column per input character. Steps not yet taken stay blank.
"""
import html
import time

import ipywidgets as widgets
import numpy as np
import torch

from ...core import checks
from ...i18n import gettext as _
from ...ui.panels import Panel, new_figure
from ...ui.plotting import heatmap, heatmap_state, live_title, update_heatmap
from ...ui.trainer import Trainer
from . import data, training
from .figures import EXAMPLE, token_label
from .model import MAX_STEPS, DateTransformer, decode_unchecked, pretrained, translate

__all__ = ["CONTROLS", "EXAMPLE", "SHOWCASE", "DecodingPlay", "play", "play_trainer"]

CONTROLS = ("text", "step", "layer")


class DecodingPlay:
    """The figure and ``update(text, step, layer)`` (returns the text under the figure)."""

    def __init__(self, model):
        self.model = model
        self.heads = model.config["num_heads"]
        self.decoded = {}
        self.figure, axes = new_figure(1, 1 + self.heads, figsize=(12.5, 3.9),
                                       gridspec_kw={"width_ratios": [1.1] + [1.6] * self.heads})
        self.mask_ax, self.head_axes = axes[0], list(axes[1:])
        blank = np.full((MAX_STEPS, MAX_STEPS), np.nan)
        heatmap(blank, ax=self.mask_ax, colorbar=False, annotate=False, xlabel=_("cached keys (positions)"),
                ylabel=_("decoding step (query)"), title=" ")
        for h, ax in enumerate(self.head_axes):
            heatmap(np.full((MAX_STEPS, 4), np.nan), ax=ax, colorbar=False, annotate=False,
                    xlabel=_("input characters"), ylabel=_("output so far") if h == 0 else "", title=" ")
            if h:
                ax.tick_params(labelleft=False)
        # Titles that change with the step and the layer, drawn alone (live_title: a changed axes title moves its
        # axes). The figure is laid out once, on its first draw, with each axes' own title holding the first
        # title's text, unseen (colour "none"): the same room as before (a title's height counts there, not its
        # width, and a Chinese title is taller than " ").
        self.titles = [live_title(ax, " ") for ax in [self.mask_ax, *self.head_axes]]
        for title in self.titles:
            title.set_in_layout(False)
        self.laid_out = False
        # What a step or layer move changes (issue 51: each drew the whole figure, ~0.2 s): every heatmap's
        # picture and the titles; a new date changes the labels, and draws the whole figure.
        self.moving = [heatmap_state(ax).image for ax in [self.mask_ax, *self.head_axes]] + self.titles

    def decoding(self, text):
        """The Decoding of a typed ``text`` that ``data.source_problem`` accepted (kept per text)."""
        if text not in self.decoded:
            self.decoded[text] = decode_unchecked(self.model, text.strip().lower())
        return self.decoded[text]

    def _room_for_titles(self):
        """Before the first draw: each axes' own title the live title's text, unseen (see __init__)."""
        if not self.laid_out:
            for ax, title in zip([self.mask_ax, *self.head_axes], self.titles):
                ax.set_title(title.get_text(), color="none")
            self.laid_out = True

    def _clear(self, message):
        update_heatmap(self.mask_ax, np.full((MAX_STEPS, MAX_STEPS), np.nan))
        for ax in self.head_axes:
            update_heatmap(ax, np.full((MAX_STEPS, 4), np.nan), x_labels=[""] * 4)
        for title in self.titles:
            title.set_text(" ")
        return message

    def update(self, text, step, layer):
        problem = data.source_problem(text) if isinstance(text, str) else _("expected text")
        if problem:
            return self._clear(_("Cannot read {text!r}: {problem}").format(text=text, problem=problem))
        d = self.decoding(text)
        n = len(d.tokens)
        t = min(step, n)                                                # steps taken (1..n)
        tokens = [token_label(c) for c in d.tokens]
        inputs = [token_label(data.BOS)] + tokens[:-1]                       # what each step was fed
        labels = [f"{inputs[i]}→{tokens[i]}" for i in range(MAX_STEPS)] if n == MAX_STEPS else \
            [f"{inputs[i]}→{tokens[i]}" if i < n else "" for i in range(MAX_STEPS)]
        mask = np.full((MAX_STEPS, MAX_STEPS), np.nan)
        causal = np.tril(np.ones((t, t)))
        causal[causal == 0] = 0.0
        mask[:t, :t] = causal * 0.35
        mask[t - 1, :t] = 1.0                                           # the row computed at this step
        # every other position named: eleven labels 0..10 under this narrow heatmap ran into each other
        update_heatmap(self.mask_ax, mask, x_labels=[str(i) if i % 2 == 0 else "" for i in range(MAX_STEPS)],
                       y_labels=labels)
        self.titles[0].set_text(_("step {t}: KV cache holds {t} positions").format(t=t))
        src = list(d.source)
        for h, ax in enumerate(self.head_axes):
            w = np.full((MAX_STEPS, len(src)), np.nan)
            w[:t] = d.cross_attention[layer - 1, h, :t].numpy()
            update_heatmap(ax, w, x_labels=src, y_labels=labels)
            self.titles[1 + h].set_text(_("layer {layer}, head {head}").format(layer=layer, head=h + 1))
        self._room_for_titles()
        probs = torch.softmax(d.logits[t - 1], -1)
        top = probs.argmax().item()
        peaks = [src[int(d.cross_attention[layer - 1, h, t - 1].argmax())] for h in range(self.heads)]
        return "\n".join([
            _("input: {source!r}   output: {output!r}").format(source=d.source, output=d.output),
            _("step {t} of {n}: fed {fed!r}, chose {char!r} (probability {p:.3f})").format(
                t=t, n=n, fed=inputs[t - 1], char=tokens[t - 1], p=probs[top].item()),
            _("KV cache after this step: {t} positions per layer (keys and values of the steps so far)").format(t=t),
            _("layer {layer}: each head's strongest input character for this step: {peaks}").format(
                layer=layer, peaks=", ".join(f"{h + 1}: {c!r}" for h, c in enumerate(peaks))),
        ])


def _controls(text, layers):
    """The Play section's controls (CONTROLS): a text box, the decoding step and the decoder layer."""
    return {"text": widgets.Text(value=text, description=_("date"), continuous_update=False),
            "step": widgets.IntSlider(value=MAX_STEPS, min=1, max=MAX_STEPS, description=_("step")),
            "layer": widgets.IntSlider(value=layers, min=1, max=layers, description=_("layer"))}


@checks.arguments(model=checks.Optional(checks.Instance(DateTransformer, "a DateTransformer (e.g. pretrained())")),
                   text=checks.Text())
def play(*, model=None, text=EXAMPLE) -> Panel:
    """The Play panel: type a date, step through greedy decoding with the KV cache (the shipped model by
    default). Returns the Panel; a date it cannot read gets a message under the figure."""
    model = pretrained() if model is None else model
    view = DecodingPlay(model)
    return Panel(view.figure, _controls(text, model.config["num_layers"]), view.update, moving=view.moving,
                 name="10-decoding", columns=3)


SHOWCASE = ("7 mar 1994", "march 7, 1994", "07.03.1994", "1994 mar 7", "03/07/1994")


@checks.arguments(steps=checks.Int(100, 3000, why="the slider's range"))
def play_trainer(*, steps=training.LIVE_STEPS) -> Trainer:
    """Train the small live model (training.LIVE: one encoder and one decoder layer, width 32) behind a
    button: the loss and the held-out exact match as it learns; when done, the exact match per format,
    the CPU seconds and the five ways of writing 7 March 1994 read by the new model. Each press starts
    from the same weights and batches, so the same steps give the same model."""
    cpu = {}

    def run(steps):
        cpu["start"] = time.process_time()
        result = yield from training.run(steps, **training.LIVE)
        return result

    def done(result, history):
        seconds = time.process_time() - cpu["start"]
        acc = training.accuracy(result)
        formats = ", ".join(f"{html.escape(name)} {acc[name]:.3f}" for name in data.FORMATS)
        read = ", ".join(f"{html.escape(s)} → {t}" for s, t in zip(SHOWCASE, translate(result, list(SHOWCASE))))
        return _("Held-out exact match <b>{acc:.3f}</b> ({formats}); {seconds:.0f} s of CPU. It reads: {read}").format(
            acc=acc["all"], formats=formats, seconds=seconds, read=read)

    t = Trainer(run, steps=steps, min_steps=100, max_steps=3000, step=100, curves=("loss", "accuracy"),
                done=done, seconds_per_step=training.LIVE_SECONDS_PER_STEP, figsize=(10, 3.2), name="10-training")
    t.axes["accuracy"].set(ylabel=_("held-out exact match"), title=_("held-out exact match"))
    t.refresh()
    return t
