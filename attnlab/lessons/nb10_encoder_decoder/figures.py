"""Notebook 10's index thumbnail (the notebook's figures of heads and families are in ``analysis``, the
Play panel in ``live``)."""

from ...core import checks
from ...ui.plotting import heatmap
from . import data
from .model import decode, pretrained

__all__ = ["EXAMPLE", "thumbnail", "token_label"]

EXAMPLE = "march 7, 1994"                  # the Play's starting date and the thumbnail's


def token_label(token):
    """A decoded token as a tick label: EOS and BOS by name."""
    return {data.EOS: "EOS", data.BOS: "BOS"}.get(token, token)


@checks.arguments(ax=checks.Axes())
def thumbnail(ax):
    """The index's small picture of this notebook: the last layer's cross-attention (mean of the heads)
    of the shipped model decoding "march 7, 1994", drawn into ``ax``."""
    d = decode(pretrained(), EXAMPLE)
    w = d.cross_attention[-1].mean(0)                                     # (steps, S)
    heatmap(w, x_labels=list(d.source), y_labels=[token_label(c) for c in d.tokens], ax=ax, colorbar=False,
            annotate=False, xlabel="", ylabel="")
