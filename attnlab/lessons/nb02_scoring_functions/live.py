"""Notebook 02's Play panel: scoring function, d_k, temperature T and number of keys n over random N(0, 1)
vectors. Starting values are checked by ``play``, once; a control's value goes to the update unchecked.

``play`` returns a Panel drawing a ``ScoringPlay``; state lives in that object, never on matplotlib objects.
"""
import math

import ipywidgets as widgets
import torch

from ...core import checks
from ...core.masking import stable_softmax
from ...i18n import gettext as _
from ...ui.panels import Panel, new_figure
from ...ui.plotting import SERIES_COLORS, heatmap, heatmap_state, update_heatmap
from .stats import (
    METHODS,
    centre_rows_unchecked,
    histogram_density_unchecked,
    key_choice_unchecked,
    random_queries_keys,
    row_entropy_unchecked,
    scores_unchecked,
    seeded_additive,
)

__all__ = ["D_KS", "PLAY_LIMITS", "PLAY_METHODS", "ScoringPlay", "controls", "histogram_edges", "histogram_limit",
           "play"]


D_KS = [2 ** i for i in range(12)]                                   # 1 … 2048: the Play's d_k slider
PLAY_METHODS = ["dot", "scaled_dot", "over_d", "over_cbrt_d", "constant", "long_sequence",
                "normalised", "cosine", "gaussian", "additive"]
#: The histogram's x axis, ±limit: plain q·k spreads by √d_k, so the axis is ±160 from the default d_k = 256 up
#: (the grey histogram widens on one axis, 256 to 2048) and zooms in to ±40 below (at most 0.1% of plain q·k
#: outside, at any d_k and n). Crossing 128 | 256 redraws the whole figure; other moves only the moving artists.
#: What still falls outside (the blue histogram at small T) is counted in the text under the figure.
PLAY_LIMITS = {d_k: 40 if d_k <= 128 else 160 for d_k in D_KS}


def histogram_limit(d_k):
    """The histogram's x axis half-width at this d_k (PLAY_LIMITS)."""
    return PLAY_LIMITS[d_k]


def histogram_edges(d_k):
    """The histogram's 160 bins across ±histogram_limit(d_k) (0.5 wide on ±40, 2 on ±160)."""
    lim = histogram_limit(d_k)
    return torch.linspace(-lim, lim, 161, dtype=torch.float64)


def _row_var(s):
    """Variance of the scores within each row (about its own mean), averaged over rows."""
    return (centre_rows_unchecked(s).pow(2).sum(-1) / max(s.shape[-1] - 1, 1)).mean().item()


class ScoringPlay:
    """The Play figure: scoring function, d_k, temperature T and number of keys n over random N(0, 1) vectors.

    Left: histogram of what the softmax sees, (score − row mean) / T, against plain q·k, on an x axis that
    zooms in below d_k = 256 (PLAY_LIMITS; the text counts what falls outside); middle: the
    weights of five queries; right: entropy / log n against d_k; one legend under the three. The text
    gives the variance, entropy, the first query's weights, and how many of the 512 queries pick each key (the Gaussian prefers the
    shortest key). ``update(method, d_k, temperature, n)`` redraws in place and returns the text; ``.moving``.
    """

    def __init__(self, *, d_k=256, n=8, num_queries=512, seed=0):
        self.num_queries, self.seed = num_queries, seed
        self._samples, self._curves = {}, {}
        fig, (self.ax_hist, self.ax_w, self.ax_h) = new_figure(1, 3, figsize=(12, 3.6))
        self.figure = fig
        edges, lim = histogram_edges(d_k), histogram_limit(d_k)
        zero = torch.zeros(len(edges) - 1)
        self.grey_hist = self.ax_hist.stairs(zero, edges, color="0.8", fill=True, label=_(METHODS["dot"]))
        self.blue_hist = self.ax_hist.stairs(zero, edges, color=SERIES_COLORS[0], linewidth=1.8, label=_("chosen function"))
        self.ax_hist.set(xlim=(-lim, lim), ylim=(0, 0.6), xlabel=_("(score − row mean) / T"), ylabel=_("density"),
                         title=_("what the softmax sees"))
        # No numbers in the cells: the text under the figure gives q1's weights.
        heatmap(torch.zeros(5, n), ax=self.ax_w, y_labels=[f"q{i + 1}" for i in range(5)], title=_("weights of 5 queries"),
                annotate=False)
        log_d = [math.log2(d) for d in D_KS]                                    # a log2 axis: 0 … 11
        self.grey_curve, = self.ax_h.plot(log_d, [0.0] * len(D_KS), "--", color="0.6", label="q·k / √d_k")
        self.blue_curve, = self.ax_h.plot(log_d, [0.0] * len(D_KS), "-", color=SERIES_COLORS[0], label=_("chosen function"))
        self.marker, = self.ax_h.plot([math.log2(d_k)], [0.0], "o", color=SERIES_COLORS[3], markersize=8)
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
        self.moving = [self.grey_hist, self.blue_hist, heatmap_state(self.ax_w).image, self.grey_curve,
                       self.blue_curve, self.marker]

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
                w = stable_softmax(scores_unchecked(q[:64], k[:n], method, additive=module).detach(), 1.0 / temperature)
                curve.append(row_entropy_unchecked(w).mean().item() / math.log(n))
            self._curves[key] = curve
        return self._curves[key]

    def update(self, method, d_k, temperature, n):
        """Redraw for these values; returns the text under the figure."""
        (q, k), module = self.sample(d_k)
        s = scores_unchecked(q, k[:n], method, additive=module).detach()                 # (512, n)
        w = stable_softmax(s, 1.0 / temperature)                               # (512, n), T unchecked
        plain = scores_unchecked(q, k[:n], "dot")                                      # (512, n): q·k, no scaling
        edges, lim = histogram_edges(d_k), histogram_limit(d_k)
        if self.ax_hist.get_xlim() != (-lim, lim):                     # a step of the axis: a full draw
            self.ax_hist.set_xlim(-lim, lim)
        grey, blue = centre_rows_unchecked(plain), centre_rows_unchecked(s) / temperature
        self.grey_hist.set_data(histogram_density_unchecked(grey, edges), edges)
        self.blue_hist.set_data(histogram_density_unchecked(blue, edges), edges)
        outside = [100 * ((x < -lim) | (x >= lim)).double().mean().item() for x in (grey, blue)]
        update_heatmap(self.ax_w, w[:5], x_labels=[f"k{j + 1}" for j in range(n)])
        curve = self.entropy_curve(method, n, temperature)
        self.blue_curve.set_ydata(curve)
        self.grey_curve.set_ydata(self.entropy_curve("scaled_dot", n, temperature))
        self.marker.set_data([math.log2(d_k)], [curve[D_KS.index(d_k)]])
        entropy = row_entropy_unchecked(w).mean().item()
        counts = key_choice_unchecked(q, k[:n], method, additive=module)
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


def controls(*, method="dot", d_k=256, temperature=1.0, n=8):
    """The Play's controls {name: widget}: scoring function, d_k, T and n, with these starting values."""
    return {
        "method": widgets.Dropdown(options=[(_(METHODS[m]), m) for m in PLAY_METHODS], value=method,
                                   description=_("scoring")),
        "d_k": widgets.SelectionSlider(options=D_KS, value=d_k, description="d_k", continuous_update=False),
        "temperature": widgets.FloatLogSlider(value=temperature, base=10, min=-2, max=2, step=0.1,
                                              description="T", continuous_update=False),
        "n": widgets.IntSlider(value=n, min=2, max=32, description=_("n (keys)"), continuous_update=False),
    }


@checks.arguments(method=checks.Choice(PLAY_METHODS), d_k=checks.Choice(D_KS),
                   temperature=checks.Real(low=0.01, high=100, why="the T slider's range"),
                   n=checks.Int(2, 32, why="the n slider's range"), num_queries=checks.Int(5, 100_000),
                   seed=checks.Int(0))
def play(*, method="dot", d_k=256, temperature=1.0, n=8, num_queries=512, seed=0) -> Panel:
    """The Play panel of notebook 02 (drawing a ``ScoringPlay``) with these starting values (checked here, once);
    display it as the cell's last value."""
    view = ScoringPlay(d_k=d_k, n=n, num_queries=num_queries, seed=seed)
    return Panel(view.figure, controls(method=method, d_k=d_k, temperature=temperature, n=n), view.update,
                 moving=view.moving, name="02-scoring-functions")
