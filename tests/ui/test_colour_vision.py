"""Colours the figures use to tell things apart, under colour-vision deficiencies (issue 38, docs/accessibility.md).

Simulation: colorspacious' CVD model (Machado, Oliveira & Fernandes 2009) at severity 100 (dichromacy:
protanopia, deuteranopia, tritanopia). Distance: colorspacious' ``deltaE``, the Euclidean distance in
CAM02-UCS (ΔE'), which is perceptually uniform enough that one threshold holds across hues and
lightnesses (CIE76 on Lab is not). Threshold: ΔE' >= 10 between two colours a figure uses for two
things: about 1 is a just-noticeable difference between large patches, and our colours are 1-2 px
lines, small markers and legend swatches, where designers of colour-blind-safe palettes ask for about
ten times that; the distinct pairs here measure 40-70, the confusable ones 1.6-5.

Text drawn on a colour (a heatmap cell's number) needs a contrast ratio >= 4.5:1 (WCAG 2.1 AA, 1.4.3).

Fixed (issue 38 item 4): the cell numbers are black or white by their WCAG contrast against the cell's
colour (plotting._text_color; before: white up to 0.6 on viridis, 3.4-4.4:1 between 0.43 and 0.6), and
the series colours are plotting.SERIES_COLORS (Okabe-Ito) instead of matplotlib's tab10, whose
C1/C2/C3 (orange, green, red) ran together under protanopia and deuteranopia. The old colours are kept
below as cases that must fail, so the checks can tell.
"""
import itertools

import numpy as np
import pytest
from matplotlib import colormaps, colors

from attnlab.ui import plotting

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
    "line pairs 0/1 (most two-line figures: e.g. nb02's q·k vs scaled, nb01's fit vs truth)":
        list(plotting.SERIES_COLORS[:2]),
    "nb01: the query's red marker and box against the fit line": ["red", plotting.SERIES_COLORS[0]],
    "series 0-4, up to five series in one axes (nb02's scalings, nb06's curves, nb05's words)":
        list(plotting.SERIES_COLORS[:5]),
    "nb11's ablation bars and nb01's landscape: failing (3) against passing (2)":
        [plotting.SERIES_COLORS[3], plotting.SERIES_COLORS[2]],
    "nb12's filter stages: softmax(z) grey, then / T, top-k, top-p":
        ["0.75", plotting.SERIES_COLORS[0], plotting.SERIES_COLORS[2], plotting.SERIES_COLORS[1]],
    "nb12's copying bars: all heads, without the strongest, without the weakest":
        [plotting.SERIES_COLORS[2], plotting.SERIES_COLORS[3], "0.75"],
}
OLD = {
    "matplotlib's tab10 C0-C3, the colours the figures used before": ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"],
    "nb12's filter stages before: grey, C0, C2, C1": ["0.75", "#1f77b4", "#2ca02c", "#ff7f0e"],
    "nb12's copying bars before: C2, C3, C7": ["#2ca02c", "#d62728", "#7f7f7f"],
}


@pytest.mark.parametrize("deficiency", DEFICIENCIES)
@pytest.mark.parametrize("what", sorted(DISTINCT))
def test_colours_a_figure_tells_apart_stay_apart(what, deficiency):
    d, a, b = closest_pair(DISTINCT[what], deficiency)
    assert d >= MIN_DELTA_E, f"{what}: {a} and {b} are {d:.1f} ΔE' apart under {deficiency} (need {MIN_DELTA_E})"


@pytest.mark.parametrize("what", sorted(OLD))
def test_the_old_colours_would_fail(what):
    """The check can fail: tab10's orange, green and red are < 10 ΔE' apart under protanopia/deuteranopia."""
    worst = min(closest_pair(OLD[what], k) for k in DEFICIENCIES)
    assert worst[0] < MIN_DELTA_E


def test_series_colours_are_not_the_old_cycle():
    old = {colors.to_hex(c) for c in OLD["matplotlib's tab10 C0-C3, the colours the figures used before"]}
    assert not old & {colors.to_hex(c) for c in plotting.SERIES_COLORS}


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


def _low_contrast_cells(cmap_name, text_color):
    cmap = colormaps[cmap_name]
    values = np.linspace(0, 1, 101)
    return [(round(v, 2), round(contrast(cmap(v)[:3], text_color(v)), 2)) for v in values
            if contrast(cmap(v)[:3], text_color(v)) < MIN_CONTRAST]


def test_the_old_cell_number_rule_would_fail():
    """The check can fail: white up to 0.6, black above (the rule before) is under 4.5:1 on viridis."""
    assert _low_contrast_cells("viridis", lambda v: "black" if v > 0.6 else "white")


@pytest.mark.parametrize("cmap", [plotting.WEIGHT_CMAP, "RdBu_r", "Greys", "magma", "cividis", "Blues"])
def test_cell_number_colour_meets_4_5_on_any_colormap(cmap):
    assert not _low_contrast_cells(cmap, lambda v: plotting._text_color(v, 0.0, 1.0, cmap))


def test_numbers_on_heatmap_cells_have_a_contrast_of_4_5():
    """Every number plotting.heatmap writes on a cell, for weights 0.00 to 1.00, against its cell's colour;
    and after update_heatmap with other values."""
    import torch
    from matplotlib.figure import Figure
    values = torch.linspace(0, 1, 101, dtype=torch.float64).reshape(1, 101)
    ax = plotting.heatmap(values.flip(1), ax=Figure().subplots(), annotate=True, colorbar=False)
    plotting.update_heatmap(ax, values)
    cmap = colormaps[plotting.WEIGHT_CMAP]
    low = [(round(v, 2), round(contrast(cmap(v)[:3], t.get_color()), 2)) for v, t in zip(values[0].tolist(), ax.texts)
           if contrast(cmap(v)[:3], t.get_color()) < MIN_CONTRAST]
    assert len(ax.texts) == 101
    assert not low, f"(cell value, contrast) under {MIN_CONTRAST}:1: {low}"


@pytest.mark.parametrize("deficiency", DEFICIENCIES)
def test_the_column_box_of_nb06_stands_out_of_its_heatmap(deficiency):
    """nb06's Play draws the chosen pair's columns boxed in lime, outlined in black, on P's diverging colormap."""
    from attnlab.lessons.nb06_positional_encoding.figures import COLUMN_BOX_COLOUR, COLUMN_BOX_OUTLINE, SIGNED_CMAP
    cmap = colormaps[SIGNED_CMAP]
    for colour in (COLUMN_BOX_COLOUR, COLUMN_BOX_OUTLINE):
        nearest = min(delta_e(colour, cmap(x)[:3], deficiency) for x in np.linspace(0, 1, 64))
        assert nearest >= MIN_DELTA_E, f"{colour} is {nearest:.1f} ΔE' from a colour of the heatmap under {deficiency}"
    assert contrast(COLUMN_BOX_OUTLINE, "white") >= 3.0       # WCAG 1.4.11 against P's near-white cells


def _bar_colours(ax):
    """The face colour of each bar container on ``ax``, as hex, in drawing order (one per container)."""
    return [colors.to_hex(container.patches[0].get_facecolor()) for container in ax.containers]


def test_nb12_figures_draw_the_colours_listed_above():
    """nb12's filter stages and copying bars are drawn with the colours DISTINCT lists for them (so the check above
    measures what the figures draw), and the ablated bar is hatched as well."""
    import torch
    from matplotlib.figure import Figure

    from attnlab.lessons import nb12_gpt as lesson
    from attnlab.lessons.nb12_gpt import corpus
    logits = torch.linspace(-3, 3, len(corpus.vocab()), dtype=torch.float64)
    ax = lesson.filters_figure(logits, temperature=0.8, top_k=10, top_p=0.9, ax=Figure().subplots())
    assert _bar_colours(ax) == [colors.to_hex(c) for c in DISTINCT["nb12's filter stages: softmax(z) grey, then / T, top-k, top-p"]]
    copying = {"all heads": 0.9, "without the 2 strongest": 0.2, "without the 2 weakest": 0.85}
    left, right = lesson.induction_figure(np.full((4, 4), 0.5), copying, axes=Figure().subplots(1, 2))
    bars = right.containers[0].patches
    assert [colors.to_hex(b.get_facecolor()) for b in bars] == [
        colors.to_hex(c) for c in DISTINCT["nb12's copying bars: all heads, without the strongest, without the weakest"]]
    assert [b.get_hatch() for b in bars] == [None, "//", None]
