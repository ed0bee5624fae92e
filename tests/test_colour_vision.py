"""Colours the figures use to tell things apart, under colour-vision deficiencies (issue 38, docs/accessibility.md).

Simulation: colorspacious' CVD model (Machado, Oliveira & Fernandes 2009) at severity 100 (dichromacy:
protanopia, deuteranopia, tritanopia). Distance: colorspacious' ``deltaE``, the Euclidean distance in
CAM02-UCS (ΔE'), which is perceptually uniform enough that one threshold holds across hues and
lightnesses (CIE76 on Lab is not). Threshold: ΔE' >= 10 between two colours a figure uses for two
things: about 1 is a just-noticeable difference between large patches, and our colours are 1-2 px
lines, small markers and legend swatches, where designers of colour-blind-safe palettes ask for about
ten times that; the distinct pairs here measure 40-70, the confusable ones 1.6-5.

Text drawn on a colour (a heatmap cell's number) needs a contrast ratio >= 4.5:1 (WCAG 2.1 AA, 1.4.3).

Measured and NOT yet fixed (marked xfail, strict: fixing them changes stored figures in most notebooks,
which must be re-executed; see docs/accessibility.md): the cell numbers on viridis between 0.43 and
0.6 (white, 3.4-4.4:1), and matplotlib's C1/C2/C3 (orange, green, red) under protanopia and
deuteranopia where four series share one axes.
"""
import itertools

import numpy as np
import pytest
from matplotlib import colormaps, colors

from attnlab import plotting

colorspacious = pytest.importorskip("colorspacious")

DEFICIENCIES = ("protanomaly", "deuteranomaly", "tritanomaly")     # at severity 100: the -anopias
MIN_DELTA_E = 10.0
MIN_CONTRAST = 4.5


def simulate(color, deficiency):
    rgb = np.array(colors.to_rgb(color))
    seen = colorspacious.cspace_convert(rgb, {"name": "sRGB1+CVD", "cvd_type": deficiency, "severity": 100}, "sRGB1")
    return np.clip(seen, 0, 1)


def delta_e(a, b, deficiency=None):
    if deficiency is not None:
        a, b = simulate(a, deficiency), simulate(b, deficiency)
    return float(colorspacious.deltaE(colors.to_rgb(a), colors.to_rgb(b), input_space="sRGB1"))


def contrast(a, b):
    """WCAG 2.1's contrast ratio of two colours."""
    def luminance(c):
        c = np.array(colors.to_rgb(c))
        c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def closest_pair(palette, deficiency):
    return min((delta_e(a, b, deficiency), a, b) for a, b in itertools.combinations(palette, 2))


# Colours drawn together for different things, by the figure that does it.
DISTINCT = {
    "line pairs C0/C1 (most two-line figures: e.g. nb02's q·k vs scaled, nb01's fit vs truth)": ["C0", "C1"],
    "nb01: the query's red marker and box against the fit line": ["red", "C0"],
}
NOT_YET = {
    "C0-C3, four series in one axes (nb02's scalings, nb06's curves)": ["C0", "C1", "C2", "C3"],
}


@pytest.mark.parametrize("deficiency", DEFICIENCIES)
@pytest.mark.parametrize("what", sorted(DISTINCT))
def test_colours_a_figure_tells_apart_stay_apart(what, deficiency):
    d, a, b = closest_pair(DISTINCT[what], deficiency)
    assert d >= MIN_DELTA_E, f"{what}: {a} and {b} are {d:.1f} ΔE' apart under {deficiency} (need {MIN_DELTA_E})"


@pytest.mark.xfail(strict=True, reason="C1/C2/C3 (orange, green, red) confusable under protanopia and deuteranopia: "
                                        "not fixed yet (changes stored figures; issue 38)")
@pytest.mark.parametrize("what", sorted(NOT_YET))
def test_four_series_in_one_axes_stay_apart(what):
    worst = min(closest_pair(NOT_YET[what], k) for k in DEFICIENCIES)
    assert worst[0] >= MIN_DELTA_E, f"{what}: {worst[1]} and {worst[2]} are {worst[0]:.1f} ΔE' apart"


@pytest.mark.parametrize("deficiency", DEFICIENCIES)
def test_the_weight_colormap_stays_ordered(deficiency):
    """Weights are read by lightness along the colour bar: under every deficiency the colormap's lightness
    (CAM02-UCS J') rises monotonically and its ends are far apart."""
    cmap = colormaps[plotting.WEIGHT_CMAP]
    xs = np.linspace(0, 1, 64)
    seen = np.array([simulate(cmap(x)[:3], deficiency) for x in xs])
    lightness = colorspacious.cspace_convert(seen, "sRGB1", "CAM02-UCS")[:, 0]
    assert np.all(np.diff(lightness) > 0), f"{plotting.WEIGHT_CMAP} is not monotonic in lightness under {deficiency}"
    assert delta_e(seen[0], seen[-1]) > 50


@pytest.mark.xfail(strict=True, reason="white numbers on viridis cells in (0.43, 0.6] are 3.4-4.4:1: not fixed yet "
                                        "(changes every annotated heatmap; issue 38)")
def test_numbers_on_heatmap_cells_have_a_contrast_of_4_5():
    """Every number plotting.heatmap writes on a cell, for weights 0.00 to 1.00, against its cell's colour."""
    import torch
    from matplotlib.figure import Figure
    values = torch.linspace(0, 1, 101, dtype=torch.float64).reshape(1, 101)
    ax = plotting.heatmap(values, ax=Figure().subplots(), annotate=True, colorbar=False)
    cmap = colormaps[plotting.WEIGHT_CMAP]
    low = [(round(v, 2), round(contrast(cmap(v)[:3], t.get_color()), 2)) for v, t in zip(values[0].tolist(), ax.texts)
           if contrast(cmap(v)[:3], t.get_color()) < MIN_CONTRAST]
    assert len(ax.texts) == 101
    assert not low, f"(cell value, contrast) under {MIN_CONTRAST}:1: {low}"


@pytest.mark.parametrize("deficiency", DEFICIENCIES)
def test_the_column_box_of_nb06_stands_out_of_its_heatmap(deficiency):
    """nb06's Play draws the chosen pair's columns boxed in lime on P's diverging colormap."""
    from attnlab.lessons.nb06_positional_encoding.figures import SIGNED_CMAP
    cmap = colormaps[SIGNED_CMAP]
    nearest = min(delta_e("lime", cmap(x)[:3], deficiency) for x in np.linspace(0, 1, 64))
    assert nearest >= MIN_DELTA_E, f"lime is {nearest:.1f} ΔE' from a colour of the heatmap under {deficiency}"
