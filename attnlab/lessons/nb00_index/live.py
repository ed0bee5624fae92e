"""Notebook 00's Play panel: three scores and a temperature T drive the bars of softmax(scores / T)."""
import ipywidgets as widgets
import torch

from ...core import checks
from ...core.masking import stable_softmax
from ...i18n import gettext as _
from ...ui import plotting
from ...ui.panels import Panel, new_figure
from ...ui.plotting import SERIES_COLORS

__all__ = ["SoftmaxWarmUp", "controls", "play"]


class SoftmaxWarmUp:
    """The index's Play figure: bars of softmax(scores / T) for three scores. ``update(s1, s2, s3, T)`` redraws
    in place and returns the weights as text; ``.bars`` (the three bars), ``.moving`` (what a move changes)."""

    def __init__(self):
        self.figure, self.ax = new_figure(figsize=(5.5, 2.6))
        self.bars = self.ax.bar([_("key {i}").format(i=i) for i in (1, 2, 3)], [1 / 3] * 3, color=SERIES_COLORS[0])
        self.ax.set_ylim(0, 1)
        self.ax.set_ylabel(_("attention weight"))
        self.ax.axhline(1 / 3, color="0.6", linestyle=":", linewidth=1)        # uniform, for reference
        self.title = plotting.live_title(self.ax)
        self.moving = [*self.bars, self.title]                                 # what a move changes

    def update(self, s1, s2, s3, T):
        """Set the bars to softmax([s1, s2, s3] / T); returns the weights as text."""
        weights = stable_softmax(torch.tensor([s1, s2, s3], dtype=torch.float64), 1.0 / T)   # the sliders' values: unchecked
        for bar, w in zip(self.bars, weights.tolist()):
            bar.set_height(w)
        self.title.set_text(_("softmax(scores / T), T = {T:.2f}").format(T=T))
        return _("weights: {weights}   (dotted line: 1/3, uniform)").format(
            weights=", ".join(f"{w:.3f}" for w in weights.tolist()))


def controls(*, scores=(1.0, 2.0, 3.0), temperature=1.0):
    """The Play's controls {name: widget}: a slider per score and one for T, with these starting values."""
    sliders = {f"s{i}": widgets.FloatSlider(value=v, min=-5, max=5, step=0.1, description=_("score {i}").format(i=i))
               for i, v in enumerate(scores, 1)}
    sliders["T"] = widgets.FloatLogSlider(value=temperature, base=10, min=-2, max=2, step=0.05, description="T")
    return sliders


@checks.arguments(scores=checks.Items(checks.Real(low=-5, high=5), min_len=3, max_len=3),
                   temperature=checks.Real(low=0.01, high=100))
def play(*, scores=(1.0, 2.0, 3.0), temperature=1.0) -> Panel:
    """The Play panel of the index (``SoftmaxWarmUp``) with these starting values (checked here, once: three
    scores in [-5, 5], T in [0.01, 100], the sliders' ranges); display it as the cell's last value."""
    view = SoftmaxWarmUp()
    return Panel(view.figure, controls(scores=scores, temperature=temperature), view.update, moving=view.moving,
                 name="softmax-warm-up")
