"""Notebook 00's figures: the gallery of stored thumbnails, as a matplotlib figure or as clickable HTML."""
import base64
import html
import math

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import HTML

from ...core import checks
from ...i18n import gettext as _
from .index import CAPTIONS, thumbnail_path, title

__all__ = ["gallery", "gallery_html"]


def _names_and_columns(names, columns):
    """The notebooks to show (default: every one with a caption), each with a stored thumbnail (an unknown
    name fails before anything is drawn), and a column count from 1 to one per notebook."""
    names = list(CAPTIONS) if names is None else list(names)
    for name in names:
        thumbnail_path(name)
    checks.count(columns, "columns", low=1)
    if columns > len(CAPTIONS):
        raise checks.error("columns", f"at most {len(CAPTIONS)} (one per notebook)", columns)
    return names


@checks.arguments(names=checks.Optional(checks.Items(checks.Text())))
def gallery(names=None, *, columns=3):
    """All stored thumbnails in one figure, each titled by its notebook and caption; returns the Figure."""
    names = _names_and_columns(names, columns)
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
    names = _names_and_columns(names, columns)
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
