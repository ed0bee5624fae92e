"""Notebook 00, the index: a gallery of one small picture per notebook, and the warm-up softmax panel.

Each lesson draws its own picture (``attnlab.lessons.nbNN_<stem>.thumbnail(ax)``); the pictures are
stored as PNG files beside this module by ``python tools/make_thumbnails.py``, so the index opens
without running every lesson, and ``tests/test_thumbnails.py`` redraws each one and checks that the
stored file is still exactly what the lesson draws (never a stale screenshot).
"""
import base64
import html
import math
from pathlib import Path

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import torch
from IPython.display import HTML

from ...core import checks
from ...ui import panels, plotting
from ...i18n import N_, gettext as _
from ...core.masking import masked_softmax

__all__ = ["THUMBNAILS", "CAPTIONS", "TITLES", "thumbnail_path", "title", "gallery", "gallery_html", "SoftmaxWarmUp", "play"]

THUMBNAILS = Path(__file__).parent / "thumbnails"
SIZE_INCHES, DPI = (2.6, 1.8), 100          # every stored picture: 260 x 180 pixels

# One line under each title: what the small picture shows (translated where shown).
CAPTIONS = {
    "01_kernel_regression": N_("fits with σ too small, right, too large"),
    "02_scoring_functions": N_("q·k spreads out as d_k grows"),
    "03_multi_head_attention": N_("3 heads, each its own 5×5 weights"),
    "04_self_attention_walkthrough": N_("causal weights: no looking ahead"),
    "05_cat_milk_it": N_("each word (○) → its output (●)"),
    "06_positional_encoding": N_("a sin/cos code for each position"),
    "07_masks_and_efficient_attention": N_("masks: dark = may attend"),
    "08_bahdanau_attention": N_("dates: output × input alignment"),
    "09_transformer_block": N_("where “it” points: the referent"),
    "10_encoder_decoder": N_("each output character finds its input"),
    "11_induction_heads": N_("an induction head: one place after the earlier match"),
}


# The titles title() makes, for the catalog: shown translated in the gallery.
TITLES = (N_("01 kernel regression"), N_("02 scoring functions"), N_("03 multi head attention"),
          N_("04 self attention walkthrough"), N_("05 cat milk it"), N_("06 positional encoding"),
          N_("07 masks and efficient attention"), N_("08 bahdanau attention"), N_("09 transformer block"),
          N_("10 encoder decoder"), N_("11 induction heads"))


@checks.arguments(name=checks.Text())
def thumbnail_path(name):
    """The stored picture of notebook ``name`` (e.g. "01_kernel_regression")."""
    if name not in CAPTIONS:
        raise ValueError(f"name: expected one of {sorted(CAPTIONS)}, got {name!r}")
    return THUMBNAILS / f"{name}.png"


@checks.arguments(name=checks.Text())
def title(name):
    """'01_kernel_regression' -> '01 kernel regression'."""
    return name.replace("_", " ")


@checks.arguments(names=checks.Optional(checks.Items(checks.Text())))
def gallery(names=None, *, columns=3):
    """All stored thumbnails in one figure, each titled by its notebook and caption; returns the Figure."""
    names = list(CAPTIONS) if names is None else list(names)
    for name in names:
        thumbnail_path(name)                                  # unknown names fail before drawing
    checks.count(columns, "columns", low=1)
    if columns > len(CAPTIONS):
        raise ValueError(f"columns: expected at most {len(CAPTIONS)} (one per notebook), got {columns}")
    rows = max(1, math.ceil(len(names) / columns))
    fig, axes = plt.subplots(rows, columns, figsize=(3.4 * columns, 2.4 * rows), layout="constrained",
                             squeeze=False)
    for ax, name in zip(np.ravel(axes), names):
        ax.imshow(plt.imread(thumbnail_path(name)), interpolation="antialiased")
        ax.set_axis_off()
        ax.set_title("\n".join([_(title(name)), _(CAPTIONS[name])]), fontsize=9)    # title, then caption
    for ax in np.ravel(axes)[len(names):]:
        ax.set_visible(False)
    return fig


@checks.arguments(names=checks.Optional(checks.Items(checks.Text())))
def gallery_html(names=None, *, columns=4):
    """The thumbnails as a clickable HTML grid: each picture and title links to its notebook.

    Relative links, so they open the notebook in JupyterLab and the dashboard in Voila. The
    pictures are embedded (data: URLs), so nothing is fetched. Returns an IPython HTML object.
    """
    names = list(CAPTIONS) if names is None else list(names)
    for name in names:
        thumbnail_path(name)                                  # unknown names fail before drawing
    checks.count(columns, "columns", low=1)
    if columns > len(CAPTIONS):
        raise ValueError(f"columns: expected at most {len(CAPTIONS)} (one per notebook), got {columns}")
    cells = []
    for name in names:
        png = base64.b64encode(thumbnail_path(name).read_bytes()).decode("ascii")
        href, heading = html.escape(f"{name}.ipynb"), html.escape(_(title(name)))
        caption = html.escape(_(CAPTIONS[name]))
        cells.append(
            f'<a class="attnlab-thumb" href="{href}" style="text-decoration:none;color:inherit;text-align:center">'
            f'<img src="data:image/png;base64,{png}" width="260" height="180" alt="{heading}: {caption}"'
            f' style="border:1px solid #ccc;border-radius:4px;max-width:100%;height:auto">'
            f'<div style="font-weight:bold;margin-top:2px">{heading}</div>'
            f'<div style="font-size:90%;color:#555">{caption}</div></a>')
    grid = (f'<div class="attnlab-gallery" style="display:grid;grid-template-columns:repeat({columns}, minmax(0, 270px));'
            f'gap:14px 12px;margin:6px 0 10px">' + "".join(cells) + "</div>")
    return HTML(grid)


class SoftmaxWarmUp(panels.ShowsPanel):
    """The index's Play: three scores and a temperature T; bars show softmax(scores / T).

    ``.controls`` (s1, s2, s3, T), ``.bars`` (the three bars), ``.panel``; displayable.
    """

    @checks.arguments(scores=checks.Items(checks.Real(low=-5, at_most=5)), temperature=checks.Real(low=0.01, at_most=100))
    def __init__(self, scores=(1.0, 2.0, 3.0), temperature=1.0):
        if len(scores) != 3:
            raise ValueError(f"scores: expected three numbers, got {len(scores)}")
        fig, self.ax = panels.new_figure(figsize=(5.5, 2.6))
        self.bars = self.ax.bar([_("key {i}").format(i=i) for i in (1, 2, 3)], [1 / 3] * 3, color="C0")
        self.ax.set_ylim(0, 1)
        self.ax.set_ylabel(_("attention weight"))
        self.ax.axhline(1 / 3, color="0.6", linestyle=":", linewidth=1)        # uniform, for reference
        self.controls = {f"s{i}": widgets.FloatSlider(value=v, min=-5, max=5, step=0.1,
                                                      description=_("score {i}").format(i=i))
                         for i, v in enumerate(scores, 1)}
        self.controls["T"] = widgets.FloatLogSlider(value=temperature, base=10, min=-2, max=2, step=0.05,
                                                    description="T")
        self.title = plotting.live_title(self.ax)
        # What a move changes: the bars and the title.
        self.panel = panels.Panel(fig, self.controls, self.update, moving=[*self.bars, self.title],
                                  name="softmax-warm-up")

    def update(self, s1, s2, s3, T):
        """Set the bars to softmax([s1, s2, s3] / T); returns the weights as text."""
        weights = masked_softmax(torch.tensor([s1, s2, s3], dtype=torch.float64), temperature=T)
        for bar, w in zip(self.bars, weights.tolist()):
            bar.set_height(w)
        self.title.set_text(_("softmax(scores / T), T = {T:.2f}").format(T=T))
        return _("weights: {weights}   (dotted line: 1/3, uniform)").format(
            weights=", ".join(f"{w:.3f}" for w in weights.tolist()))

    @property
    def widget(self):
        return self.panel.widget


def play(*, scores=(1.0, 2.0, 3.0), temperature=1.0):
    """The Play panel of the index (see ``SoftmaxWarmUp``) with these starting values; display it as the
    cell's last value."""
    return SoftmaxWarmUp(scores=scores, temperature=temperature)
