"""Notebook 07's Play panels: a mask and the weights it allows (``play``), and flash attention's tiles
step by step (``play_tiles``).

``play`` and ``play_tiles`` check the starting values once and return Panels: ``play`` one drawing a
``MaskExplorer``, ``play_tiles`` a ``TileExplorer`` (a Panel itself: its update clamps its own tile slider). A
control's value goes to the panel's ``update`` and on to the unchecked internals (``masks.make_mask_unchecked``,
``tiles.tiled_attention_steps_unchecked``) without being checked again. The text under the mask panel is
``visible_keys_table``.
"""
import math

import ipywidgets as widgets
import numpy as np
import torch
from matplotlib.patches import Patch, Rectangle

from ...core import checks
from ...core.attention import attend_unchecked, check_qkv, scaled_dot_product_attention
from ...core.masking import causal_unchecked
from ...i18n import gettext as _, ngettext, pgettext
from ...ui import plotting, text
from ...ui.panels import Panel, new_figure
from ...ui.plotting import SERIES_COLORS
from .costs import structured_qkv
from .figures import (
    MASK_CMAP_OUTSIDE,
    OUTSIDE_COLOUR,
    SCORE_CMAP,
    WEIGHT_CMAP_OUTSIDE,
    not_visited_background,
    not_visited_patch,
)
from .masks import MASK_KINDS, make_mask_unchecked
from .tiles import implied_weights, tiled_attention_steps_unchecked

__all__ = ["key_positions", "visible_keys_table", "MaskExplorer", "StepFigure", "TileExplorer", "mask_controls", "play",
           "play_tiles"]


def key_positions(row):
    """The key positions where a bool row is True, as ranges: "0–2", "0, 4–5", "9", or "none"."""
    keys = [int(j) for j in torch.nonzero(row).flatten().tolist()]
    runs = []
    for j in keys:
        if runs and j == runs[-1][1] + 1:
            runs[-1][1] = j
        else:
            runs.append([j, j])
    return ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in runs) or _("none")


def visible_keys_table(mask, weights, start=0):
    """The text under the mask panel: one column per query (its position start + i), saying which keys
    it sees (positions), how many, the key of its largest weight and that weight; a query that sees
    no key gets "none", 0 and "–". Returns a str of aligned lines."""
    checks.bool_mask(mask, "mask", mask.shape if isinstance(mask, torch.Tensor) else ())
    if mask.dim() != 2 or tuple(weights.shape) != tuple(mask.shape):
        raise checks.error("weights", f"the mask's shape {tuple(mask.shape)}", tuple(weights.shape))
    return _visible_keys_table(mask, weights, start)


def _visible_keys_table(mask, weights, start):
    """``visible_keys_table`` for a checked (Tq, Tk) bool mask and weights of its shape."""
    seen = mask.sum(-1).tolist()
    rows = [(_("query"), [str(start + i) for i in range(mask.shape[0])]),
            (_("sees keys"), [key_positions(r) for r in mask]),
            (_("how many"), [str(n) for n in seen]),
            (_("top key"), [str(int(w.argmax())) if n else "–" for w, n in zip(weights, seen)]),
            (_("its weight"), [f"{float(w.max()):.2f}" if n else "0" for w, n in zip(weights, seen)])]
    widths = [text.room([cells[c] for _label, cells in rows]) for c in range(mask.shape[0])]
    wide, narrow = text.room([label for label, _cells in rows])
    label_width = (wide, max(12 - 2 * wide, narrow + 2))                          # 12 columns in English
    lines = [(text.pad(label, label_width) + "  ".join(text.pad(c, wd) for c, wd in zip(cells, widths))).rstrip()
             for label, cells in rows]
    empty = seen.count(0)
    if empty:
        lines.append(ngettext("{n} query sees no key: weights all 0", "{n} queries see no key: weights all 0",
                              empty).format(n=empty))
    return "\n".join(lines)


class MaskExplorer:
    """Play panel 1's figure: a mask (left, black = may attend) and the weights it allows on mostly local data
    (right). The queries are the last Tq of Tk positions, as when decoding with a cache. ``update(kind, Tq, Tk,
    w)`` redraws in place and returns ``visible_keys_table``'s text; ``.moving``.

    Both heatmaps cover every position 0..max_len-1 (rows: query positions, columns: key positions),
    whatever Tq and Tk, so the active block (rows start..start+Tq-1, columns 0..Tk-1) is seen where
    it sits; the cells outside it are masked for display only (``OUTSIDE_COLOUR``, said in the key)."""

    def __init__(self, max_len):
        self.max_len = max_len
        self.q_all, self.k_all, _values = structured_qkv(2 * max_len, 16, 4)              # mostly local attention
        self.figure, (self.ax_mask, self.ax_weights) = new_figure(1, 2, figsize=(11, 4.6))
        grid = torch.zeros(max_len, max_len)                                        # every position, fixed
        plotting.heatmap(grid, ax=self.ax_mask, cmap=MASK_CMAP_OUTSIDE, colorbar=False, annotate=False,
                         xlabel=_("key position"), ylabel=_("query position"))
        plotting.heatmap(grid, ax=self.ax_weights, cmap=WEIGHT_CMAP_OUTSIDE, annotate=False,
                         xlabel=_("key position"), ylabel=_("query position"), title=_("weights it allows"))
        self.mask_title = plotting.live_title(self.ax_mask)
        handles = [Patch(facecolor="black", edgecolor="0.3", label=_("black = may attend (True)")),
                   Patch(facecolor="white", edgecolor="0.3", label=_("white = masked (False)")),
                   Patch(facecolor=OUTSIDE_COLOUR, edgecolor="0.3",
                         label=_("grey = not in this sequence (no query or no key there)"))]
        self.key = self.figure.legend(handles=handles, loc="outside lower center", ncols=3, fontsize=9,
                                      frameon=False)
        # What a move changes: the two images (the grid, the ticks and the weights' title are fixed, so
        # Tq and Tk blit too) and the mask's title, which changes with the menu only. It is declared
        # all the same: redrawing it costs about 1 ms a move, an undeclared change of it a full draw
        # and a new plan (about 300 ms) on every change of the menu.
        self.moving = [plotting.heatmap_state(self.ax_mask).image, plotting.heatmap_state(self.ax_weights).image,
                       self.mask_title]
    @staticmethod
    def w_min(kind):
        """The smallest w the slider offers for ``kind``: 1 for "block" (a block size), else 0 (a window of
        half-width 0 is the query alone; 0 pads is no padding; the causal masks ignore w)."""
        return 1 if kind == "block" else 0

    def mask(self, kind, Tq, Tk, w):
        """The (Tq, Tk) mask shown, and the position of the first query."""
        start = max(Tk - Tq, 0)                                                     # queries = the last Tq positions
        sizes = dict(window=w, block_size=max(w, 1), valid_len=max(Tk - w, 0))
        if kind in ("local", "block") and Tq <= Tk:                                 # windows follow the positions
            return make_mask_unchecked(kind, Tk, Tk, **sizes)[start:], start
        return make_mask_unchecked(kind, Tq, Tk, **sizes), start                    # causal: as the function aligns it

    def on_grid(self, block, start):
        """A (Tq, Tk) block placed on the max_len x max_len grid of positions at rows start..start+Tq-1,
        columns 0..Tk-1, as a masked array (for display only): the other cells are masked (data 0)."""
        Tq, Tk = block.shape
        data = np.zeros((self.max_len, self.max_len))
        outside = np.ones((self.max_len, self.max_len), dtype=bool)
        data[start:start + Tq, :Tk] = block.detach().double().numpy()
        outside[start:start + Tq, :Tk] = False
        return np.ma.masked_array(data, mask=outside)

    def update(self, kind, Tq, Tk, w):
        mask, start = self.mask(kind, Tq, Tk, w)
        q, k = self.q_all[start:start + Tq], self.k_all[:Tk]                      # (Tq, d), (Tk, d): checked at play
        _out, weights = attend_unchecked(q, k, k, mask, 1.0 / math.sqrt(q.shape[-1]))
        plotting.heatmap_state(self.ax_mask).image.set_data(self.on_grid(mask.float(), start))
        plotting.heatmap_state(self.ax_weights).image.set_data(self.on_grid(weights, start))
        self.mask_title.set_text(_("{kind} mask").format(kind=_(kind)))
        return _visible_keys_table(mask, weights, start)


def mask_controls(*, kind, num_queries, num_keys, w, max_len):
    """Play panel 1's controls {name: widget}, with these starting values. A block size is at least 1: with
    "block" picked the w slider starts at 1 (w = 0 moves to 1); observed before the panel's own observer, so the
    panel draws the menu's new kind with a valid w."""
    sliders = {
        "kind": widgets.Dropdown(options=[(_(k), k) for k in MASK_KINDS], value=kind, description=_("mask")),
        "Tq": widgets.IntSlider(value=num_queries, min=1, max=max_len, description=_("queries Tq"),
                                continuous_update=False),
        "Tk": widgets.IntSlider(value=num_keys, min=2, max=max_len, description=_("keys Tk"),
                                continuous_update=False),
        "w": widgets.IntSlider(value=w, min=MaskExplorer.w_min(kind), max=max_len, description="w",
                               continuous_update=False)}
    sliders["kind"].observe(lambda change: setattr(sliders["w"], "min", MaskExplorer.w_min(change["new"])),
                            names="value")
    return sliders


class StepFigure:
    """The three views of the tiled step-through: scores filled in tile by tile with the current tile
    boxed (``scores_image``, ``tile_box``), the weights implied by m and l (``ax_weights``), and each
    query's output so far (``partial``) against the exact output (``exact``)."""

    def __init__(self, axes, scores, exact):
        self.ax_scores, self.ax_weights, self.ax_out = axes
        self.scores = scores
        Tq, Tk = scores.shape
        lim = float(scores.abs().max())
        self.scores_image = self.ax_scores.imshow(torch.full((Tq, Tk), float("nan")).numpy(), cmap=SCORE_CMAP, vmin=-lim,
                                                  vmax=lim, interpolation="nearest", aspect="auto")
        self.ax_scores.figure.colorbar(self.scores_image, ax=self.ax_scores, fraction=0.046, pad=0.04,
                                       label=_("score q·k/√d"))
        self.ax_scores.set(xlabel=_("keys"), ylabel=_("queries"), xticks=range(Tk), yticks=range(Tq))
        self.tile_box = self.ax_scores.add_patch(Rectangle((-0.5, -0.5), 1, 1, fill=False, edgecolor=SERIES_COLORS[1],
                                                           linewidth=3))
        plotting.heatmap(torch.full((Tq, Tk), float("nan")), ax=self.ax_weights, annotate=False,
                         title=_("weights implied by m and l"), xlabel=_("keys"), ylabel=_("queries"))
        # Cells no tile has reached are NaN, drawn transparent over a hatched background (not grey: in
        # this notebook grey means "not in this sequence", in the mask panel).
        self.not_visited = [not_visited_background(ax, (Tq, Tk)) for ax in (self.ax_scores, self.ax_weights)]
        rows = list(range(Tq))
        self.exact, = self.ax_out.plot(exact, rows, "o", mfc="none", mec="black", ms=9, label=_("exact (dense)"))
        self.partial, = self.ax_out.plot([0.0] * Tq, rows, "o", color=SERIES_COLORS[1], ms=6, label=_("acc / l so far"))
        self.ax_out.set(ylim=(Tq - 0.5, -0.5), yticks=rows, xlabel=_("output (value is 1 number)"),
                        ylabel=_("queries"), title=_("output per query"), xlim=self._limits(exact))
        self.ax_out.axvline(0, color="grey", linewidth=0.5)
        self.ax_out.legend(loc="lower right", fontsize=8)
        self.scores_title = plotting.live_title(self.ax_scores)
        # What ``show`` changes (for a live panel to declare); a new x range of the outputs (another
        # exact output, e.g. causal) redraws the whole figure.
        self.moving = [self.scores_image, self.tile_box, plotting.heatmap_state(self.ax_weights).image,
                       self.partial, self.exact, self.scores_title]

    def show(self, states, scores=None, exact=None):
        """Show the state after the last of ``states`` (a prefix of tiled_attention_steps' output)."""
        scores = self.scores if scores is None else scores
        Tq, Tk = scores.shape
        shown = torch.full((Tq, Tk), float("nan"), dtype=scores.dtype)
        for s in states:
            (q0, q1), (k0, k1) = s["q_block"], s["k_block"]
            shown[q0:q1, k0:k1] = scores[q0:q1, k0:k1]
        self.scores_image.set_data(shown.numpy())
        st = states[-1]
        (q0, q1), (k0, k1) = st["q_block"], st["k_block"]
        self.tile_box.set_bounds(k0 - 0.5, q0 - 0.5, k1 - k0, q1 - q0)
        self.scores_title.set_text(_("tile {tile}: queries {q0}–{q1}, keys {k0}–{k1}").format(
            tile=len(states), q0=q0, q1=q1 - 1, k0=k0, k1=k1 - 1))
        plotting.update_heatmap(self.ax_weights, implied_weights(states, Tk))
        self.partial.set_xdata(st["out"][:, 0].numpy())
        if exact is not None:
            self.exact.set_xdata(exact.numpy())
            if tuple(self.ax_out.get_xlim()) != self._limits(exact):     # unchanged limits stay untouched
                self.ax_out.set_xlim(self._limits(exact))

    @staticmethod
    def _limits(exact):
        """x limits that show every exact output (and 0, where the partial outputs start)."""
        pad = 0.15 * (float(exact.abs().max()) + 1e-9)
        return min(float(exact.min()), 0.0) - pad, max(float(exact.max()), 0.0) + pad


class TileExplorer(Panel):
    """Play panel 2: the step-through of ``tiled_attention_steps`` on (q, k, v), one tile per slider step,
    with the tile size and a causal mask as controls. ``.steps`` is the StepFigure. A Panel itself: its
    update sets its own tile slider's range (``self.quietly``), so a move that clamps the tile draws once."""

    def __init__(self, q, k, v, tile, block):
        self.q, self.k, self.v = q, k, v
        self.scores = q @ k.T / q.shape[-1] ** 0.5                                   # (Tq, Tk) = q·k / √d
        exact = scaled_dot_product_attention(q, k, v)[0][:, 0]
        figure, axes = new_figure(1, 3, figsize=(12.5, 4.1))
        self.steps = StepFigure(axes, self.scores, exact)
        tiles = len(list(tiled_attention_steps_unchecked(q, k, v, block, False)))     # the slider's max, as update sets it
        self.key = figure.legend(
            handles=[Patch(facecolor="none", edgecolor=SERIES_COLORS[1], linewidth=3, label=_("orange box = the current tile")),
                     not_visited_patch()], loc="outside lower center", ncols=2, fontsize=9, frameon=False)
        controls = {
            "tile": widgets.IntSlider(value=min(tile, tiles), min=1, max=tiles, description=_("tile"),
                                      continuous_update=False),
            "block": widgets.SelectionSlider(options=[1, 2, 4, 8], value=block, description=_("block"),
                                             continuous_update=False),
            "causal": widgets.Checkbox(value=False, description=_("causal"))}
        super().__init__(figure, controls, self.update, moving=self.steps.moving, name="07-tiled-steps")

    def update(self, tile, block, causal):
        states = list(tiled_attention_steps_unchecked(self.q, self.k, self.v, block, causal))
        if self.controls["tile"].max != len(states):
            # The clamped value is the tile drawn below: not refreshed again, so a move updates and draws once.
            with self.quietly("tile"):
                self.controls["tile"].max = len(states)
        tile = min(tile, len(states))
        Tq, Tk = self.scores.shape
        exact = attend_unchecked(self.q, self.k, self.v, causal_unchecked(Tq, Tk) if causal else None,
                                 1.0 / math.sqrt(self.q.shape[-1]))[0][:, 0]          # checked at play_tiles
        scores = self.scores.masked_fill(~causal_unchecked(Tq, Tk), float("nan")) if causal else self.scores
        self.steps.show(states[:tile], scores, exact)
        st = states[tile - 1]
        (q0, q1), (k0, k1) = st["q_block"], st["k_block"]

        def fmt(t):                                          # one column per query of the block
            return "  ".join(f"{x:6.3f}" for x in t.flatten().tolist())
        head = (_("tile {tile} of {total}: queries {q0}–{q1}, keys {k0}–{k1}   (last tile of this query block)")
                if st["last"] else _("tile {tile} of {total}: queries {q0}–{q1}, keys {k0}–{k1}"))
        rows = [(_("running max m"), st["m"]), (_("rescale"), st["rescale"]), (_("denominator l"), st["l"]),
                (pgettext("tile step", "output so far"), st["output"]), (_("exact output"), exact[q0:q1])]
        # the "=" signs line up in any font: each label padded as visible_keys_table pads its cells
        wide, narrow = text.room([label for label, _values in rows])
        room = (wide, max(16 - 2 * wide, narrow + 1))                              # 16 columns in English
        return "\n".join([head.format(tile=tile, total=len(states), q0=q0, q1=q1 - 1, k0=k0, k1=k1 - 1)] + [
            text.pad(label, room) + "= " + fmt(values) for label, values in rows])


@checks.arguments(kind=checks.Choice(MASK_KINDS), num_queries=checks.Int(1), num_keys=checks.Int(2), w=checks.Int(0),
                   max_len=checks.Int(2, 64, why="cells drawn in the panel"))
def play(*, kind="local", num_queries=12, num_keys=12, w=2, max_len=12) -> Panel:
    """Play panel 1 (drawing a ``MaskExplorer``), starting at these values: a mask and the weights it allows;
    display it as the cell's last value. Raises ValueError for a size above ``max_len`` or a block size w < 1."""
    if max(num_queries, num_keys, w) > max_len:
        raise checks.error("num_queries, num_keys, w", f"at most max_len = {max_len}",
                           f"{num_queries}, {num_keys}, {w}")
    if kind == "block" and w < 1:
        raise checks.error("w", "a block size of at least 1 for kind 'block'", w)
    view = MaskExplorer(max_len)
    return Panel(view.figure, mask_controls(kind=kind, num_queries=num_queries, num_keys=num_keys, w=w, max_len=max_len),
                 view.update, moving=view.moving, name="07-masks")


@checks.arguments(queries=checks.Tensor(2), keys=checks.Tensor(2), values=checks.Tensor(2), tile=checks.Int(1, 16),
                   block=checks.Choice((1, 2, 4, 8)))
def play_tiles(*, queries, keys, values, tile=2, block=2) -> TileExplorer:
    """Play panel 2 (``TileExplorer``): the step-through of ``tiled_attention_steps`` on queries (Tq, d),
    keys (Tk, d) and values (Tk, dv), starting at this tile and block size; display it as the cell's last value."""
    check_qkv(queries, keys, values)
    return TileExplorer(queries, keys, values, tile, block)
