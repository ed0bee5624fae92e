"""Notebook 02's figures: which key the queries pick, the Play panel, and the index thumbnail.

State lives in the objects returned here (``ScoringPlay``), never on matplotlib objects.
"""
import math

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch

from ...core import checks
from ...ui import panels
from ...i18n import gettext as _
from ...core.masking import masked_softmax
from ...ui.plotting import heatmap, heatmap_state, to_numpy, update_heatmap
from .stats import (METHODS, centre_rows, histogram_density, key_choice, random_queries_keys, row_entropy, scores,
                    seeded_additive)

__all__ = [
    "key_choice_plot", "LABEL_AT", "vectors_and_weights", "D_KS", "PLAY_METHODS", "PLAY_LIMITS", "play_limit",
    "play_edges", "ScoringPlay", "play", "thumbnail"
]

_AX = checks.Axes()


@checks.arguments(keys=checks.Tensor(2), picks=checks.Dict(0), ax=checks.Optional(_AX))
def key_choice_plot(keys, picks, *, ax=None):
    """Bars: how many queries pick each key, one group of bars per method; picks = {method: counts (Tk,)}.

    Each key's label gives its length ‖k‖; the shortest key's label is starred. Returns the Axes.
    """
    if not picks:
        raise ValueError("picks: expected at least one {method: counts} entry, got none")
    lengths = keys.norm(dim=-1)                                                  # (Tk,)
    n = keys.shape[0]
    for name, counts in picks.items():
        if tuple(counts.shape) != (n,):
            raise ValueError(f"picks: expected counts of shape ({n},) for {n} keys, got {tuple(counts.shape)} "
                             f"for {name!r}")
    if ax is None:
        ax = plt.subplots(figsize=(7.5, 3), layout="constrained")[1]
    width = 0.8 / len(picks)
    shortest = int(lengths.argmin())
    for i, (name, counts) in enumerate(picks.items()):
        xs = [j + (i - (len(picks) - 1) / 2) * width for j in range(n)]
        ax.bar(xs, to_numpy(counts), width, label=_(METHODS[name]) if name in METHODS else name, color=f"C{i}")
    total = int(next(iter(picks.values())).sum())
    ax.axhline(total / n, color="0.5", linestyle=":", label=_("{total}/n: every key equally often").format(total=total))
    ax.set_xticks(range(n), [f"k{j + 1}{'*' if j == shortest else ''}\n{lengths[j].item():.1f}" for j in range(n)])
    ax.set(xlabel=_("key (its length ‖k‖ below; * = the shortest)"), ylabel=_("queries that pick it"),
           title=_("which key gets each query's largest weight"))
    ax.legend(fontsize=8)
    return ax


#: Where section 1's names are written (q1 sits on the tip of k1, so the names are placed by hand).
LABEL_AT = {"k1": (0.75, -0.45), "k2": (2.9, 0.15), "k3": (-0.35, 1.0), "k4": (-1.1, 0.15), "k5": (1.0, 0.35),
            "q1": (1.15, 0.15), "q2": (0.15, 0.9), "q3": (1.95, 2.35)}


@checks.arguments(queries=checks.Tensor(2), keys=checks.Tensor(2), weights=checks.Dict(0),
                   key_names=checks.Items(checks.Text()), query_names=checks.Items(checks.Text()),
                   label_at=checks.Optional(checks.Dict(0)))
def vectors_and_weights(queries, keys, weights, key_names, query_names, *, label_at=None):
    """Section 1's figure: 2-D keys (arrows) and queries (dots), then one heatmap per scoring function.

    weights: {title: (Tq, Tk) weights}, at most five. label_at: {short name: (x, y)} where each name is
    written (default LABEL_AT; a name missing there is written at its vector's tip). Returns the Figure.
    """
    if queries.shape[-1] != 2 or keys.shape[-1] != 2:
        raise ValueError(f"queries, keys: expected 2-D vectors to draw, got sizes {queries.shape[-1]} and {keys.shape[-1]}")
    if not 1 <= len(weights) <= 5:
        raise ValueError(f"weights: expected 1 to 5 weight matrices, got {len(weights)}")
    label_at = LABEL_AT if label_at is None else label_at
    fig, axes = plt.subplots(2, 3, figsize=(11, 6), layout="constrained")
    ax = axes[0, 0]
    for (x, y), name in zip(keys.tolist(), key_names):
        ax.annotate("", xy=(x, y), xytext=(0, 0), arrowprops=dict(arrowstyle="->", color="C0"))
        ax.text(*label_at.get(name, (x, y)), name, color="C0")
    for (x, y), name in zip(queries.tolist(), query_names):
        short = name.split(" ")[0]
        ax.plot(x, y, "o", color="C3")
        ax.text(*label_at.get(short, (x, y)), short, color="C3")
    ax.set(xlim=(-1.5, 3.5), ylim=(-0.6, 2.9), aspect="equal", xlabel=_("dimension 1"), ylabel=_("dimension 2"),
           title=_("keys (arrows) and queries (dots)"))
    maps = list(axes.ravel()[1:])
    for a, (title, w) in zip(maps, weights.items()):
        heatmap(w, x_labels=key_names, y_labels=query_names, ax=a, title=title, colorbar=False)
    for a in maps[len(weights):]:
        a.set_visible(False)
    fig.colorbar(heatmap_state(maps[0]).image, ax=axes[:, 1:], shrink=0.7, label=_("attention weight (0–1)"))
    return fig


D_KS = [2 ** i for i in range(12)]                                   # 1 … 2048: the Play's d_k slider
PLAY_METHODS = ["dot", "scaled_dot", "over_d", "over_cbrt_d", "constant", "long_sequence",
                "normalised", "cosine", "gaussian", "additive"]
#: The histogram's x axis, ±limit: plain q·k spreads by √d_k, so the axis is ±160 from the default d_k = 256 up
#: (the grey histogram widens on one axis, 256 to 2048) and zooms in to ±40 below (at most 0.1% of plain q·k
#: outside, at any d_k and n). Crossing 128 | 256 redraws the whole figure; other moves only the moving artists.
#: What still falls outside (the blue histogram at small T) is counted in the text under the figure.
PLAY_LIMITS = {d_k: 40 if d_k <= 128 else 160 for d_k in D_KS}


def play_limit(d_k):
    """The histogram's x axis half-width at this d_k (PLAY_LIMITS)."""
    checks.choice(d_k, "d_k", D_KS, expected=f"one of {D_KS}")
    return PLAY_LIMITS[d_k]


def play_edges(d_k):
    """The histogram's 160 bins across ±play_limit(d_k) (0.5 wide on ±40, 2 on ±160)."""
    lim = play_limit(d_k)
    return torch.linspace(-lim, lim, 161, dtype=torch.float64)


def _row_var(s):
    """Variance of the scores within each row (about its own mean), averaged over rows."""
    return (centre_rows(s).pow(2).sum(-1) / max(s.shape[-1] - 1, 1)).mean().item()


class ScoringPlay(panels.ShowsPanel):
    """The Play panel: scoring function, d_k, temperature T and number of keys n over random N(0, 1) vectors.

    Left: histogram of what the softmax sees, (score − row mean) / T, against plain q·k, on an x axis that
    zooms in below d_k = 256 (PLAY_LIMITS; the text counts what falls outside); middle: the
    weights of five queries; right: entropy / log n against d_k; one legend under the three. The text
    gives the variance, entropy, the first query's weights, and how many of the 512 queries pick each key (the Gaussian prefers the
    shortest key). ``.controls``, ``.panel``; displayable.
    """

    @checks.arguments(temperature=checks.Real(low=0.01, high=100, why="the T slider's range"),
                       n=checks.Int(2, 32, why="the n slider's range"), num_queries=checks.Int(5, 100_000),
                       seed=checks.Int(0))
    def __init__(self, *, method="dot", d_k=256, temperature=1.0, n=8, num_queries=512, seed=0):
        checks.choice(method, "method", PLAY_METHODS, expected=f"one of {PLAY_METHODS}")
        checks.choice(d_k, "d_k", D_KS, expected=f"one of {D_KS}")
        self.num_queries, self.seed = num_queries, seed
        self._samples, self._curves = {}, {}
        self.controls = {
            "method": widgets.Dropdown(options=[(_(METHODS[m]), m) for m in PLAY_METHODS], value=method,
                                       description=_("scoring")),
            "d_k": widgets.SelectionSlider(options=D_KS, value=d_k, description="d_k", continuous_update=False),
            "temperature": widgets.FloatLogSlider(value=temperature, base=10, min=-2, max=2, step=0.1,
                                                  description="T", continuous_update=False),
            "n": widgets.IntSlider(value=n, min=2, max=32, description=_("n (keys)"), continuous_update=False),
        }
        fig, (self.ax_hist, self.ax_w, self.ax_h) = panels.new_figure(1, 3, figsize=(12, 3.6))
        edges, lim = play_edges(d_k), play_limit(d_k)
        zero = torch.zeros(len(edges) - 1)
        self.grey_hist = self.ax_hist.stairs(zero, edges, color="0.8", fill=True, label=_(METHODS["dot"]))
        self.blue_hist = self.ax_hist.stairs(zero, edges, color="C0", linewidth=1.8, label=_("chosen function"))
        self.ax_hist.set(xlim=(-lim, lim), ylim=(0, 0.6), xlabel=_("(score − row mean) / T"), ylabel=_("density"),
                         title=_("what the softmax sees"))
        # No numbers in the cells: the text under the figure gives q1's weights.
        heatmap(torch.zeros(5, n), ax=self.ax_w, y_labels=[f"q{i + 1}" for i in range(5)], title=_("weights of 5 queries"),
                annotate=False)
        log_d = [math.log2(d) for d in D_KS]                                    # a log2 axis: 0 … 11
        self.grey_curve, = self.ax_h.plot(log_d, [0.0] * len(D_KS), "--", color="0.6", label="q·k / √d_k")
        self.blue_curve, = self.ax_h.plot(log_d, [0.0] * len(D_KS), "-", color="C0", label=_("chosen function"))
        self.marker, = self.ax_h.plot([math.log2(d_k)], [0.0], "o", color="C3", markersize=8)
        self.ax_h.set_xticks(log_d[::2], labels=D_KS[::2])
        self.ax_h.set(xlim=(-0.3, 11.3), ylim=(0, 1.05), xlabel="d_k", ylabel=_("entropy / log n"),
                      title=_("1 = uniform, 0 = one-hot"))
        # One legend for both line plots, under the figure: outside the axes, nothing that moves covers
        # it, so a move does not redraw it (a legend inside an axes is redrawn on every move, ~5 ms each).
        self.legend = fig.legend(
            [self.blue_curve, self.grey_hist, self.grey_curve, self.marker],
            [_("chosen function"), _("q·k, no scaling (left)"), _("q·k / √d_k (right)"), _("current d_k (right)")],
            loc="outside lower center", ncol=4, fontsize=9, frameon=False)
        # What a move changes: the histograms, the weights, the curves and the marker. n changes the
        # number of key columns (ticks, limits), so a move of n draws the whole figure.
        moving = [self.grey_hist, self.blue_hist, heatmap_state(self.ax_w).image, self.grey_curve, self.blue_curve,
                  self.marker]
        self.panel = panels.Panel(fig, self.controls, self.update, moving=moving, name="02-scoring-functions")

    def sample(self, d_k):
        """512 queries and 32 keys of size d_k with N(0, 1) entries (seeded, cached), and an additive module."""
        if d_k not in self._samples:
            g = torch.Generator().manual_seed(self.seed)
            self._samples[d_k] = (random_queries_keys(self.num_queries, 32, d_k, generator=g),
                                  seeded_additive(d_k, d_k, num_hiddens=16, seed=self.seed))
        return self._samples[d_k]

    def entropy_curve(self, method, n, temperature):
        """Mean entropy / log n at every d_k of D_KS, on 64 of the queries (cached)."""
        key = (method, n, temperature)
        if key not in self._curves:
            curve = []
            for d_k in D_KS:
                (q, k), module = self.sample(d_k)
                w = masked_softmax(scores(q[:64], k[:n], method, additive=module).detach(), temperature=temperature)
                curve.append(row_entropy(w).mean().item() / math.log(n))
            self._curves[key] = curve
        return self._curves[key]

    def update(self, method, d_k, temperature, n):
        """Redraw for these values; returns the text under the figure."""
        (q, k), module = self.sample(d_k)
        s = scores(q, k[:n], method, additive=module).detach()                 # (512, n)
        w = masked_softmax(s, temperature=temperature)                         # (512, n)
        plain = scores(q, k[:n], "dot")                                        # (512, n): q·k, no scaling
        edges, lim = play_edges(d_k), play_limit(d_k)
        if self.ax_hist.get_xlim() != (-lim, lim):                     # a step of the axis: a full draw
            self.ax_hist.set_xlim(-lim, lim)
        grey, blue = centre_rows(plain), centre_rows(s) / temperature
        self.grey_hist.set_data(histogram_density(grey, edges), edges)
        self.blue_hist.set_data(histogram_density(blue, edges), edges)
        outside = [100 * ((x < -lim) | (x >= lim)).double().mean().item() for x in (grey, blue)]
        update_heatmap(self.ax_w, w[:5], x_labels=[f"k{j + 1}" for j in range(n)])
        curve = self.entropy_curve(method, n, temperature)
        self.blue_curve.set_ydata(curve)
        self.grey_curve.set_ydata(self.entropy_curve("scaled_dot", n, temperature))
        self.marker.set_data([math.log2(d_k)], [curve[D_KS.index(d_k)]])
        entropy = row_entropy(w).mean().item()
        counts = key_choice(q, k[:n], method, additive=module)
        shortest = int(k[:n].norm(dim=-1).argmin())
        return _("{method}, d_k = {d_k}, n = {n}, T = {T:.3g}\n"
                 "variance of the scores {var:.4g}, within each row (what the softmax sees) {row_var:.4g}"
                 "   (q·k alone: {plain_var:.4g} and {plain_row_var:.4g}; closed form d_k = {d_k})\n"
                 "entropy {entropy:.2f} of at most log n = {log_n:.2f}   largest weight per row, mean {largest:.2f}\n"
                 "outside the x axis (±{lim}): q·k {out_plain:.1f}%, chosen function {out_chosen:.1f}% of the scores\n"
                 "q1's weights: {weights}\n"
                 "queries (of {queries}) whose largest weight is on each key: {counts}\n"
                 "the shortest key, k{shortest} (‖k‖ = {length:.1f}), is picked by {share:.0f}% of the queries "
                 "(1/n = {uniform:.1f}%)").format(
            method=_(METHODS[method]), d_k=d_k, n=n, T=temperature, var=s.var().item(), row_var=_row_var(s),
            plain_var=plain.var().item(), plain_row_var=_row_var(plain), entropy=entropy, log_n=math.log(n),
            largest=w.max(-1).values.mean().item(), lim=lim, out_plain=outside[0], out_chosen=outside[1],
            weights=" ".join(f"{x:.2f}" for x in w[0].tolist()), queries=len(q),
            counts=" ".join(f"k{j + 1}:{c}" for j, c in enumerate(counts.tolist())), shortest=shortest + 1,
            length=k[shortest].norm().item(), share=100 * counts[shortest].item() / len(q), uniform=100 / n)

    @property
    def widget(self):
        return self.panel.widget


def play(*, method="dot", d_k=256, temperature=1.0, n=8, num_queries=512, seed=0):
    """The Play panel of notebook 02 (see ``ScoringPlay``) with these starting values; display it as the
    cell's last value."""
    return ScoringPlay(method=method, d_k=d_k, temperature=temperature, n=n, num_queries=num_queries, seed=seed)


@checks.arguments(ax=_AX)
def thumbnail(ax):
    """The index's small picture of this notebook, drawn into ``ax``: q·k spreads out as d_k grows."""
    g = torch.Generator().manual_seed(0)
    for d_k, colour in ((4, "C0"), (64, "C3")):
        q, k = torch.randn(2, 4000, d_k, generator=g, dtype=torch.float64)
        ax.hist(to_numpy((q * k).sum(-1)), bins=60, range=(-30, 30), histtype="step", color=colour,
                label=_("d_k = {d_k}: std {std:.0f}").format(d_k=d_k, std=math.sqrt(d_k)))
    ax.set_yticks([])
    ax.set_xlabel(_("score q·k (no scaling)"), fontsize=6, labelpad=1)
    ax.set_ylabel(_("how often"), fontsize=6, labelpad=1)
    ax.legend(fontsize=5.5, loc="upper right", handlelength=1.2)
