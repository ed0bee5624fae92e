"""Notebook 04's Play panel: the six steps for *Thinking* (left) and the masked weights of
"The cat sat on the mat" (right). The notebook makes the controls; ``play(controls)`` builds the
figure and wires them. The figure's state lives in the returned ``WalkthroughPlay``."""
import torch

from ... import _checks
from ...data import thinking_machines
from ...masking import causal_mask
from ...panels import Panel, new_figure
from ...plotting import heatmap, heatmap_state, live_title, update_heatmap, weights_summary
from .figures import draw_step_table
from .steps import SENTENCE, describe_step, self_attention_steps, sentence_attention, step_table

CONTROLS = ("step", "d_k", "causal", "padding")


class WalkthroughPlay:
    """``update(step, d_k, causal, padding)`` redraws both panels in place and returns the numbers
    of the current step and the largest weight per query of the right panel."""

    def __init__(self):
        self.figure, (ax_steps, self.ax_mask) = new_figure(
            1, 2, figsize=(12.2, 4.5), gridspec_kw={"width_ratios": [1.75, 1]})
        tm = thinking_machines()
        s = self_attention_steps(tm["X"], tm["W_Q"], tm["W_K"], tm["W_V"])
        self.table = draw_step_table(step_table(s, tm["words"], step=6), tm["words"], ax=ax_steps)
        n = len(SENTENCE)
        # No numbers in the cells: the text under the figure gives the largest weight per query.
        heatmap(torch.zeros(n, n), x_labels=SENTENCE, y_labels=SENTENCE, ax=self.ax_mask,
                xlabel="keys (attended to)", ylabel="queries", annotate=False)
        self.mask_title = live_title(self.ax_mask)
        # What a move changes: the table (text only, no ticks: redrawn whole with its title), the
        # weights, the words on the axes (padding makes them <pad>) and the title.
        self.moving = [ax_steps, heatmap_state(self.ax_mask).image, self.ax_mask.xaxis, self.ax_mask.yaxis,
                       self.mask_title]

    def update(self, step, d_k, causal, padding):
        step = _checks.count(step, "step", low=1)
        if step > 6:
            raise ValueError(f"step: expected 1 to 6, got {step}")
        tm = thinking_machines(d_k=d_k)
        s = self_attention_steps(tm["X"], tm["W_Q"], tm["W_K"], tm["W_V"], causal_mask(2, 2) if causal else None)
        self.table.update(step_table(s, tm["words"], step=step),
                          title=f"query Thinking, d_k = {d_k}, step {step} of 6" + (", causal" if causal else ""))
        words, A = sentence_attention(d_k, causal=causal, padding=padding, mask_pad_queries=True)
        mask_name = " + ".join(["causal"] * bool(causal) + [f"padding {padding}"] * (padding > 0)) or "no mask"
        update_heatmap(self.ax_mask, A, x_labels=words, y_labels=words)
        self.mask_title.set_text(f"The cat sat on the mat: {mask_name}")
        rows = [r.replace("no visible key (all weights 0)", "all 0, no visible key") for r in
                weights_summary(A, words, words, top=1).splitlines()]
        head = "right, largest weight per query: "
        return (describe_step(s, tm["words"], step) + "\n" + head + " · ".join(rows[:3])
                + "\n" + " " * len(head) + " · ".join(rows[3:]))


@_checks.arguments(controls=_checks.Dict())
def play(controls):
    """The Play panel of notebook 04 wired to ``controls`` ({name: widget} for CONTROLS)."""
    if set(controls) != set(CONTROLS):
        raise ValueError(f"controls: expected the names {list(CONTROLS)}, got {list(controls)}")
    view = WalkthroughPlay()
    return Panel(view.figure, controls, view.update, moving=view.moving, name="04-self-attention")
