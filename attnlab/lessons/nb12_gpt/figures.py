"""Figures of notebook 12, each from data (results.json's numbers, a model's logits or patterns), drawn into new
axes or the given ones, returning the Axes; nothing is drawn on import. Each has a ``*_text`` twin (or returns its
text) that says in words what the figure shows, for the notebook to print and for readers who cannot see it; a
figure made here shows its own words as its text in a notebook (attnlab.ui.figure_text), the filters figure
its ``filters_text`` too.

    filters_figure      the next-character distribution: softmax(z), softmax(z / T), after top-k, after top-p
    training_figure     held-out bits per character while training, against the unigram and bigram models
    timing_figure       seconds per new character against length, with and without the KV cache
    cache_figure        the cache's bytes against length for 4, 2 and 1 key/value heads, and each one's quality
    patterns_figure     one attention pattern per query head, titled with the key/value head it shares
    induction_figure    the induction score of every head, and copying with and without the strongest heads
    thumbnail           the index's picture
"""
import textwrap

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.axes import Axes

from ...core import checks
from ...i18n import gettext as _, ngettext
from ...ui import plotting
from ...ui.figure_text import describe, words
from ...ui.plotting import SERIES_COLORS
from . import corpus
from .generation import filtered_unchecked

__all__ = ["KV_CHOICES", "FilterBars", "char_label", "cache_figure", "draw_filters", "filter_stages", "filters_figure",
           "filters_text", "induction_figure", "stages_text", "patterns_figure", "thumbnail", "timing_figure", "training_figure"]

KV_CHOICES = (4, 2, 1)
_AX = checks.Optional(checks.Instance(Axes, "a matplotlib Axes"))
_SHOWN = {" ": "␣", "\n": "↵", "\t": "⇥"}
# The four stages: grey, then blue, green and orange of the colour-vision-safe palette; the last two hatched too.
_STAGE_STYLE = ({"color": "0.75"}, {"color": SERIES_COLORS[0]}, {"color": SERIES_COLORS[2], "hatch": "//"},
                {"color": SERIES_COLORS[1], "hatch": ".."})


def _new(ax, size):
    """A new Axes (its figure described by its own words when shown in a notebook), or ``ax``."""
    return describe(plt.subplots(figsize=size, layout="constrained")[1]) if ax is None else ax


def char_label(c):
    """A character as a label: a space as ␣, a line break as ↵."""
    return _SHOWN.get(c, c)


def filter_stages(logits, temperature, top_k, top_p):
    """The four distributions (numpy float64, each (V,)): softmax(z), softmax(z / T), after top-k, after top-k and
    top-p. A filter left off (None) passes the previous stage on unchanged."""
    z = torch.as_tensor(logits).double()
    return [filtered_unchecked(z, 1.0, None, None).numpy(), filtered_unchecked(z, temperature, None, None).numpy(),
            filtered_unchecked(z, temperature, top_k, None).numpy(),
            filtered_unchecked(z, temperature, top_k, top_p).numpy()]


def _stage_names(temperature, top_k, top_p):
    return [_("softmax(z)"), _("softmax(z / T), T = {T:g}").format(T=temperature),
            _("then top-k, k = {k}").format(k=_("off") if top_k is None else top_k),
            _("then top-p, p = {p}").format(p=_("off") if top_p is None else f"{top_p:g}")]


def draw_filters(ax, stages, names, top=12, chosen=None):
    """Draw the four stages as grouped bars over the ``top`` characters most probable under softmax(z / T)
    (``chosen``: a token id, the character drawn, marked ▼ above its bars and its label bold). Clears ``ax`` first."""
    ax.clear()
    V = len(stages[0])
    order = np.argsort(-stages[1], kind="stable")[:top]
    x = np.arange(len(order))
    vocab = corpus.vocab()
    width = 0.2
    for i, (stage, name, style) in enumerate(zip(stages, names, _STAGE_STYLE)):
        kept = int((stage > 0).sum())
        ax.bar(x + (i - 1.5) * width, stage[order], width=width, edgecolor="0.2", linewidth=0.4,
               label=_("{name} ({kept} of {V} kept)").format(name=name, kept=kept, V=V) if i >= 2 else name, **style)
    ax.set_xticks(x, [char_label(vocab[j]) for j in order])
    if chosen is not None and chosen in set(order.tolist()):
        where = int(np.nonzero(order == chosen)[0][0])
        ax.get_xticklabels()[where].set_fontweight("bold")
        top = max(stage[chosen] for stage in stages)
        ax.plot([where], [min(top + 0.05, 0.98)], marker="v", color="k", markersize=8)
    ax.set(ylim=(0, 1.02), ylabel=_("probability"),
           xlabel=_("the {n} most probable next characters (␣ a space, ↵ a line break)").format(n=len(order)))
    ax.legend(fontsize=8, loc="upper right")
    return ax


class FilterBars:
    """``draw_filters``' picture for a live panel: its bars, ticks, legend and mark made on the first call (and
    after ``reset``), then changed in place (a move of notebook 12's panel spent most of its update in
    ``ax.clear()`` and four ``bar`` calls; issue 51). ``draw(stages, names, chosen)`` as ``draw_filters``."""

    def __init__(self, ax, top=12):
        self.ax, self.top = ax, top
        self.reset()

    def reset(self):
        """Make the artists again on the next draw (after something else cleared the axes)."""
        self.shown = None                  # (the number of bars, V) they were made for

    def draw(self, stages, names, chosen=None):
        ax = self.ax
        V = len(stages[0])
        order = np.argsort(-stages[1], kind="stable")[:self.top]
        x = np.arange(len(order))
        labels = [_("{name} ({kept} of {V} kept)").format(name=name, kept=int((stage > 0).sum()), V=V) if i >= 2
                  else name for i, (stage, name) in enumerate(zip(stages, names))]
        if self.shown != (len(order), V):
            draw_filters(ax, stages, names, top=self.top)
            self.containers = list(ax.containers)
            self.mark, = ax.plot([], [], marker="v", color="k", markersize=8)
            self.shown = (len(order), V)
        for container, stage in zip(self.containers, stages):
            for bar, height in zip(container.patches, stage[order]):
                bar.set_height(height)
        for text, label in zip(ax.get_legend().get_texts(), labels):
            text.set_text(label)
        vocab = corpus.vocab()
        ax.set_xticks(x, [char_label(vocab[j]) for j in order])
        where = int(np.nonzero(order == chosen)[0][0]) if chosen is not None and chosen in set(order.tolist()) else None
        for i, label in enumerate(ax.get_xticklabels()):
            label.set_fontweight("bold" if i == where else "normal")
        if where is None:
            self.mark.set_data([], [])
        else:
            self.mark.set_data([where], [min(max(stage[chosen] for stage in stages) + 0.05, 0.98)])
        return ax


@checks.arguments(logits=checks.Array(1), temperature=checks.Real(positive=True))
def filters_text(logits, *, temperature=1.0, top_k=None, top_p=None):
    """In words, what ``filters_figure`` draws for the same arguments: what each filter keeps, and the mass."""
    return stages_text(filter_stages(logits, temperature, top_k, top_p), top_k, top_p)


def stages_text(stages, top_k, top_p):
    """One sentence per filter of ``filter_stages``' four stages: what survives and the mass renormalised."""
    vocab = corpus.vocab()
    first = int(np.argmax(stages[1]))
    lines = [_("most probable next character {c!r}: {p:.3f} before the temperature, {q:.3f} after it").format(
        c=vocab[first], p=stages[0][first], q=stages[1][first])]
    if top_k is not None:
        kept = stages[2] > 0
        lines.append(_("top-k keeps {n} characters holding {mass:.3f} of the mass; each is divided by it").format(
            n=int(kept.sum()), mass=stages[1][kept].sum()))
    if top_p is not None:
        kept = stages[3] > 0
        after_k = (_("top-p keeps {n} characters holding {mass:.3f} of what top-k kept (p = {p:g})") if top_k is not None
                   else _("top-p keeps {n} characters holding {mass:.3f} of the mass (p = {p:g})"))
        lines.append(after_k.format(n=int(kept.sum()), mass=stages[2][kept].sum(), p=top_p))
    final = stages[3] > 0
    lines.append(_("{n} characters can be drawn; the largest probability is {p:.3f}").format(
        n=int(final.sum()), p=stages[3].max()))
    return "\n".join(lines)


@checks.arguments(logits=checks.Array(1), temperature=checks.Real(positive=True), ax=_AX)
def filters_figure(logits, *, temperature=1.0, top_k=None, top_p=None, top=12, ax=None):
    """The next-character distribution for ``logits`` (V,) before and after each filter; returns the Axes."""
    made = ax is None
    ax = _new(ax, (10, 3.6))
    stages = filter_stages(logits, temperature, top_k, top_p)
    draw_filters(ax, stages, _stage_names(temperature, top_k, top_p), top=top)
    ax.set_title(_("The next character's distribution, filter by filter"))
    if made:
        describe(ax, words(ax.figure) + "\n" + stages_text(stages, top_k, top_p))
    return ax


@checks.arguments(every=checks.Int(1), bits=checks.Items(checks.Real()), baselines=checks.Dict(), ax=_AX)
def training_figure(every, bits, baselines, ax=None):
    """Held-out bits per character measured every ``every`` steps, the count models' as dashed lines."""
    ax = _new(ax, (6.4, 3.2))
    steps = [every * (i + 1) for i in range(len(bits))]
    ax.plot(steps, bits, "o-", color=SERIES_COLORS[0], label=_("the GPT (held-out text)"))
    for (name, value), style in zip(baselines.items(), ("--", ":")):
        ax.axhline(value, color="0.3", linestyle=style, label=_("{name}: {v:.2f}").format(name=name, v=value))
    ax.set(xlabel=_("training step"), ylabel=_("bits per character"), title=_("Held-out bits per character"))
    ax.legend(fontsize=8)
    return ax


@checks.arguments(lengths=checks.Items(checks.Int(1), min_len=1), with_cache=checks.Items(checks.Real(low=0)),
                  without=checks.Items(checks.Real(low=0)), ax=_AX)
def timing_figure(lengths, with_cache, without, ax=None):
    """Milliseconds to compute the next character after n characters, with the KV cache and without."""
    ax = _new(ax, (6.4, 3.2))
    ax.plot(lengths, [1e3 * s for s in without], "s--", color=SERIES_COLORS[3], label=_("without the cache: all n positions again"))
    ax.plot(lengths, [1e3 * s for s in with_cache], "o-", color=SERIES_COLORS[0], label=_("with the cache: one new position"))
    ax.set(xlabel=_("characters so far (n)"), ylabel=_("milliseconds per new character"), ylim=(0, None),
           title=_("Time per character, one CPU thread"))
    ax.legend(fontsize=8)
    return ax


@checks.arguments(bytes_per_position=checks.Dict(), bits=checks.Dict(), context=checks.Int(1), length=checks.Int(0))
def cache_figure(bytes_per_position, bits, *, context, length, bigram=None, selected=None, axes=None):
    """Left: the cache's bytes against length for each number of key/value heads ({kv: bytes per position}),
    a marker at ``length``. Right: each one's held-out bits per character ({kv: bits}), the bigram model's
    dashed. ``selected`` (a kv) is drawn thick; returns the two axes."""
    if axes is None:
        axes = plt.subplots(1, 2, figsize=(10, 3.4), layout="constrained", gridspec_kw={"width_ratios": [1.4, 1]})[1]
        describe(axes[0])
    left, right = axes
    n = np.arange(context + 1)
    for i, kv in enumerate(sorted(bytes_per_position, reverse=True)):
        thick = selected is None or kv == selected
        left.plot(n, n * bytes_per_position[kv] / 1024, color=SERIES_COLORS[i], linewidth=2.5 if thick else 1,
                  linestyle=["-", "--", ":"][i % 3], label=ngettext("{kv} key/value head", "{kv} key/value heads", kv).format(kv=kv))
        left.plot([length], [length * bytes_per_position[kv] / 1024], "o", color=SERIES_COLORS[i])
    left.axvline(length, color="0.5", linewidth=0.8)
    left.set(xlabel=_("positions cached (length)"), ylabel=_("KV cache (KiB, float32)"), xlim=(0, context),
             ylim=(0, None), title=_("Cache size: layers × 2 × kv_heads × head size × length × 4 bytes"))
    left.title.set_fontsize(9)
    left.legend(fontsize=8, loc="upper left")
    kvs = sorted(bits, reverse=True)
    bars = right.bar(range(len(kvs)), [bits[kv] for kv in kvs], color=[SERIES_COLORS[i] for i in range(len(kvs))],
                     edgecolor=["k" if kv == selected else "none" for kv in kvs], linewidth=2)
    for bar, kv in zip(bars, kvs):
        right.text(bar.get_x() + bar.get_width() / 2, bits[kv] + 0.05, f"{bits[kv]:.2f}", ha="center", fontsize=8)
    if bigram is not None:
        right.axhline(bigram, color="0.3", linestyle="--", label=_("bigram model: {v:.2f}").format(v=bigram))
        right.legend(fontsize=8, loc="lower right")
    right.set_xticks(range(len(kvs)), [str(kv) for kv in kvs])
    right.set(xlabel=_("key/value heads"), ylabel=_("held-out bits per character"), ylim=(0, max(list(bits.values()) + [bigram or 0]) * 1.2),
              title=_("Bits per character (lower is better)"))
    return axes


@checks.arguments(weights=checks.Array(3), kv_heads=checks.Int(1), labels=checks.Items(checks.Text()))
def patterns_figure(weights, *, kv_heads, labels, axes=None):
    """One heatmap per query head (``weights`` (H, T, T) on a fixed 0-1 scale), titled with the key/value head it
    reads (query head h reads key/value head h // (H / kv_heads)); ``labels`` the T characters."""
    w = np.asarray(weights, dtype=float)
    H = w.shape[0]
    if axes is None:
        axes = plt.subplots(1, H, figsize=(3.0 * H + 0.6, 3.2), layout="constrained", squeeze=False)[1][0]
        describe(axes[0])
    group = H // kv_heads
    ticks = list(range(0, len(labels), max(1, len(labels) // 8)))
    for h, ax in enumerate(axes):
        image = ax.imshow(w[h], vmin=0, vmax=1, cmap=plotting.WEIGHT_CMAP, interpolation="nearest")
        ax.set_title(_("query head {h} · kv head {g}").format(h=h + 1, g=h // group + 1), fontsize=9)
        ax.set_xticks(ticks, [char_label(labels[t]) for t in ticks], fontsize=7)
        ax.set_yticks(ticks, [char_label(labels[t]) for t in ticks], fontsize=7)
        ax.set_xlabel(_("key (character)"), fontsize=8)
    axes[0].set_ylabel(_("query (character)"), fontsize=8)
    axes[0].figure.colorbar(image, ax=list(axes), shrink=0.8, label=_("weight"))
    return axes


@checks.arguments(induction=checks.Array(2), copying=checks.Dict())
def induction_figure(induction, copying, axes=None):
    """Left: every head's induction score (layers x heads). Right: the copy's accuracy ({label: accuracy})."""
    if axes is None:
        axes = plt.subplots(1, 2, figsize=(11, 3.2), layout="constrained", gridspec_kw={"width_ratios": [1.6, 1]})[1]
        describe(axes[0])
    left, right = axes
    ind = np.asarray(induction, dtype=float)
    layers, heads = ind.shape
    x = np.arange(layers * heads)
    left.bar(x, ind.ravel(), color=[SERIES_COLORS[layer % len(SERIES_COLORS)] for layer in range(layers) for _h in range(heads)])
    left.set_xticks(x, [_("L{l} H{h}").format(l=layer + 1, h=h + 1) for layer in range(layers) for h in range(heads)],
                    fontsize=7)
    left.set(ylim=(0, 1.02), ylabel=_("induction score"), title=_("Induction score of every head"))
    # every bar here may be near zero: a dotted line at what notebook 11's induction heads scored gives the scale
    left.axhline(0.85, color="0.35", linestyle=":", linewidth=1)
    left.text(x[-1] + 0.4, 0.83, _("notebook 11's induction heads: 0.85 and more"), ha="right", va="top", fontsize=7,
              color="0.25")
    names = list(copying)
    bars = right.bar(range(len(names)), [copying[n] for n in names], color=[SERIES_COLORS[2], SERIES_COLORS[3], "0.75"][:len(names)])
    if len(bars) > 1:
        bars[1].set_hatch("//")          # without the strongest heads: a pattern too, not vermillion against green alone
    for bar, n in zip(bars, names):
        right.text(bar.get_x() + bar.get_width() / 2, copying[n] + 0.02, f"{copying[n]:.2f}", ha="center", fontsize=8)
    # a long label on two lines, so that neighbours do not overlap (textwrap breaks at spaces: a Chinese label,
    # short, stays whole)
    right.set_xticks(range(len(names)), ["\n".join(textwrap.wrap(n, 18)) for n in names], fontsize=8)
    right.set(ylim=(0, 1.1), ylabel=_("letters of the second copy right"), title=_("Copying the made-up word"))
    return axes


@checks.arguments(ax=checks.Instance(Axes, "a matplotlib Axes"))
def thumbnail(ax):
    """The index's small picture: the next character's distribution after the prompt "The ", before the filters
    (grey) and after top-k with k = 5 (orange: five survive, renormalised), over the 8 most probable."""
    from .generation import next_logits
    from .shipped import pretrained
    model = pretrained()
    with torch.no_grad():
        z = next_logits(model, corpus.encode("The "), None)
    stages = filter_stages(z, 1.0, 5, None)
    order = np.argsort(-stages[1], kind="stable")[:8]
    x = np.arange(len(order))
    ax.bar(x - 0.2, stages[0][order], width=0.4, color="0.75")
    ax.bar(x + 0.2, stages[3][order], width=0.4, color=SERIES_COLORS[1])
    ax.set_xticks([])
    ax.set_yticks([])
