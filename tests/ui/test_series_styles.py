"""Highlighted series also differ by line style or marker (issue 38 item 4), on every Play panel.

Every Play panel of every lesson (built from its Play cell's own arguments by tests/_notebook_panels.py,
English notebooks: the Chinese twins' code cells are the same), after its first draw: on each of its axes,
no two line series (matplotlib Line2D with data, not an achromatic reference line) share both a colour
that is the same under a colour-vision deficiency (CAM02-UCS ΔE' < 10 under protanopia, deuteranopia or
tritanopia: the threshold of tests/ui/test_colour_vision.py) and their (line style, marker). Two series that
only colour tells apart are told apart by nobody who does not see that colour.
"""
import itertools
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from matplotlib import colors
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

matplotlib.use("Agg")
colorspacious = pytest.importorskip("colorspacious")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
DEFICIENCIES = ("protanomaly", "deuteranomaly", "tritanomaly")
MIN_DELTA_E = 10.0


def _seen(rgb, deficiency):
    cvd = {"name": "sRGB1+CVD", "cvd_type": deficiency, "severity": 100}
    return np.clip(colorspacious.cspace_convert(np.asarray(rgb), cvd, "sRGB1"), 0, 1)


def same_under_cvd(a, b):
    a, b = colors.to_rgb(a), colors.to_rgb(b)
    return any(colorspacious.deltaE(_seen(a, k), _seen(b, k), input_space="sRGB1") < MIN_DELTA_E
               for k in DEFICIENCIES)


def achromatic(c):
    r, g, b = colors.to_rgb(c)
    return max(r, g, b) - min(r, g, b) < 0.05


def _style(line):
    marker = line.get_marker()
    return (line.get_linestyle() if len(line.get_xdata()) > 1 else "None",
            "None" if marker in (None, "", " ", "None", "none") else marker)


def series(ax):
    return [line for line in ax.get_lines() if isinstance(line, Line2D) and line.get_visible()
            and len(np.atleast_1d(line.get_xdata())) > 0 and not achromatic(line.get_color())]


def confusable_pairs(ax):
    """The pairs of series on ``ax`` told apart by colour alone, and only by a colour some learners do not see."""
    return [(a.get_label(), b.get_label(), a.get_color(), b.get_color(), _style(a))
            for a, b in itertools.combinations(series(ax), 2)
            if _style(a) == _style(b) and colors.to_hex(a.get_color()) != colors.to_hex(b.get_color())
            and same_under_cvd(a.get_color(), b.get_color())]


def test_the_check_can_fail():
    """tab10's green and red, same style: confusable; the same pair dashed against solid, or the
    colour-vision-safe palette's: not."""
    from attnlab.ui import plotting
    ax = Figure().subplots()
    ax.plot([0, 1], [0, 1], color="#2ca02c")
    ax.plot([0, 1], [1, 0], color="#d62728")
    assert len(confusable_pairs(ax)) == 1
    ax.lines[1].set_linestyle("--")
    assert not confusable_pairs(ax)
    ax = Figure().subplots()
    for i, c in enumerate(plotting.SERIES_COLORS[:5]):
        ax.plot([0, 1], [i, i], color=c)
    assert not confusable_pairs(ax)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_play_panels_tell_series_apart_without_colour_vision(notebook):
    from _notebook_panels import play_panels
    bad = []
    for panel in play_panels(notebook):
        for ax in panel.figure.axes:
            bad += [(panel.name, ax.get_title(), *pair) for pair in confusable_pairs(ax)]
    assert not bad, f"series told apart only by colours confusable under a colour-vision deficiency: {bad}"
