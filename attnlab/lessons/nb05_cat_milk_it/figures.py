"""Notebook 05's picture of where each word moves: a hollow marker at the word's input vector, a
filled one at its output after attention, and an arrow between.

``moves_plot`` draws it once and returns a ``Moves`` handle; ``Moves.update`` moves every artist in
place (the handle is where the figure's state lives, nothing is stored on the Axes).
"""
import math
from dataclasses import dataclass, field

from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch
from matplotlib.text import Annotation, Text
from matplotlib.transforms import Bbox

from ...core import checks
from ...core.attention import scaled_dot_product_attention
from ...i18n import gettext as _
from ...ui.plotting import SERIES_COLORS, text_color
from . import data
from .compute import SEED_D_K

__all__ = ["WORD_COLORS", "Moves", "moves_plot", "thumbnail"]

WORD_COLORS = {"cat": SERIES_COLORS[0], "milk": SERIES_COLORS[1], "it": SERIES_COLORS[2], "sweet": SERIES_COLORS[3], "hungry": SERIES_COLORS[4]}
_MARKER_SIZE = 11          # points; every word the same size, so no marker hides inside another
_SAME_POINT = 0.05         # words closer than this (in feature units) share a marker and a label
_LABEL_OFFSET = 10         # points from a marker's centre to its label, beside the arrow
_LINE = 11                 # points between the rows a label may move to when its first place is taken
_NEAR = 0.3                # markers closer than this (feature units) share one label, "milk′, sweet′"


@dataclass
class Moves:
    """The artists of one ``moves_plot``: per word (in sentence order) its arrow, hollow "before" and
    filled "after" markers; one label per group of words at the same point; the words that are not
    in the sentence as grey squares."""
    ax: object
    arrows: list = field(default_factory=list)
    before: list = field(default_factory=list)
    after: list = field(default_factory=list)
    before_labels: list = field(default_factory=list)
    after_labels: list = field(default_factory=list)
    others: list = field(default_factory=list)
    other_labels: list = field(default_factory=list)

    def update(self, words, before, after, *, others=None):
        """Move markers, arrows and labels to new ``before`` / ``after`` (T, 2) points; returns self."""
        words = list(words)
        if len(words) != len(self.arrows):
            raise checks.error("words", f"{len(self.arrows)} words as when drawn", len(words))
        others = dict(others or {})
        if len(others) != len(self.others):
            raise checks.error("others", f"{len(self.others)} words as when drawn", len(others))
        before, after = [tuple(p) for p in before.tolist()], [tuple(p) for p in after.tolist()]
        for i, w in enumerate(words):
            color = WORD_COLORS.get(w, "k")
            self.before[i].set_data([before[i][0]], [before[i][1]])
            self.before[i].set_markeredgecolor(color)
            self.after[i].set_data([after[i][0]], [after[i][1]])
            self.after[i].set_markerfacecolor(color)
            self.arrows[i].set_positions(before[i], after[i])
            self.arrows[i].set_color(color)
        # Words at one point share a marker: each gets an equal slice of a filled disc ("after"), or of
        # nested rings ("before", still hollow), so no marker turns into a ring around another.
        for groups, markers, kind in ((_group(words, after), self.after, "after"),
                                      (_group(words, before), self.before, "before")):
            for names, _point in groups:
                for k, name in enumerate(names):
                    m = markers[words.index(name)]
                    if kind == "after":
                        m.set_fillstyle("full" if len(names) == 1 else ("left", "right")[k % 2])
                        m.set_markersize(_MARKER_SIZE)
                    else:
                        m.set_markersize(_MARKER_SIZE + 5 * (len(names) - 1 - k))
        _label_all(self, words, before, after)
        mid = sum(self.ax.get_xlim()) / 2
        for (w, p), m, t in zip(others.items(), self.others, self.other_labels):
            m.set_data([p[0]], [p[1]])
            t.xy = p
            t.set_ha("right" if p[0] > mid else "left")
            t.set_text(_("{word} (not in this sentence)").format(word=w))
        return self


def _group(words, points, radius=_SAME_POINT):
    """Words within ``radius`` of a group's first point: [([words], (x, y)), ...] in sentence order."""
    groups = []
    for w, p in zip(words, points):
        for names, q in groups:
            if abs(q[0] - p[0]) < radius and abs(q[1] - p[1]) < radius:
                names.append(w)
                break
        else:
            groups.append(([w], p))
    return groups


_CANDIDATES = ((1, 0), (1, 1), (1, -1), (-1, 0), (-1, 1), (-1, -1), (0, 1.2), (0, -1.2))   # (side, line)


def _label_all(moves, words, before, after):
    """One label per cluster of nearby markers; "before" labels try the marker's left first and
    "after" labels its right, then the first of _CANDIDATES whose text box overlaps no label placed
    so far and stays inside the Axes (in display pixels). Words at one point are joined with "=",
    near ones with ","; a thin leader line runs from the marker to just outside the label's text.

    Each label's text is measured once; its box at each candidate place follows from that size and
    the marker's position (no layout per candidate)."""
    ax = moves.ax
    box = ax.get_window_extent()
    px = ax.figure.dpi / 72                                  # display pixels per point
    placed = []
    for labels, points, prime, weight, first in ((moves.before_labels, before, "", "normal", -1),
                                                 (moves.after_labels, after, "′", "bold", 1)):
        for t in labels:
            t.set_text("")
            t.set_visible(False)
        for t, (names, p) in zip(labels, _group(words, points, radius=_NEAR)):
            exact = [g for g, _ in _group(names, [points[words.index(n)] for n in names])]
            t.xy = p
            t.set_text(", ".join(" = ".join(n + prime for n in g) for g in exact))
            t.set_fontweight(weight)
            t.set_visible(True)
            size = Text.get_window_extent(t)                 # the text alone (an Annotation adds its leader)
            w, h = size.width, size.height
            x, y = ax.transData.transform(p)
            for side, line in sorted(_CANDIDATES, key=lambda c: c[0] != first):
                x0 = x + side * _LABEL_OFFSET * px - {1: 0, -1: w, 0: w / 2}[side]
                ext = Bbox.from_bounds(x0, y + line * _LINE * px - h / 2, w, h)
                inside = box.x0 <= ext.x0 and ext.x1 <= box.x1 and box.y0 <= ext.y0 and ext.y1 <= box.y1
                if inside and not any(ext.overlaps(e) for e in placed):
                    break
            t.set_position((side * _LABEL_OFFSET, line * _LINE))
            t.set_ha({1: "left", -1: "right", 0: "center"}[side])
            t.set_va("center")
            # The leader starts at the text's centre: shorten it to leave the text box padded by 2
            # pixels, plus 1 point, as clipping it to that box did (matplotlib's default, far slower).
            vx, vy = -(side * (_LABEL_OFFSET + w / 2 / px)), -line * _LINE          # points, to the marker
            exits = [half / abs(v) for half, v in (((w / 2 + 2) / px, vx), ((h / 2 + 2) / px, vy)) if v]
            t.arrow_patch.shrinkA = min(exits) * math.hypot(vx, vy) + 1
            placed.append(ext)


_AX = checks.Axes()


@checks.arguments(words=checks.Items(checks.Text()), before=checks.Tensor(2), after=checks.Tensor(2), ax=_AX,
                   others=checks.Optional(checks.Dict(0)), limits=checks.Items(checks.Real(), 2, 2))
def moves_plot(words, before, after, *, ax, others=None, limits=(-1.0, 5.0)):
    """Each word as a hollow marker at its input vector and a filled one at its output, with an arrow
    between; ``others`` = {word: (x, y)} drawn grey and hollow (not in the sentence). Also draws the
    line state + taste = 4 on which every word of seed 004 lies. Returns a ``Moves`` handle."""
    if before.shape != after.shape or before.shape != (len(words), 2):
        raise checks.error("before, after", f"shape ({len(words)}, 2), one (x, y) per word",
                           f"{tuple(before.shape)} and {tuple(after.shape)}")
    ax.set_xlim(*limits)
    ax.set_ylim(*limits)
    ax.set_aspect("equal")
    ax.set_xlabel(_("feature 1: state, high = hungry"))
    ax.set_ylabel(_("feature 2: taste, high = sweet"))
    ax.grid(True, color="0.9")
    ax.set_axisbelow(True)               # grid and ticks under the arrows: a move leaves them in the background
    ax.plot([limits[0], limits[1]], [4 - limits[0], 4 - limits[1]], ls="--", color="0.8", lw=1, zorder=0,
            label=_("state + taste = 4"))
    ax.legend(loc="lower left", fontsize=8)
    moves = Moves(ax)
    for _word in words:
        arrow = FancyArrowPatch((0, 0), (0, 0), arrowstyle="-|>", mutation_scale=12, lw=1.2,
                                shrinkA=5, shrinkB=5)
        moves.arrows.append(ax.add_patch(arrow))
        moves.before.append(ax.add_line(Line2D([], [], marker="o", ls="", mfc="none", mew=2,
                                               ms=_MARKER_SIZE, zorder=3)))
        moves.after.append(ax.add_line(Line2D([], [], marker="o", ls="", mec="white", mew=0.8,
                                              mfcalt="none", ms=_MARKER_SIZE, zorder=4)))
    for labels in (moves.before_labels, moves.after_labels):
        for _word in words:
            labels.append(ax.add_artist(Annotation(      # a thin leader line ties the label to its marker
                "", (0, 0), xytext=(0, 0), textcoords="offset points", fontsize=9, zorder=5,
                arrowprops={"arrowstyle": "-", "color": "0.45", "lw": 0.6, "patchA": None,  # shrinkA: _label_all
                            "shrinkB": _MARKER_SIZE / 2 + 1})))
            labels[-1].arrow_patch.set_clip_path(ax.patch)   # clipped like its label (drawn unclipped otherwise)
    for _word in (others or {}):
        moves.others.append(ax.add_line(Line2D([], [], marker="s", ls="", mfc="none", mec="0.6",
                                               ms=8, mew=1.5)))
        moves.other_labels.append(ax.add_artist(Annotation("", (0, 0), xytext=(0, -9), textcoords="offset points",
                                                           fontsize=9, color=text_color("0.5"), va="top")))
    return moves.update(words, before, after, others=others)


@checks.arguments(ax=_AX)
def thumbnail(ax):
    """The index's small picture of this notebook, drawn into ``ax``: softmax(XXᵀ/√4)X, the seed's d_k."""
    words, X = data.cat_milk_it("sweet")
    out, _weights = scaled_dot_product_attention(X, X, X, scale=1 / math.sqrt(SEED_D_K))
    names = {"cat": "cat = it", "it": ""}
    for (x0, y0), (x1, y1), w in zip(X.tolist(), out.tolist(), words):
        ax.annotate("", (x1, y1), (x0, y0), arrowprops={"arrowstyle": "->", "color": "0.4"})
        ax.plot([x0], [y0], "o", mfc="none", color=SERIES_COLORS[0])
        ax.plot([x1], [y1], "o", color=SERIES_COLORS[1], markersize=4)
        ax.text(x0 + 0.12, y0 + 0.12, names.get(w, w), fontsize=7)
    ax.set_xlim(-0.5, 4.5)
    ax.set_ylim(-0.5, 4.8)
    ax.set_xlabel(_("state (→ hungry)"), fontsize=6)
    ax.set_ylabel(_("taste (→ sweet)"), fontsize=6)
