"""Figures of notebook 13, each from data (a model's patterns, results.json's numbers), drawn into new axes or the
given ones and returning them; nothing is drawn on import. Each ``draw_*`` fills given axes (the live panels call
them on every move) and returns a line of text saying what it shows.

    receptive_figure   who reaches the last position after each of L sliding-window layers
    ring_figure        a rolling cache's slots and the positions they hold
    bytes_figure       the cache's bytes against length: notebook 12's full cache against a rolling window
    sink_figure        the sink model's heads on one Bigram-Backcopy sequence (the first column bright)
    sink_training_figure   the first-token weight and the loss while the sink model trained
    streaming_figure   StreamingLLM's experiment: the extra loss past the window, first token evicted or kept
    latent_figure      cache bytes per position against held-out bits: MHA, GQA, MQA and latent attention
    spectrum_figure    the singular values of one layer's stacked content-key and value projections, cut at d_c
    thumbnail          the index's picture
"""
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap

from ...core import checks
from ...i18n import gettext as _
from ...ui.plotting import SERIES_COLORS, WEIGHT_CMAP

__all__ = ["bytes_figure", "draw_latent", "draw_receptive", "draw_sink_patterns", "draw_spectrum", "draw_streaming",
           "latent_figure", "receptive_figure", "ring_figure", "sink_figure", "sink_training_figure",
           "spectrum_figure", "streaming_figure", "thumbnail"]

_AX = checks.Optional(checks.Instance(Axes, "a matplotlib Axes"))


def _new(ax, size):
    return plt.subplots(figsize=size, layout="constrained")[1] if ax is None else ax


# ------------------------------------------------------------------------------------------ the receptive field

def draw_receptive(ax, field, window):
    """Draw ``field`` (L, T, T) bool as one picture: cell (t, j) coloured by the first layer after which j reaches
    t (blank: not yet); the last row is the last position. Returns the text."""
    L, T, _T = field.shape
    first = np.full((T, T), np.nan)
    for layer in range(L - 1, -1, -1):
        first[np.asarray(field[layer])] = layer + 1
    ax.clear()
    colours = ListedColormap(plt.get_cmap("viridis_r")(np.linspace(0.05, 0.95, max(L, 2)))[:L])
    ax.imshow(first, cmap=colours, vmin=0.5, vmax=L + 0.5, interpolation="nearest")
    ax.set(xlabel=_("key position j (whose information)"), ylabel=_("query position t (who hears it)"),
           title=_("window w = {w}, {L} layers: the layer after which j reaches t").format(w=window, L=L))
    ax.title.set_fontsize(10)
    t = T - 1
    reach = [int(np.asarray(field[layer][t]).nonzero()[0].min()) for layer in range(L)]
    ax.add_patch(plt.Rectangle((-0.5, t - 0.5), T, 1, fill=False, edgecolor="k", linewidth=1.5))   # the last row
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours(i)) for i in range(L)]
    ax.legend(handles, [_("layer {l}").format(l=i + 1) for i in range(L)], fontsize=7, loc="upper right",
              title=_("first reached after"), title_fontsize=7)
    return _("position {t} hears from position {j} on after {L} layers: L·(w − 1) = {L}·{w1} = {span} positions "
             "back (one layer: {w1})").format(t=t, j=reach[-1], L=L, w1=window - 1, span=t - reach[-1])


@checks.arguments(field=checks.Tensor(dims=3, floating=False), window=checks.Int(1), ax=_AX)
def receptive_figure(field, window, ax=None):
    """``receptive_field(window, L, T)`` drawn (see draw_receptive); returns the Axes."""
    ax = _new(ax, (6.4, 5.2))
    draw_receptive(ax, field, window)
    return ax


@checks.arguments(window=checks.Int(1, 32), sinks=checks.Int(0), appended=checks.Int(0), ax=_AX)
def ring_figure(window, sinks, appended, ax=None):
    """A rolling cache of ``window`` slots (the first ``sinks`` kept for good, hatched) after ``appended``
    positions: each slot's box holds the position in it; the newest is outlined. Returns the Axes."""
    from .window import ring_slot
    ax = _new(ax, (0.7 * window + 1.2, 1.6))
    held = {}
    for n in range(appended):
        held[ring_slot(n, window, sinks)] = n
    newest = ring_slot(appended - 1, window, sinks) if appended else None
    for s in range(window):
        ax.add_patch(plt.Rectangle((s, 0), 0.92, 0.92, facecolor="0.92" if s >= sinks else "#cfe3f3",
                                   hatch="//" if s < sinks else None, edgecolor="k" if s == newest else "0.5",
                                   linewidth=2.5 if s == newest else 0.8))
        ax.text(s + 0.46, 0.46, str(held[s]) if s in held else "·", ha="center", va="center", fontsize=11)
        ax.text(s + 0.46, -0.25, str(s), ha="center", va="center", fontsize=7, color="0.35")
    ax.set(xlim=(-0.1, window + 0.1), ylim=(-0.5, 1.0), aspect="equal")
    ax.set_axis_off()
    ax.set_title(_("{w} slots, {k} of them for sinks, after {n} positions\n(in a slot: the position it holds; "
                   "under it: the slot's number)").format(w=window, k=sinks, n=appended), fontsize=9)
    return ax


@checks.arguments(per_token=checks.Int(1), window=checks.Int(1), length=checks.Int(1), ax=_AX)
def bytes_figure(per_token, window, length, ax=None, context=None):
    """The cache's bytes (KiB) against the number of positions so far: the full cache grows by ``per_token`` bytes
    a position, the rolling cache stops at ``window`` positions. ``context``: a line at the model's context."""
    ax = _new(ax, (6.4, 3.2))
    n = np.arange(length + 1)
    ax.plot(n, n * per_token / 1024, color=SERIES_COLORS[3], linestyle="--", linewidth=2,
            label=_("full cache (notebook 12): grows with every position"))
    ax.plot(n, np.minimum(n, window) * per_token / 1024, color=SERIES_COLORS[0], linewidth=2.5,
            label=_("rolling cache, w = {w}: flat after w positions").format(w=window))
    if context is not None:
        ax.axvline(context, color="0.5", linewidth=0.8)
        ax.text(context, ax.get_ylim()[1] * 0.95, " " + _("the model's context"), fontsize=8, va="top")
    ax.set(xlabel=_("positions so far"), ylabel=_("KV cache (KiB, float32)"), xlim=(0, length), ylim=(0, None),
           title=_("Memory of the cache"))
    ax.legend(fontsize=8, loc="upper left")
    return ax


# ------------------------------------------------------------------------------------------ sinks

def draw_sink_patterns(axes, weights, trigger, mask=None):
    """One heatmap per head (``weights`` (H, T, T), fixed 0-1 scale) into ``axes``; rows of trigger tokens marked
    ▸ at the left; ``mask`` (T, T) bool: what the window lets each query see, the rest greyed. Returns the images."""
    H, T, _T = weights.shape
    images = []
    rows = np.nonzero(np.asarray(trigger))[0]
    for h, ax in enumerate(axes):
        ax.clear()
        shown = np.asarray(weights[h], dtype=float).copy()
        images.append(ax.imshow(shown, vmin=0, vmax=1, cmap=WEIGHT_CMAP, interpolation="nearest"))
        if mask is not None:
            hidden = np.ma.masked_where(np.asarray(mask), np.ones((T, T)))
            ax.imshow(hidden, cmap=ListedColormap(["#d9d9d9"]), vmin=0, vmax=1, interpolation="nearest")
        if len(rows):
            ax.plot(np.full(len(rows), -1.2), rows, ">", color=SERIES_COLORS[3], markersize=3, clip_on=False)
        ax.set_xlim(-0.5, T - 0.5)
        ax.set_title(_("head {h}").format(h=h + 1), fontsize=9)
        ax.set_xlabel(_("key position (0: BOS)"), fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0].set_ylabel(_("query position (▸ a trigger)"), fontsize=8)
    return images


@checks.arguments(weights=checks.Array(3), trigger=checks.Tensor(dims=1, floating=False))
def sink_figure(weights, trigger, axes=None):
    """The sink model's heads on one sequence (``weights`` (H, T, T), ``trigger`` (T,) True at triggers)."""
    w = np.asarray(weights, dtype=float)
    if axes is None:
        fig, axes = plt.subplots(1, w.shape[0], figsize=(3.6 * w.shape[0] + 0.8, 3.6), layout="constrained",
                                 squeeze=False)
        axes = axes[0]
    images = draw_sink_patterns(axes, w, trigger)
    axes[0].figure.colorbar(images[0], ax=list(axes), shrink=0.8, label=_("weight"))
    return axes


@checks.arguments(every=checks.Int(1), first_weight=checks.Items(checks.Real()), loss_every=checks.Int(1),
                  loss=checks.Items(checks.Real()))
def sink_training_figure(every, first_weight, loss_every, loss, axes=None):
    """Left: the larger head's weight on the first token (ordinary positions) every ``every`` steps. Right: the
    training loss every ``loss_every`` steps."""
    if axes is None:
        axes = plt.subplots(1, 2, figsize=(10, 3.0), layout="constrained")[1]
    left, right = axes
    left.plot([every * (i + 1) for i in range(len(first_weight))], first_weight, color=SERIES_COLORS[0], linewidth=2)
    left.axhline(0.5, color="0.4", linestyle=":")
    left.set(ylim=(0, 1.02), xlabel=_("training step"), ylabel=_("weight on position 0"),
             title=_("Weight on the first token at ordinary positions"))
    right.plot([loss_every * (i + 1) for i in range(len(loss))], loss, color=SERIES_COLORS[1])
    right.set(xlabel=_("training step"), ylabel=_("loss (nats)"), title=_("Training loss"))
    return axes


def draw_streaming(ax, full, evicted, kept, window, best=None):
    """The extra loss over full attention at each position (``full``, ``evicted`` (T,), ``kept`` {k: (T,)}); the
    positions past the window shaded. Returns the text."""
    ax.clear()
    T = len(full)
    t = np.arange(T)
    full, evicted = np.asarray(full, dtype=float), np.asarray(evicted, dtype=float)
    ax.axvspan(window - 0.5, T - 0.5, color="0.93", zorder=0)
    ax.axhline(0, color="0.3", linewidth=0.8)
    ax.plot(t, evicted - full, color=SERIES_COLORS[3], linewidth=2,
            label=_("window of {w}, the first token evicted").format(w=window))
    styles, colours = ["--", ":", "-."], [SERIES_COLORS[0], SERIES_COLORS[2], SERIES_COLORS[4]]
    for i, (k, row) in enumerate(sorted(kept.items())):
        ax.plot(t, np.asarray(row, dtype=float) - full, color=colours[i % 3], linestyle=styles[i % 3],
                linewidth=2, label=_("window of {w}, keeping the first {k}").format(w=window, k=k))
    ax.set(xlabel=_("position (shaded: past the window)"), ylabel=_("extra loss over full attention (nats)"),
           title=_("StreamingLLM's experiment on the sink model"))
    ax.legend(fontsize=8, loc="upper left")
    past = slice(window, None)
    lines = [_("past the window (positions {w}–{last}), mean loss: full attention {f:.3f}, first token evicted {e:.3f} "
               "(+{d:.3f})").format(w=window, last=T - 1, f=full[past].mean(), e=evicted[past].mean(),
                                    d=evicted[past].mean() - full[past].mean())]
    lines += [_("keeping the first {k}: {v:.3f}").format(k=k, v=np.asarray(row, dtype=float)[past].mean())
              for k, row in sorted(kept.items())]
    if best is not None:
        lines.append(_("the best possible (the task's own bigram table): {b:.3f}").format(
            b=np.asarray(best, dtype=float)[past].mean()))
    return "\n".join(lines)


@checks.arguments(full=checks.Array(1), evicted=checks.Array(1), kept=checks.Dict(min_len=0), window=checks.Int(1),
                  ax=_AX)
def streaming_figure(full, evicted, kept, window, ax=None):
    """StreamingLLM's experiment (``window_losses``' rows, or results.json's): the extra loss over full attention at
    each position, the first token evicted or the first k kept. Returns the Axes."""
    ax = _new(ax, (7.6, 3.4))
    draw_streaming(ax, full, evicted, kept, window)
    return ax


# ------------------------------------------------------------------------------------------ latent attention

def draw_latent(ax, course, latent, selected=None, converted=None):
    """Bytes per position (x, log scale) against held-out bits per character (y): ``course`` {label: (bytes, bits)}
    (MHA, GQA, MQA), ``latent`` {d_c: (bytes, bits)} joined by a line, ``selected`` a d_c drawn large;
    ``converted`` {d_c: (bytes, bits)} before fine-tuning, stated in words (far above the chart). Returns the text."""
    ax.clear()
    markers = ["s", "D", "^"]
    for i, (label, (b, bits)) in enumerate(course.items()):
        ax.plot([b], [bits], markers[i % 3], color=SERIES_COLORS[i + 1], markersize=9, label=label)
        ax.annotate(label, (b, bits), textcoords="offset points", xytext=(6, 4), fontsize=8)
    sizes = sorted(latent)
    ax.plot([latent[d][0] for d in sizes], [latent[d][1] for d in sizes], "o-", color=SERIES_COLORS[0], linewidth=2,
            markersize=6, label=_("latent attention (MLA), fine-tuned"))
    for d in sizes:
        ax.annotate(f"d_c={d}", (latent[d][0], latent[d][1]), textcoords="offset points", xytext=(-8, -13), fontsize=7,
                    ha="center")
    if converted:                  # far above the rest (5.7 bits and more): said in words, so the chart keeps its scale
        before = [converted[d][1] for d in sizes]
        ax.text(0.02, 0.96, _("before fine-tuning:\n{lo:.2f} to {hi:.2f} bits per character\n(above this chart)").format(
            lo=min(before), hi=max(before)), transform=ax.transAxes, fontsize=8, va="top")
    points = list(course.values()) + [latent[d] for d in sizes]
    lo, hi = min(p[1] for p in points), max(p[1] for p in points)
    ax.set_ylim(lo - 0.12 * (hi - lo), hi + 0.35 * (hi - lo))
    if selected is not None:
        ax.plot([latent[selected][0]], [latent[selected][1]], "o", markersize=16, markerfacecolor="none",
                color="k", markeredgecolor="k", markeredgewidth=2)
    ax.set_xscale("log", base=2)
    ax.set_xlim(min(p[0] for p in points) / 1.5, max(p[0] for p in points) * 2.5)
    ax.set(xlabel=_("cache bytes per position (all layers, float32; log scale)"),
           ylabel=_("held-out bits per character"), title=_("Memory against quality (lower left is better)"))
    ax.legend(fontsize=8, loc="upper right")
    if selected is None:
        return ""
    b, bits = latent[selected]
    return _("latent size d_c = {d}: {b:,} bytes per position, {bits:.3f} bits per character").format(
        d=selected, b=b, bits=bits)


@checks.arguments(course=checks.Dict(), latent=checks.Dict(), ax=_AX)
def latent_figure(course, latent, *, selected=None, converted=None, ax=None):
    """See draw_latent; returns the Axes."""
    ax = _new(ax, (7.6, 4.2))
    draw_latent(ax, course, latent, selected, converted)
    return ax


def draw_spectrum(ax, singular_values, latent):
    """The singular values of a stacked projection, the first ``latent`` kept (coloured) and the rest dropped
    (grey). Returns the text: the share of the squared sum (the "energy") kept."""
    ax.clear()
    s = np.asarray(singular_values, dtype=float)
    x = np.arange(1, len(s) + 1)
    ax.bar(x[:latent], s[:latent], width=1.0, color=SERIES_COLORS[0], label=_("kept: the first d_c = {d}").format(d=latent))
    ax.bar(x[latent:], s[latent:], width=1.0, color="0.8", label=_("dropped"))
    ax.set(xlabel=_("singular value number"), ylabel=_("singular value"),
           title=_("Layer 1's [W_K (content part); W_V]: what a latent of d_c keeps"))
    ax.title.set_fontsize(9)
    ax.legend(fontsize=8)
    kept = (s[:latent] ** 2).sum() / (s ** 2).sum()
    return _("a latent of {d} numbers keeps {p:.0%} of the squared singular values of layer 1's key and value "
             "projections (the best rank-{d} approximation)").format(d=latent, p=kept)


@checks.arguments(singular_values=checks.Array(1), latent=checks.Int(1), ax=_AX)
def spectrum_figure(singular_values, latent, ax=None):
    """See draw_spectrum; returns the Axes."""
    ax = _new(ax, (6.4, 3.0))
    draw_spectrum(ax, singular_values, latent)
    return ax


@checks.arguments(ax=checks.Instance(Axes, "a matplotlib Axes"))
def thumbnail(ax):
    """The index's small picture: the shipped sink model's first head on one Bigram-Backcopy sequence (the first
    column bright: the sink) with a sliding window's band drawn over it."""
    import torch

    from .shipped import sink_model
    from .sinks import EXAMPLE_SEED, sink_batch
    from .window import band_mask_unchecked, windowed_logits_unchecked
    model = sink_model()
    b = sink_batch(1, seed=EXAMPLE_SEED)
    x = b.tokens[:, :33]
    with torch.no_grad():
        _logits, weights = windowed_logits_unchecked(model, x, 33, 0, need_weights=True)
    ax.imshow(weights[0][0, 1].numpy(), vmin=0, vmax=1, cmap=WEIGHT_CMAP, interpolation="nearest")
    band = band_mask_unchecked(33, 8).numpy()
    ax.contour(band, levels=[0.5], colors=["w"], linewidths=0.8)
    ax.set_xticks([])
    ax.set_yticks([])
    return ax
