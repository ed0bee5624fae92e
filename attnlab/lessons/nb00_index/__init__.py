"""Notebook 00, the index: a gallery of one small picture per notebook.

Each lesson draws its own picture (``attnlab.lessons.nbNN_<stem>.thumbnail(ax)``); the pictures are
stored as PNG files beside this module by ``python tools/make_thumbnails.py``, so the index opens
without running every lesson, and ``tests/test_thumbnails.py`` redraws each one and checks that the
stored file is still exactly what the lesson draws (never a stale screenshot).
"""
import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

THUMBNAILS = Path(__file__).parent / "thumbnails"
SIZE_INCHES, DPI = (2.6, 1.8), 100          # every stored picture: 260 x 180 pixels

# One line under each title: what the small picture shows.
CAPTIONS = {
    "01_kernel_regression": "fits with σ too small, right, too large",
    "02_scoring_functions": "q·k spreads out as d_k grows",
    "03_multi_head_attention": "3 heads, each its own 5×5 weights",
    "04_self_attention_walkthrough": "causal weights: no looking ahead",
    "05_cat_milk_it": "each word (○) → its output (●)",
    "06_positional_encoding": "a sin/cos code for each position",
    "07_masks_and_efficient_attention": "masks: dark = may attend",
    "08_bahdanau_attention": "dates: output × input alignment",
}


def thumbnail_path(name):
    """The stored picture of notebook ``name`` (e.g. "01_kernel_regression")."""
    if name not in CAPTIONS:
        raise ValueError(f"name: expected one of {sorted(CAPTIONS)}, got {name!r}")
    return THUMBNAILS / f"{name}.png"


def title(name):
    """'01_kernel_regression' -> '01 kernel regression'."""
    return name.replace("_", " ")


def gallery(names=None, *, columns=3):
    """All stored thumbnails in one figure, each titled by its notebook and caption; returns the Figure."""
    names = list(CAPTIONS) if names is None else list(names)
    for name in names:
        thumbnail_path(name)                                  # unknown names fail before drawing
    if not isinstance(columns, int) or isinstance(columns, bool) or columns < 1:
        raise ValueError(f"columns: expected a whole number >= 1, got {columns!r}")
    rows = max(1, math.ceil(len(names) / columns))
    fig, axes = plt.subplots(rows, columns, figsize=(3.4 * columns, 2.4 * rows), layout="constrained",
                             squeeze=False)
    for ax, name in zip(np.ravel(axes), names):
        ax.imshow(plt.imread(thumbnail_path(name)), interpolation="antialiased")
        ax.set_axis_off()
        ax.set_title(f"{title(name)}\n{CAPTIONS[name]}", fontsize=9)
    for ax in np.ravel(axes)[len(names):]:
        ax.set_visible(False)
    return fig
