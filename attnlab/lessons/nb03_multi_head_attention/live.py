"""Notebook 03's Play panel: the hand-built heads on both sentences, one heatmap per head and their
average, hatched padding keys. ``play(heads=..., temperature=..., causal=..., valid_len_0=..., valid_len_1=...)``
checks the starting values once, declares the controls, builds the figure and wires them; a control's
value goes to the update unchecked. All figure state (axes, hatches, slots, colour bar) lives in the
``HeadsPlay`` object.

The toy modules are built once, up front, for 1..MAX_HEADS heads: a move of a control computes,
it never builds a module, and nothing reads or advances torch's global RNG.
"""
import ipywidgets as widgets
import torch

from ...core import checks
from ...i18n import gettext as _
from ...ui.panels import Panel, new_figure
from ...ui.plotting import heatmap, heatmap_state, update_heatmap, weights_summary_unchecked
from .figures import mark_padding, mark_padding_unchecked
from .heads import HEAD_KINDS, SENTENCES, embed, names_of, titles_of, toy_multihead

__all__ = ["CONTROLS", "MAX_HEADS", "QUERY", "HeadsPlay", "controls", "play"]

MAX_HEADS = len(HEAD_KINDS)
CONTROLS = ("heads", "valid_len_0", "valid_len_1", "temperature", "causal")
QUERY = "sat"                                  # the query whose weights are printed under the figure


class HeadsPlay:
    """Rows = the two sentences, columns = heads 1..MAX_HEADS and their average (which moves to sit
    right after the last shown head). ``update(heads, valid_len_0, valid_len_1, temperature, causal)``
    redraws in place and returns the text shown under the figure."""

    @checks.arguments(sentences=checks.Items(checks.Text()))
    def __init__(self, sentences=SENTENCES):
        self.X, _valid_lens, self.tokens = embed(list(sentences))                     # (2, n, 15)
        if len(self.tokens) != 2:
            raise checks.error("sentences", "2 sentences (one per row)", len(self.tokens))
        n = self.X.shape[1]
        self.modules = {h: toy_multihead(h) for h in range(1, MAX_HEADS + 1)}
        self.figure, self.axes = new_figure(2, MAX_HEADS + 1, figsize=(12.2, 5.6))
        for b in range(2):
            for c in range(MAX_HEADS + 1):
                heatmap(torch.zeros(n, n), x_labels=self.tokens[b], y_labels=self.tokens[b], ax=self.axes[b, c],
                        colorbar=False, annotate=False, xlabel=_("keys") if b == 1 else "",
                        title=" \n " if b == 0 else None,
                        ylabel=(_("sentence {b} (top)\nqueries") if b == 0 else
                                _("sentence {b} (bottom)\nqueries")).format(b=b) if c == 0 else "")
                if c > 0:                       # a row's queries are its first heatmap's: named once, at the left
                    self.axes[b, c].tick_params(labelleft=False)
        self.padding = [[mark_padding(ax, n) for ax in row] for row in self.axes]   # hatches, moved in place
        self.colorbar = self.figure.colorbar(self.axes[0, 0].images[0], ax=self.axes, shrink=0.8, label=_("weight"))
        self.figure.canvas.draw()
        self.figure.set_layout_engine("none")                              # lay out once, then keep the slots
        self.slots = [[ax.get_position() for ax in row] for row in self.axes]
        self.colorbar_box = self.colorbar.ax.get_position()
        self.colorbar_gap = self.colorbar_box.x0 - self.slots[0][MAX_HEADS].x1
        # What a move changes: each heatmap's weights and padding hatch. The head count shows, hides
        # and moves axes (and retitles them), so a move of ``heads`` draws the whole figure.
        self.moving = [a for row, hatches in zip(self.axes, self.padding) for ax, hatch in zip(row, hatches)
                       for a in (heatmap_state(ax).image, hatch)]

    def weights(self, heads, valid_len_0, valid_len_1, temperature=1.0, causal=False):
        """(2, heads, n, n) weights of the first ``heads`` toy heads on both sentences (values as ``play``
        checked them: 1 <= heads <= MAX_HEADS, 1 <= valid_len_b <= n; not checked again here)."""
        mha = self.modules[heads]
        mha(self.X, self.X, self.X, torch.tensor([valid_len_0, valid_len_1]), temperature=temperature, causal=causal)
        return mha.attention_weights

    def update(self, heads, valid_len_0, valid_len_1, temperature, causal):
        W = self.weights(heads, valid_len_0, valid_len_1, temperature, causal)   # (2, heads, n, n)
        names = names_of(heads)
        valid = (valid_len_0, valid_len_1)
        for b in range(2):
            for h in range(MAX_HEADS):
                self.axes[b, h].set_visible(h < heads)
                if h < heads:
                    title = _("head {h}\n{title}").format(h=h + 1, title=names[h]) if b == 0 else ""   # two lines
                    update_heatmap(self.axes[b, h], W[b, h], title=title)
                    mark_padding_unchecked(self.axes[b, h], valid[b], self.padding[b][h])
            average = self.axes[b, MAX_HEADS]
            _place(average, self.slots[b][heads])                              # right after the last head
            update_heatmap(average, W[b].mean(0), title=_("average of {n} head(s)").format(n=heads) if b == 0 else "")
            mark_padding_unchecked(average, valid[b], self.padding[b][MAX_HEADS])
        _place(self.colorbar.ax, self.colorbar_box.translated(
            self.slots[0][heads].x1 + self.colorbar_gap - self.colorbar_box.x0, 0))
        return self.describe(W, valid)

    def describe(self, W, valid):
        """The padding keys of each sentence and what every head gives the query QUERY of sentence 0."""
        n = self.X.shape[1]
        lines = []
        for b in range(2):
            pad = [f"{j} {self.tokens[b][j]}" for j in range(valid[b], n)]
            lines.append(_("sentence {b} (valid_len = {valid_len}): padding keys: {keys}").format(
                b=b, valid_len=valid[b], keys=", ".join(pad) if pad else _("none")))
        q = self.tokens[0].index(QUERY)
        heads = W.shape[1]
        rows = [(name, W[0, h, q:q + 1], 2) for h, name in enumerate(titles_of(heads))]
        rows.append((_("average of {n} head(s)").format(n=heads), W[0, :, q:q + 1].mean(0), 3))
        prefix = len(_("{query}: {weights}").format(query=QUERY, weights=""))   # "sat: " / "sat：", whatever the language
        for name, w, top in rows:
            summary = weights_summary_unchecked(w, self.tokens[0], [QUERY], top=top)[prefix:]
            lines.append(_("'{query}' in sentence 0, {name:<24}: {summary}").format(query=QUERY, name=name,
                                                                                      summary=summary))
        return "\n".join(lines)


def _place(ax, box):
    """Move ``ax`` to ``box`` only if it is elsewhere (setting a position marks the figure changed)."""
    if tuple(ax.get_position().bounds) != tuple(box.bounds):
        ax.set_position(box)


_LENGTH = checks.Int(1, len(SENTENCES[0].split()), why="the words of sentence 0")


def controls(*, heads=4, temperature=1.0, causal=False, valid_len_0=6, valid_len_1=3):
    """The Play's controls {name: widget}, in the order shown, with these starting values."""
    wide, long = {"description_width": "initial"}, {"width": "440px"}
    return {
        "heads": widgets.IntSlider(value=heads, min=1, max=MAX_HEADS, description=_("heads")),
        "temperature": widgets.FloatSlider(value=temperature, min=0.25, max=4.0, step=0.05, description=_("temperature T"),
                                           style=wide),
        "causal": widgets.Checkbox(value=causal, description=_("causal mask")),
        "valid_len_0": widgets.IntSlider(value=valid_len_0, min=1, max=6, description=_("valid_len of sentence 0 (top row)"),
                                         style=wide, layout=long),
        "valid_len_1": widgets.IntSlider(value=valid_len_1, min=1, max=6, description=_("valid_len of sentence 1 (bottom row)"),
                                         style=wide, layout=long),
    }


@checks.arguments(heads=checks.Int(1, MAX_HEADS, why="one per toy head"),
                   temperature=checks.Real(low=0.25, high=4.0, why="the T slider's range"), causal=checks.Flag(),
                   valid_len_0=_LENGTH, valid_len_1=_LENGTH)
def play(*, heads=4, temperature=1.0, causal=False, valid_len_0=6, valid_len_1=3) -> Panel:
    """The Play panel of notebook 03 with these starting values; returns the ``Panel`` (display it as the
    cell's last value); its ``.update`` is the bound ``HeadsPlay.update``."""
    view = HeadsPlay()
    return Panel(view.figure, controls(heads=heads, temperature=temperature, causal=causal, valid_len_0=valid_len_0,
                                       valid_len_1=valid_len_1),
                 view.update, moving=view.moving, name="03-multi-head", columns=3)
