"""Notebook 12's Play panels.

play      a prompt box (English or Chinese), temperature, top-k, top-p and seed: the shipped model writes STEPS
          characters; the step slider replays them, the figure showing the distribution each one was drawn
          from, before and after each filter, and the text so far (the character drawn at that step in brackets).
          One generation per prompt, filters and seed is kept (GENERATIONS of them), so moving the step slider
          never generates again. A move that needs a new generation answers in two parts (issue 51): the
          first ``step`` characters (the same as the whole generation's first ones: one draw per character
          from the seeded generator), enough for the figure, at once; the rest of the text once they are
          generated. A prompt the model cannot read gets generate's ValueError message in the panel.
play_kv   4, 2 or 1 key/value heads: the cache's bytes against length, the held-out quality of each shipped
          model, and the attention patterns of one layer's query heads, titled by the key/value head they share.
"""
import textwrap
import unicodedata
from collections import OrderedDict

import ipywidgets as widgets
import numpy as np
import torch

from ...core import checks
from ...i18n import gettext as _, ngettext, pgettext
from ...ui.panels import Later, Panel, new_figure
from ...ui.plotting import WEIGHT_CMAP, live_title
from . import corpus
from .figures import KV_CHOICES, FilterBars, cache_figure, char_label, filter_stages, stages_text
from .generation import generate, generate_unchecked
from .measure import bits_per_char_unchecked, cache_bytes
from .shipped import measured, pretrained

__all__ = ["GENERATIONS", "KV_EXAMPLE", "PROMPT", "STEPS", "TIMING_LENGTHS", "WIDTH", "GenerationView", "KVView",
           "kv_cache_timing", "kv_quality", "play", "play_kv", "shown_text", "write_timing"]

STEPS = 100                 # characters generated per move
GENERATIONS = 32            # generations kept (prompt, filters, seed)
PROMPT = "The attention weights "
KV_EXAMPLE = "the query meets the keys; the query meets"
WIDTH = 84                  # columns of the text under the bars (a CJK character takes two)


def shown_text(text, width=WIDTH):
    """``text`` wrapped at ``width`` columns (a wide character counts two), its line breaks kept."""
    lines = []
    for paragraph in text.split("\n"):
        line, used = "", 0
        for c in paragraph:
            w = 2 if unicodedata.east_asian_width(c) in "WF" else 1
            if used + w > width:
                lines.append(line)
                line, used = "", 0
            line, used = line + c, used + w
        lines.append(line)
    return "\n".join(lines)


class GenerationView:
    """The generation panel's figure and ``update(prompt, temperature, top_k, top_p, seed, step)`` (returns the
    text under the figure). ``runs`` counts the generations made (a step move makes none)."""

    def __init__(self, model):
        self.model = model
        self.kept = OrderedDict()
        self.partial = {}               # the first characters of a generation not yet made whole: {key: Generation}
        self.runs = 0
        self.figure, (self.bars_ax, self.text_ax) = new_figure(2, 1, figsize=(11, 5.6),
                                                               gridspec_kw={"height_ratios": [3, 1.5]})
        self.text_ax.set_axis_off()
        self.bars = FilterBars(self.bars_ax)      # made once, changed in place on each move
        self.so_far = None                        # the Text of the text so far, made on the first draw

    def generation(self, prompt, temperature, top_k, top_p, seed, checked=True):
        """The Generation for these settings (made once, kept); generate's checks raise ValueError (``checked``
        False: the settings were checked already this move, by the generation of its first characters)."""
        key = (prompt, temperature, top_k, top_p, seed)
        if key not in self.kept and key in self.partial and len(self.partial[key].probs) == STEPS:
            self.kept[key] = self.partial.pop(key)
        if key not in self.kept:
            self.kept[key] = (generate(self.model, prompt, STEPS, temperature=temperature, top_k=top_k, top_p=top_p,
                                       seed=seed) if checked else
                              generate_unchecked(self.model, prompt, STEPS, temperature, top_k, top_p,
                                                 torch.Generator().manual_seed(seed), True))
            self.runs += 1
            while len(self.kept) > GENERATIONS:
                self.kept.popitem(last=False)
        self.kept.move_to_end(key)
        return self.kept[key]

    def _blank(self, message):
        self.bars.reset()
        self.so_far = None
        self.bars_ax.clear()
        self.bars_ax.set(xticks=[], yticks=[], title=_("nothing generated"))
        self.text_ax.clear()
        self.text_ax.set_axis_off()
        self.text_ax.text(0, 1, "\n".join(textwrap.wrap(message, 100)), va="top", fontsize=10, color="#b00020",
                          transform=self.text_ax.transAxes)
        return message

    def update(self, prompt, temperature, top_k, top_p, seed, step):
        """Draw step ``step`` of the generation for these settings; returns the text under the figure, or a
        ``Later`` (a generation not made yet: the figure and all but the whole continuation now, from the
        first ``step`` characters; the continuation once all STEPS are generated)."""
        top_k = None if top_k == 0 else top_k                          # the sliders' "off" ends
        top_p = None if top_p >= 1.0 else top_p
        key = (prompt, temperature, top_k, top_p, seed)
        try:
            if key in self.kept or len(prompt) + STEPS > self.model.config["context"]:     # (the latter raises)
                return self._draw(self.generation(*key), prompt, temperature, top_k, top_p, seed, step)
            first = self.partial.get(key)
            if first is None or len(first.probs) < step:
                # the first `step` characters: the whole generation's first ones (one draw each from the seeded
                # generator), all the figure and the first lines need
                first = generate(self.model, prompt, step, temperature=temperature, top_k=top_k, top_p=top_p,
                                 seed=seed)
                self.partial = {key: first}
        except ValueError as exc:                                       # the prompt (or its length), shown as text
            return self._blank(_("Cannot continue this prompt: {error}").format(error=str(exc)))
        now = self._draw(first, prompt, temperature, top_k, top_p, seed, step, whole=False)

        def finish():                                   # (generate checked these settings for the first characters)
            return self._draw(self.generation(*key, checked=False), prompt, temperature, top_k, top_p, seed, step,
                              figure=False)
        return Later(now, finish)

    def _draw(self, g, prompt, temperature, top_k, top_p, seed, step, whole=True, figure=True):
        """Draw (``figure``) step ``step`` of generation ``g`` (at least ``step`` characters) and return the
        text under the figure; ``whole``: ``g`` holds all STEPS characters (else the last line says they
        are still being generated)."""
        i = step - 1
        new = g.text[len(prompt):]
        chosen = corpus.encode(new[i])[0]
        stages = filter_stages(g.logits[i], temperature, top_k, top_p)
        names = [_("softmax(z)"), _("softmax(z / T), T = {T:g}").format(T=temperature),
                 _("then top-k, k = {k}").format(k=_("off") if top_k is None else top_k),
                 _("then top-p, p = {p}").format(p=_("off") if top_p is None else f"{top_p:g}")]
        so_far = prompt + new[:i] + "[" + new[i] + "]"
        if figure:
            self.bars.draw(stages, names, chosen=chosen)
            self.bars_ax.set_title(_("step {i} of {n}: the distribution the character {c!r} was drawn from").format(
                i=step, n=STEPS, c=char_label(new[i])), fontsize=10)
            if self.so_far is None:
                self.text_ax.clear()
                self.text_ax.set_axis_off()
                self.so_far = self.text_ax.text(0, 1, "", va="top", fontsize=10, transform=self.text_ax.transAxes,
                                                linespacing=1.3)
            self.so_far.set_text(shown_text(so_far))
        p = g.probs[i, chosen].item()
        return "\n".join([
            _("text so far (the character drawn at this step in brackets): {text}").format(text=so_far),
            _("step {i} of {n}: drew {c!r} with probability {p:.3f} after the filters").format(
                i=step, n=STEPS, c=new[i], p=p),
            stages_text(stages, top_k, top_p),
            _("the whole continuation ({n} characters, seed {seed}): {text}").format(n=STEPS, seed=seed, text=new)
            if whole else _("the whole continuation ({n} characters, seed {seed}): being generated…").format(
                n=STEPS, seed=seed),
        ])


@checks.arguments(prompt=checks.Text(), temperature=checks.Real(low=0.05, high=2.0, why="the slider's range"),
                  top_k=checks.Optional(checks.Int(1, 40, why="the slider's range")),
                  top_p=checks.Optional(checks.Real(low=0.05, high=1.0, why="the slider's range")),
                  seed=checks.Int(0, 99, why="the slider's range"), step=checks.Int(1, STEPS))
def play(*, prompt=PROMPT, temperature=0.8, top_k=None, top_p=None, seed=0, step=1) -> Panel:
    """The generation panel: the shipped model continues ``prompt`` by STEPS characters with these filters
    (``top_k`` / ``top_p`` None: off) and ``seed``; ``step`` picks the character whose distribution is shown."""
    controls = {
        "prompt": widgets.Text(value=prompt, description=_("prompt"), continuous_update=False,
                               layout=widgets.Layout(width="520px")),
        "seed": widgets.IntSlider(value=seed, min=0, max=99, description=_("seed")),
        "temperature": widgets.FloatSlider(value=temperature, min=0.05, max=2.0, step=0.05, description=_("temperature T"),
                                           style={"description_width": "initial"}),
        "top_k": widgets.IntSlider(value=0 if top_k is None else top_k, min=0, max=40,
                                   description=_("top-k (0: off)"), style={"description_width": "initial"}),
        "top_p": widgets.FloatSlider(value=1.0 if top_p is None else top_p, min=0.05, max=1.0, step=0.05,
                                     description=_("top-p (1: off)"), style={"description_width": "initial"}),
        "step": widgets.IntSlider(value=step, min=1, max=STEPS, description=_("step"),
                                  layout=widgets.Layout(width="520px")),
    }
    view = GenerationView(pretrained())
    return Panel(view.figure, controls, view.update, moving=[view.bars_ax, view.text_ax], name="12-generation",
                 columns=2)


_QUALITY = {}


def kv_quality():
    """Held-out bits per character of the shipped models with 4, 2 and 1 key/value heads ({kv: bits}), from
    results.json (measured once here where it has none)."""
    models = measured().get("models", {})
    out = {}
    for kv in KV_CHOICES:
        entry = models.get(f"kv{kv}", {})
        if "heldout bits" in entry:
            out[kv] = entry["heldout bits"]
        else:
            if kv not in _QUALITY:
                _QUALITY[kv] = bits_per_char_unchecked(pretrained(kv), "heldout")
            out[kv] = _QUALITY[kv]
    return out


class KVView:
    """The key/value-heads panel's figure and ``update(kv_heads, length, layer)``."""

    def __init__(self):
        self.models = {kv: pretrained(kv) for kv in KV_CHOICES}
        self.quality = kv_quality()
        self.bigram = measured()["baselines"]["bigram heldout bits"]
        self.per_position = {kv: cache_bytes(m, 1) for kv, m in self.models.items()}
        self.context = self.models[4].config["context"]
        self.heads = self.models[4].config["heads"]
        self.patterns = {}
        self.figure = new_figure(figsize=(12, 6.4))[0]
        self.figure.clear()
        grid = self.figure.add_gridspec(2, self.heads)
        self.bytes_ax = self.figure.add_subplot(grid[0, :self.heads // 2])
        self.bits_ax = self.figure.add_subplot(grid[0, self.heads // 2:])
        self.head_axes = [self.figure.add_subplot(grid[1, h]) for h in range(self.heads)]
        T = len(KV_EXAMPLE)
        ticks = list(range(0, T, 5))
        self.images = []
        for ax in self.head_axes:
            self.images.append(ax.imshow(np.zeros((T, T)), vmin=0, vmax=1, cmap=WEIGHT_CMAP, interpolation="nearest"))
            ax.set_xticks(ticks, [char_label(KV_EXAMPLE[t]) for t in ticks], fontsize=7)
            ax.set_yticks(ticks, [char_label(KV_EXAMPLE[t]) for t in ticks], fontsize=7)
            ax.set_xlabel(_("key (character)"), fontsize=8)
        self.head_axes[0].set_ylabel(_("query (character)"), fontsize=8)
        self.figure.colorbar(self.images[0], ax=self.head_axes, shrink=0.8, label=_("weight"))
        # Titles drawn alone on a move (live_title: a changed axes title moves its axes). The figure is laid out on
        # its first draw with each axes' own title holding the first title's text, unseen (colour "none"): the
        # same room as before (a title's height counts there, not its width; a Chinese one is taller than " ").
        self.titles = []
        for ax in self.head_axes:
            ax.set_title(" ", fontsize=9)
            self.titles.append(live_title(ax, " ", fontsize=9))
            self.titles[-1].set_in_layout(False)
        self.laid_out = False
        self.selected = None            # the kv_heads the cache plots were drawn for
        self.markers = []               # their artists a length move moves: a point per curve, the vertical line
        ids = torch.tensor([corpus.encode(KV_EXAMPLE)])
        for kv, model in self.models.items():           # every pattern once, here: a move runs no model
            with torch.no_grad():
                model(ids, need_weights=True)
            for i, w in enumerate(model.attention()):
                self.patterns[(kv, i + 1)] = w[0].numpy()                       # (H, T, T)

    def pattern(self, kv, layer):
        return self.patterns[(kv, layer)]

    def update(self, kv_heads, length, layer):
        if kv_heads != self.selected:   # another curve thick and bar outlined: the two plots drawn again
            self.bytes_ax.clear()
            self.bits_ax.clear()
            cache_figure(self.per_position, self.quality, context=self.context, length=length, bigram=self.bigram,
                         selected=kv_heads, axes=(self.bytes_ax, self.bits_ax))
            self.selected = kv_heads
            # cache_figure's marks of the length: a point on each curve (largest kv first), then the vertical line
            self.markers = [line for line in self.bytes_ax.lines if len(line.get_xdata()) == 1]
            self.markers.append(self.bytes_ax.lines[-1])
        else:                           # a length move (issue 51: both plots were cleared and drawn again)
            for kv, point in zip(sorted(self.per_position, reverse=True), self.markers):
                point.set_data([length], [length * self.per_position[kv] / 1024])
            self.markers[-1].set_xdata([length, length])
        w = self.pattern(kv_heads, layer)
        group = self.heads // kv_heads
        for h, (image, title) in enumerate(zip(self.images, self.titles)):
            image.set_data(w[h])
            title.set_text(_("layer {l}, query head {h} · kv head {g}").format(l=layer, h=h + 1, g=h // group + 1))
            if not self.laid_out:                          # before the first draw (see __init__)
                image.axes.set_title(title.get_text(), fontsize=9, color="none")
        self.laid_out = True
        shares = pgettext("list separator", ", ").join(_("query heads {a}–{b} share kv head {g}").format(a=g * group + 1, b=(g + 1) * group, g=g + 1)
                           if group > 1 else _("query head {a} has kv head {g}").format(a=g + 1, g=g + 1)
                           for g in range(kv_heads))
        full = length * self.per_position[self.heads]
        self.shown = "\n".join([
            _("{kv} key/value heads for {H} query heads: {shares}").format(kv=kv_heads, H=self.heads, shares=shares),
            _("KV cache after {n} positions: {b:,} bytes ({ratio:.0%} of the {full:,} bytes with {H} key/value heads)").format(
                n=length, b=length * self.per_position[kv_heads], ratio=self.per_position[kv_heads] / self.per_position[self.heads],
                full=full, H=self.heads),
            _("held-out bits per character: {q} (bigram model {bigram:.2f})").format(
                q=pgettext("list separator", ", ").join(ngettext("{kv} kv head {b:.3f}", "{kv} kv heads {b:.3f}", kv).format(
                    kv=kv, b=b) for kv, b in self.quality.items()),
                bigram=self.bigram),
            _("the patterns are on {text!r}; each query head keeps its own queries, so patterns within a group still "
              "differ").format(text=KV_EXAMPLE),
        ])
        return self.shown

    def describe(self, kv_heads, length, layer):
        """What the figure shows now (the panel's accessible name): the text under it, with the layer whose
        patterns are drawn, which the text does not name."""
        return _("Attention patterns of layer {layer}. {shown}").format(layer=layer, shown=self.shown)


@checks.arguments(kv_heads=checks.Choice(KV_CHOICES), length=checks.Int(1, 256, why="the context"),
                  layer=checks.Int(1, 4, why="the model's layers"))
def play_kv(*, kv_heads=4, length=256, layer=2) -> Panel:
    """The key/value-heads panel: the shipped model with ``kv_heads`` (4, 2 or 1) key/value heads, its cache
    after ``length`` positions and the attention patterns of ``layer`` (from 1)."""
    controls = {
        "kv_heads": widgets.ToggleButtons(options=[(_("4 (MHA)"), 4), (_("2 (GQA)"), 2), (_("1 (MQA)"), 1)],
                                          value=kv_heads, description=_("kv heads")),
        "length": widgets.IntSlider(value=length, min=1, max=256, description=_("length")),
        "layer": widgets.IntSlider(value=layer, min=1, max=4, description=_("layer")),
    }
    view = KVView()
    # a length move moves the marks of the length; a layer move the patterns and titles; kv_heads draws in full
    return Panel(view.figure, controls, view.update, moving=[lambda: view.markers, *view.images, *view.titles],
                 name="12-kv-heads", columns=3, describe=view.describe)



TIMING_LENGTHS = (16, 64, 128, 192, 255)


def _timing_file():
    from .checkpoints import RESULTS
    return RESULTS.parent / "timing.json"


def kv_cache_timing():
    """The KV cache's timings, stored once (the notebook must not measure: its pictures are compared):
    results.json's "timing" where it has one, else checkpoints/timing.json (``write_timing``). A dict with
    "lengths", "with cache seconds", "without cache seconds" (medians of timing.step_seconds, one thread)."""
    import json
    stored = measured().get("timing")
    return stored if stored else json.loads(_timing_file().read_text(encoding="utf-8"))


def write_timing(repeats=7):
    """Measure the shipped model's seconds per character with and without the cache and store them
    (checkpoints/timing.json), with the machine and its load average."""
    import json
    import os
    import platform

    from .timing import step_seconds
    model, load = pretrained(), os.getloadavg()[0]
    out = {"lengths": list(TIMING_LENGTHS), "repeats": repeats,
           "with cache seconds": step_seconds(model, TIMING_LENGTHS, cache=True, repeats=repeats),
           "without cache seconds": step_seconds(model, TIMING_LENGTHS, cache=False, repeats=repeats),
           "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
           "load average before": round(load, 2)}
    _timing_file().write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return out
