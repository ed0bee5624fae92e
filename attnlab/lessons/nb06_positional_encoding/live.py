"""Notebook 06's Play panel: the explorer of P (a chosen position and column pair, that pair against
position and on the unit circle, the similarity of the position to every other).

``play`` checks the starting values once and returns a Panel drawing an ``Explorer``; a slider's value goes to
``Explorer.update`` and on to the unchecked internals of ``encoding`` and ``figures`` without being checked again.
"""
import math

import ipywidgets as widgets
import numpy as np
import torch
from matplotlib import patheffects
from matplotlib.patches import Rectangle

from ...core import checks
from ...core.positional import sinusoidal_encoding
from ...i18n import gettext as _
from ...ui.panels import Panel, new_figure
from ...ui.plotting import SERIES_COLORS
from .encoding import frequencies_unchecked, offset_similarity_unchecked, rotation_matrix_unchecked
from .figures import COLUMN_BOX_COLOUR, COLUMN_BOX_OUTLINE, encoding_image, update_encoding_heatmap_unchecked

__all__ = ["Explorer", "controls", "play"]


class Explorer:
    """The Play figure: P with a chosen row and column pair, that pair against position, the pair on the
    unit circle, and the similarity of the chosen position to every other. ``update(position, pair, width,
    base)`` redraws in place and returns the numbers under the figure; the artists it moves are attributes
    (``row_box``, ``sin_line``, ``trail`` ...) and ``.moving``.

    The titles say what each view shows and do not change; the numbers (D, base, the pair's columns,
    ω_j, λ_j, the similarity's peak D/2) are in the text under the figure. i is the chosen position;
    the axes that run over every position say m (as the similarity's P_i · P_m does). The legends sit outside the
    axes, where nothing that moves covers them, so a move redraws neither a title nor a legend."""

    def __init__(self, n, width):
        self.n = n
        positions = np.arange(n)
        zeros = np.zeros(n)
        fig, ((ax_P, ax_pair), (ax_circle, ax_sim)) = new_figure(2, 2, figsize=(11, 7))
        self.figure, self.ax_P, self.ax_pair, self.ax_circle, self.ax_sim = fig, ax_P, ax_pair, ax_circle, ax_sim
        self.image = encoding_image(sinusoidal_encoding(n, width), ax_P)
        ax_P.set_ylabel(_("position m (row of P)"))                        # every row; i is the boxed one
        ax_P.set_title(_("P: position i (black box), pair j (green box)"))
        self.row_box = ax_P.add_patch(Rectangle((-0.5, 0), 1, 1, fill=False, edgecolor="black", linewidth=2))
        self.col_box = ax_P.add_patch(Rectangle((0, -0.5), 2, n, fill=False, edgecolor=COLUMN_BOX_COLOUR, linewidth=2,
                                                path_effects=[patheffects.withStroke(linewidth=4, foreground=COLUMN_BOX_OUTLINE)]))
        self.sin_line, = ax_pair.plot(positions, zeros, color=SERIES_COLORS[0], label=_("sin column 2j"))
        self.cos_line, = ax_pair.plot(positions, zeros, color=SERIES_COLORS[1], label=_("cos column 2j+1"))
        self.pair_marker = ax_pair.axvline(0, color="black", linewidth=1)
        self.pair_dots, = ax_pair.plot([0, 0], [0, 0], "ko", markersize=5)
        ax_pair.set(xlabel=_("position m"), ylabel=_("P[m, column]"), ylim=(-1.15, 1.15),
                    title=_("pair j (columns 2j, 2j+1) against position"))
        angle = np.linspace(0, 2 * math.pi, 200)
        ax_circle.plot(np.sin(angle), np.cos(angle), color="0.85")
        self.trail = ax_circle.scatter(zeros, zeros, c=positions, cmap="viridis", s=12)
        self.here, = ax_circle.plot([0], [0], "o", color="black", markersize=8, fillstyle="none", markeredgewidth=2)
        ax_circle.set(xlabel=_("sin column 2j"), ylabel=_("cos column 2j+1"), xlim=(-1.2, 1.2), ylim=(-1.2, 1.2),
                      aspect="equal", title=_("pair j on the unit circle: one step turns it by ω_j"))
        self.trail_colorbar = fig.colorbar(self.trail, ax=ax_circle, label=_("position m"))
        self.sim_dots, = ax_sim.plot(positions, zeros, "o", color=SERIES_COLORS[1], markersize=3, label="P_i · P_m")
        self.sim_line, = ax_sim.plot(positions, zeros, color=SERIES_COLORS[0], label="Σ cos((m−i) ω_j)")
        self.sim_marker = ax_sim.axvline(0, color="black", linewidth=1)
        ax_sim.axhline(0, color="0.8", linewidth=0.8)
        ax_sim.set(xlabel=_("position m"), ylabel=_("similarity P_i · P_m to position i"),
                   title=_("similarity of position i to every position m"))
        # Each legend beside the plot it explains, outside the axes: a legend inside an axes with moving
        # artists is redrawn on every move (~5 ms each); out here nothing that moves covers it.
        # The first one makes constrained layout keep a margin on the right; the second is placed in that
        # margin beside the similarity plot (a figure legend anchored to its axes' top right corner).
        self.legends = (fig.legend([self.sin_line, self.cos_line], [_("sin column 2j"), _("cos column 2j+1")],
                                   loc="outside right upper", fontsize=9),
                        fig.legend([self.sim_dots, self.sim_line], ["P_i · P_m", "Σ cos((m−i) ω_j)"],
                                   loc="upper left", bbox_to_anchor=(1.0, 1.0), bbox_transform=ax_sim.transAxes,
                                   fontsize=9))
        self.sim_ylim = None
        # What a move changes: P, the boxes, lines, dots and markers. The width D changes P's shape (its
        # limits and ticks) and the similarity's y range, so a move of D draws the whole figure.
        self.moving = [self.image, self.row_box, self.col_box, self.sin_line, self.cos_line, self.pair_marker,
                       self.pair_dots, self.trail, self.here, self.sim_dots, self.sim_line, self.sim_marker]

    def update(self, position, pair, width, base):
        """Redraw for the control values; returns the numbers shown under the figure."""
        n, j = self.n, min(pair, width // 2 - 1)
        P = sinusoidal_encoding(n, width, base, dtype=torch.float64)                # (n, D)
        omega = frequencies_unchecked(width, base)[j].item()
        lam = 2 * math.pi / omega                                                   # as wavelengths() gives it
        update_encoding_heatmap_unchecked(self.ax_P, P.numpy(), self.image)
        self.row_box.set_bounds(-0.5, position - 0.5, width, 1)
        self.col_box.set_bounds(2 * j - 0.5, -0.5, 2, n)
        s, c = P[:, 2 * j].numpy(), P[:, 2 * j + 1].numpy()
        self.sin_line.set_ydata(s)
        self.cos_line.set_ydata(c)
        self.pair_marker.set_xdata([position, position])
        self.pair_dots.set_data([position, position], [s[position], c[position]])
        self.trail.set_offsets(np.stack([s, c], 1))
        self.here.set_data([s[position]], [c[position]])
        self.sim_dots.set_ydata((P[position] @ P.T).numpy())                         # (n,): P_i · P_m
        offsets = torch.arange(n, dtype=torch.float64) - position                   # (n,): m − i
        self.sim_line.set_ydata(offset_similarity_unchecked(offsets, width, base).numpy())
        self.sim_marker.set_xdata([position, position])
        ylim = (-0.5 * width / 2 - 0.5, width / 2 + 1)
        if ylim != self.sim_ylim:                                   # set only when D changed it
            self.ax_sim.set_ylim(*ylim)
            self.sim_ylim = ylim
        next_one = offset_similarity_unchecked(torch.tensor(1.0, dtype=torch.float64), width, base).item()
        tenth = offset_similarity_unchecked(torch.tensor(10.0, dtype=torch.float64), width, base).item()
        M1 = rotation_matrix_unchecked(1.0, width, base)                             # (D, D)
        rotated = bool((P[:-1] @ M1.T - P[1:]).abs().max() < 1e-12)                  # every row i at once
        return "\n".join([
            _("P: n = {n} positions, D = {D} columns, base = {base:g}").format(n=n, D=width, base=base),
            _("position i = {i}, pair j = {j} (columns {c0}, {c1}): P[i, {c0}] = sin({i}·{omega:.4g}) = {sin:.3f}, "
              "P[i, {c1}] = {cos:.3f}").format(i=position, j=j, c0=2 * j, c1=2 * j + 1, omega=omega, sin=s[position],
                                               cos=c[position]),
            _("one step turns pair j by ω_j = base^(−2j/D) = {omega:.3g} rad: a full turn (wavelength 2π/ω_j) "
              "every {wavelength:.2f} positions").format(omega=omega, wavelength=lam),
            _("each pair is {ratio:.2f}× slower than the one before (bits: 2×)").format(ratio=base ** (2 / width)),
            _("similarity: peak P_i·P_i = D/2 = {peak}, P_i·P_(i+1) = {next:.3f}, P_i·P_(i+10) = {tenth:.3f} "
              "(same for every i)").format(peak=width // 2, next=next_one, tenth=tenth),
            _("rotation check: M_1 P_i = P_(i+1) for every row i, equal up to round-off (< 10⁻¹²): {rotated}").format(
                rotated=rotated)])


def controls(*, n, position, pair, width, base):
    """The Play's controls {name: widget}, with these starting values; the pair slider stops below D/2 as D moves
    (observed before the panel's own observer, so the panel draws the new D with a valid pair)."""
    sliders = {
        "position": widgets.IntSlider(value=position, min=0, max=n - 1, description=_("position i")),
        "pair": widgets.IntSlider(value=pair, min=0, max=width // 2 - 1, description=_("pair j")),
        "width": widgets.IntSlider(value=width, min=4, max=64, step=2, description="D"),
        "base": widgets.FloatLogSlider(value=base, base=10, min=1, max=5, step=1, readout_format=".0f",
                                       description=_("base"))}

    def keep_pair_valid(change):
        sliders["pair"].max = change["new"] // 2 - 1                      # keep j < D/2
    sliders["width"].observe(keep_pair_valid, names="value")
    return sliders


@checks.arguments(n=checks.Int(2, 1024, why="positions drawn in the explorer"), position=checks.Int(0),
                   pair=checks.Int(0), width=checks.Int(4, 64, why="the D slider's range"),
                   base=checks.Real(low=10.0, high=1e5, why="the base slider's range"))
def play(*, n=60, position=10, pair=3, width=32, base=10000.0) -> Panel:
    """The Play panel of notebook 06 (drawing an ``Explorer``), starting at these values; display it as the cell's
    last value. Raises ValueError for position >= n, an odd width or pair >= width/2."""
    if position >= n or pair >= width // 2 or width % 2:
        raise checks.error("position, pair, width", f"position < n = {n}, an even width and pair < width/2",
                           f"position {position}, pair {pair}, width {width}")
    view = Explorer(n, width)
    return Panel(view.figure, controls(n=n, position=position, pair=pair, width=width, base=float(base)), view.update,
                 moving=view.moving, name="06_positional_encoding")
