"""Notebook 04's Play panel: the six steps for *Thinking* (left: which step; the numbers in a table
under the figure) and the masked weights of "The cat sat on the mat" (right).
``play(step=..., d_k=..., causal=..., padding=...)`` checks the starting values once, declares the
controls, builds the figure and wires them; a control's value goes to the update unchecked. The
figure's state lives in the ``WalkthroughPlay`` behind the returned panel.

What a move redraws is small on purpose (a move should reach the browser in a few tens of ms): the
orange marker of the current step, the heatmap's image, its title (what the sentence is now) and
the words along its axes that padding can turn into <pad>. Everything with numbers (the table of the six steps, the mask, the largest
weights) is text under the figure, which costs next to nothing to update."""
import ipywidgets as widgets
import matplotlib
import torch

from ...core import checks
from ...core.masking import causal_mask
from ...i18n import N_, gettext as _
from ...ui.panels import Panel, new_figure
from ...ui.plotting import SERIES_COLORS, heatmap, heatmap_state, live_title, update_heatmap
from .data import thinking_machines_unchecked
from .steps import (
    SENTENCE,
    describe_step_unchecked,
    self_attention_steps_unchecked,
    sentence_attention_unchecked,
    step_table_text_unchecked,
    step_table_unchecked,
)

__all__ = ["CONTROLS", "D_KS", "WalkthroughPlay", "controls", "largest_weights", "play", "sentence_title"]

CONTROLS = ("step", "d_k", "causal", "padding")
D_KS = (4, 16, 64, 256, 1024)                 # the d_k slider's stops
# The six steps of seed 000, as the left panel lists them (the numbers are in the table under the figure),
# in the notebook's symbols: q₁·kⱼ, the weights aⱼ, aⱼ vⱼ, z₁ (step_table and describe_step use the same).
# The rows with words are looked up with _() where drawn.
_LADDER = ("q, k, v = x $W^Q$, x $W^K$, x $W^V$",
          N_("scores  q$_1$·k$_j$"),
          "÷ $\\sqrt{d_k}$",
          N_("softmax: weights $a_j$, sum 1"),
          N_("weight the values  $a_j$ v$_j$"),
          N_("sum  z$_1$ = Σ$_j$ $a_j$ v$_j$"))


def largest_weights(weights, words):
    """One entry per query row of ``weights`` (Tq, Tk), built from the numbers: its largest weight
    and that key's word ('cat: sat 0.52'), or, for a row with no visible key, that it is all 0."""
    rows = []
    for query, row in zip(words, torch.as_tensor(weights).tolist()):
        if sum(row) == 0:
            rows.append(_("{query}: all 0, no visible key").format(query=query))
        else:
            best = max(range(len(row)), key=lambda j: (row[j], -j))                  # the first largest
            rows.append(_("{query}: {weights}").format(query=query, weights=f"{words[best]} {row[best]:.2f}"))
    return rows


def sentence_title(padding):
    """The Play heatmap's title: the sentence as shown with its last ``padding`` words made <pad>,
    e.g. '"The cat sat on" + 2 <pad> (valid length 4)'."""
    padding = checks.count(padding, "padding")
    if padding > len(SENTENCE):
        raise checks.error("padding", f"at most {len(SENTENCE)}", padding)
    return _sentence_title(padding)


def _sentence_title(padding):
    """``sentence_title`` without its checks: the Play panel's path."""
    real = " ".join(SENTENCE[:len(SENTENCE) - padding])
    if not padding:
        return _('"{sentence}" (no padding)').format(sentence=real)
    return _('"{sentence}" + {padding} <pad> (valid length {valid_len})').format(
        sentence=real, padding=padding, valid_len=len(SENTENCE) - padding)


class WalkthroughPlay:
    """``update(step, d_k, causal, padding)`` moves the step marker and redraws the heatmap in place,
    and returns the text under the figure: the table of the six steps for *Thinking* (numbers up to
    the current step, "?" after it, the current row marked ▶), the numbers of the current step,
    and the largest weight per query of the right panel."""

    def __init__(self):
        self.figure, (ax_steps, self.ax_mask) = new_figure(
            1, 2, figsize=(9.6, 4.0), gridspec_kw={"width_ratios": [0.8, 1.15]})
        self.ax_steps = ax_steps
        ax_steps.set_axis_off()
        ax_steps.set_xlim(0, 1)
        ax_steps.set_ylim(len(_LADDER) + 1.2, 0.3)
        ax_steps.set_title(_("the six steps for the query Thinking"), fontsize=10)
        for i, label in enumerate(_LADDER, start=1):
            ax_steps.text(0.10, i, f"{i}", ha="right", va="center", fontsize=10, fontweight="bold", color="0.35")
            ax_steps.text(0.14, i, _(label), ha="left", va="center", fontsize=10)
        ax_steps.text(0.0, len(_LADDER) + 0.9, _("the numbers of every step: in the table under the figure"),
                      ha="left", va="center", fontsize=8.5, color="0.35", style="italic")
        # The one thing the step slider moves in the figure: an orange marker at the current step.
        (self.marker,) = ax_steps.plot([0.02], [1], marker=">", markersize=11, color=SERIES_COLORS[1], linestyle="",
                                       clip_on=False, zorder=5)
        n = len(SENTENCE)
        # No numbers in the cells: the text under the figure gives the largest weight per query.
        heatmap(torch.zeros(n, n), x_labels=SENTENCE, y_labels=SENTENCE, ax=self.ax_mask,
                xlabel=_("keys (attended to)"), ylabel=_("queries"), annotate=False)
        # The heatmap's title says what the sentence is now ("The cat sat on" + 2 <pad>); a live title,
        # so a move redraws it alone.
        self.heatmap_title = live_title(self.ax_mask, _sentence_title(0))
        self.word_labels = self._word_labels(n)
        # What a move changes: the marker, the weights, the sentence's title and the words padding makes
        # <pad> (the first word, The, is never a pad). The tick labels and the other titles stay as drawn.
        self.moving = [self.marker, heatmap_state(self.ax_mask).image, self.heatmap_title,
                       self.word_labels[0][1:], self.word_labels[1][1:]]
        self._steps, self._sentence = {}, {}       # results per (d_k, causal...): a drag comes back

    def _word_labels(self, n):
        """The words along the heatmap's axes as plain texts, where its tick labels would be (each one
        can be redrawn alone; a tick label redraws its whole axis). The tick labels stay, transparent,
        as wide as "<pad>", so the axis titles leave room for any word."""
        ax, rc = self.ax_mask, matplotlib.rcParams
        ax.set_xticks(range(n), ["<pad>"] * n, rotation=45, ha="right")
        ax.set_yticks(range(n), ["<pad>"] * n)
        ax.tick_params(labelcolor="none")
        x_tf, x_va, _ = ax.get_xaxis_text1_transform(rc["xtick.major.pad"] + rc["xtick.major.size"])
        y_tf, y_va, y_ha = ax.get_yaxis_text1_transform(rc["ytick.major.pad"] + rc["ytick.major.size"])
        xs = [ax.text(j, 0, w, transform=x_tf, va=x_va, ha="right", rotation=45, fontsize=rc["xtick.labelsize"])
              for j, w in enumerate(SENTENCE)]
        ys = [ax.text(0, i, w, transform=y_tf, va=y_va, ha=y_ha, fontsize=rc["ytick.labelsize"])
              for i, w in enumerate(SENTENCE)]
        return xs, ys

    def _computed(self, d_k, causal, padding):
        key = (d_k, bool(causal))
        if key not in self._steps:
            tm = thinking_machines_unchecked(d_k=d_k)
            self._steps[key] = (tm["words"], self_attention_steps_unchecked(
                tm["X"], tm["W_Q"], tm["W_K"], tm["W_V"], causal_mask(2, 2) if causal else None))
        key3 = key + (padding,)
        if key3 not in self._sentence:
            self._sentence[key3] = sentence_attention_unchecked(d_k, causal=causal, padding=padding, mask_pad_queries=True)
        return self._steps[key] + self._sentence[key3]

    def update(self, step, d_k, causal, padding):
        """Redraw for these values (as ``play`` checked them; not checked again); returns the text."""
        words2, s, words, A = self._computed(d_k, causal, padding)
        self.marker.set_ydata([step])
        update_heatmap(self.ax_mask, A)
        self.heatmap_title.set_text(_sentence_title(padding))
        for texts in self.word_labels:
            for text, w in zip(texts, words):
                if text.get_text() != w:
                    text.set_text(w)
        mask_name = " + ".join([_("causal")] * bool(causal) + [_("padding {n}").format(n=padding)] * (padding > 0)) \
            or _("no mask")
        title = (_("query Thinking, d_k = {d_k}, step {step} of 6, causal mask") if causal else
                 _("query Thinking, d_k = {d_k}, step {step} of 6")).format(d_k=d_k, step=step)
        table = step_table_text_unchecked(step_table_unchecked(s, words2, step=step), words2, current=step, title=title)
        rows = largest_weights(A, words)
        head = _("right ({mask}), largest weight per query: ").format(mask=mask_name)
        return (table + "\n\n" + describe_step_unchecked(s, words2, step) + "\n\n" + head + " · ".join(rows[:3])
                + "\n" + " " * len(head) + " · ".join(rows[3:]))


def controls(*, step=4, d_k=64, causal=False, padding=2):
    """The Play's controls {name: widget}, in the order shown, with these starting values."""
    return {
        "step": widgets.IntSlider(value=step, min=1, max=6, description=_("step"), continuous_update=False),
        "d_k": widgets.SelectionSlider(options=list(D_KS), value=d_k, description="d_k", continuous_update=False),
        "causal": widgets.Checkbox(value=causal, description=_("causal mask")),
        "padding": widgets.IntSlider(value=padding, min=0, max=5, description=_("padding"), continuous_update=False),
    }


@checks.arguments(step=checks.Int(1, 6, why="the six steps"), d_k=checks.Choice(D_KS), causal=checks.Flag(),
                   padding=checks.Int(0, len(SENTENCE) - 1, why="the padding slider's range: one word stays"))
def play(*, step=4, d_k=64, causal=False, padding=2) -> Panel:
    """The Play panel of notebook 04 with these starting values; returns the ``Panel`` (display it as the
    cell's last value); its ``.update`` is the bound ``WalkthroughPlay.update``."""
    view = WalkthroughPlay()
    return Panel(view.figure, controls(step=step, d_k=d_k, causal=causal, padding=padding), view.update,
                 moving=view.moving, name="04-self-attention")
