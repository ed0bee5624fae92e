"""Text drawn in figures has a contrast of at least 4.5:1 against what it is drawn on (WCAG 2.1 AA 1.4.3;
issue 38 item 4, docs/accessibility.md).

Which figures: every lesson's static figure functions (tests/_lesson_calls.py's calls of a lesson's
``figures`` module or of a ``*_figure`` function, the calls tests/notebooks/test_zh_figures.py draws; notebooks 11 and
12, which that file does not cover, below with inputs of the shapes their notebooks pass) and every Play
panel of every notebook (tests/_notebook_panels.play_panels, English notebooks: colours do not depend on the
language), after their first draw.

Which texts: every ``matplotlib.text.Text`` of the figure (``fig.findobj``: titles, axis labels, tick labels,
legend texts, annotations, free texts, figure texts) that is visible, has non-blank text and was drawn in
the last ``canvas.draw()`` (a tick label of a tick outside the view is a Text that is not drawn).

Against what: the text's bbox patch's face colour if it has one; else the legend's frame for a legend text;
else its Axes' face colour; else (figure text, or an Axes with no face) the figure's; each composed with its
alpha over what lies under it, the figure over white. A text whose anchor lies inside an image's extent on
its Axes (a heatmap cell, a pattern) is measured against that image's colour at the anchor, except the
numbers ``plotting.heatmap`` writes in its cells (told by identity: they are the Texts listed in
``plotting.heatmap_state(ax).cells``), which tests/ui/test_colour_vision.py checks against their cell for
every value and several colormaps.
"""
import contextlib
import functools
import io
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib import colors
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.legend import Legend
from matplotlib.text import Text

from attnlab.ui import plotting

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
import _lesson_calls as calls

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MIN_CONTRAST = 4.5


def luminance(rgb):
    c = np.asarray(rgb, dtype=float)[:3]
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2])


def contrast(a, b):
    """WCAG 2.1's contrast ratio of two opaque colours."""
    hi, lo = sorted((luminance(colors.to_rgb(a)), luminance(colors.to_rgb(b))), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def over(color, under, alpha=None):
    """``color`` (with its alpha, or ``alpha`` if given) composed over the opaque ``under``."""
    r, g, b, a = colors.to_rgba(color)
    a = a if alpha is None else a * alpha
    return tuple(a * np.array((r, g, b)) + (1 - a) * np.array(colors.to_rgb(under)))


def _face(patch, under):
    return over(patch.get_facecolor(), under, patch.get_alpha()) if patch.get_visible() else under


def _legend_of(text, fig):
    for legend in fig.findobj(Legend):
        if any(text is t for t in legend.get_texts()) or text is legend.get_title():
            return legend
    return None


def _image_colour(ax, text):
    """The colour of the image under ``text``'s anchor on ``ax`` (None where no image lies under it)."""
    if text.get_transform() != ax.transData:
        return None
    x, y = text.get_position()
    for image in ax.get_images()[::-1]:
        if not isinstance(image, AxesImage) or not image.get_visible():
            continue
        left, right, bottom, top = image.get_extent()
        if min(left, right) <= x <= max(left, right) and min(bottom, top) <= y <= max(bottom, top):
            data = np.asarray(image.get_array())
            rows, cols = data.shape[:2]
            col = min(int((x - left) / (right - left) * cols), cols - 1)
            row = min(int((y - top) / (bottom - top) * rows), rows - 1) if image.origin == "upper" else \
                min(int((y - bottom) / (top - bottom) * rows), rows - 1)
            return image.to_rgba(data[row, col])[:3] if data.ndim == 2 else data[row, col][:3]
    return None


def drawn_texts(fig):
    """The Texts of ``fig`` drawn by one ``canvas.draw()`` (visible ones, in the view), in drawing order."""
    drawn, original = [], Text.draw

    def recording(self, renderer):
        drawn.append(self)
        return original(self, renderer)

    if not hasattr(fig.canvas, "get_renderer"):      # a Figure() of its own: FigureCanvasBase draws nothing
        FigureCanvasAgg(fig)
    Text.draw = recording
    try:
        fig.canvas.draw()
    finally:
        Text.draw = original
    every = {id(t) for t in fig.findobj(Text)}
    return [t for t in dict.fromkeys(drawn) if id(t) in every and t.get_visible() and t.get_text().strip()]


def low_contrast_texts(fig, where=""):
    """(where, text, colour, background, ratio) of every drawn text of ``fig`` under MIN_CONTRAST."""
    paper = over(fig.patch.get_facecolor(), "white", fig.patch.get_alpha())
    found = []
    for text in drawn_texts(fig):
        ax = text.axes
        if ax is not None and any(text is cell for cell in _heatmap_cells(ax)):
            continue                                  # checked per cell by tests/ui/test_colour_vision.py
        under = _face(ax.patch, paper) if ax is not None else paper
        legend = _legend_of(text, fig)
        image = _image_colour(ax, text) if ax is not None and legend is None else None
        if text.get_bbox_patch() is not None:
            under = _face(text.get_bbox_patch(), under)
        elif legend is not None:
            under = _face(legend.legendPatch, under)
        elif image is not None:
            under = image
        colour = over(text.get_color(), under, text.get_alpha())
        if colors.to_rgba(text.get_color())[3] * (1 if text.get_alpha() is None else text.get_alpha()) == 0:
            continue                                  # drawn fully transparent ("none": a text that only takes room)
        ratio = contrast(colour, under)
        if ratio < MIN_CONTRAST:
            found.append((where, text.get_text(), colors.to_hex(text.get_color()), colors.to_hex(under), round(ratio, 2)))
    return found


def _heatmap_cells(ax):
    try:
        return plotting.heatmap_state(ax).cells
    except ValueError:
        return []


# ---- the figures ------------------------------------------------------------------------------------------

FIGURE_CALLS = [c for c in calls.GOOD if c[2].__module__.endswith(".figures") or c[1].endswith("_figure")]


def _late_calls():
    """Notebooks 11 and 12's figure functions (not in tests/_lesson_calls.py), called with the arguments their
    notebooks pass, in made-up values of the same shapes and keys."""
    from attnlab.lessons import nb11_induction_heads as nb11, nb12_gpt as nb12
    from attnlab.lessons.nb12_gpt import corpus
    steps = list(range(0, 2000, 100))
    acc = np.clip(np.linspace(-0.5, 1.2, len(steps)), 0, 1).tolist()
    scores = np.linspace(0, 1, len(steps) * 4).reshape(len(steps), 2, 2).tolist()
    curves = {"step": steps, "loss": np.linspace(3, 0.5, len(steps)).tolist(), "accuracy": acc,
              "previous_token": scores, "induction": scores}
    lengths = {str(L): min(1.0, 0.3 + L / 20) for L in range(4, 24, 2)}
    v = len(corpus.vocab())
    return [
        ("nb11", "loss_figure", nb11.loss_figure, (np.linspace(3, 2.5, 15), np.linspace(3, 0.2, 15)), {}),
        ("nb11", "patterns_figure", nb11.patterns_figure, ([np.full((17, 17), 0.3), np.eye(17)],),
         {"length": 8, "titles": ["layer 1", "layer 2"]}),
        ("nb11", "training_figure", nb11.training_figure, (curves,), {}),
        ("nb11", "scores_figure", nb11.scores_figure, ([[0.9, 0.1], [0.1, 0.2]], [[0.0, 0.1], [0.8, 0.3]]), {}),
        ("nb11", "k_composition_figure", nb11.k_composition_figure, ([[0.6, 0.1], [0.05, 0.3]],), {}),
        ("nb11", "ablation_figure", nb11.ablation_figure, ({"0.0": 0.2, "0.1": 0.97, "1.0": 0.3, "1.1": 0.98},),
         {"intact": 0.99}),
        ("nb11", "length_figure", nb11.length_figure, ({"trained on L = 6…16": lengths, "learned positions": lengths},), {}),
        ("nb12", "training_figure", nb12.training_figure, (100, [3.0, 2.6, 2.4, 2.3], {"bigram": 3.2, "unigram": 4.3}), {}),
        ("nb12", "filters_figure", nb12.filters_figure, (np.linspace(-3, 3, v),),
         {"temperature": 0.8, "top_k": 10, "top_p": 0.9}),
        ("nb12", "induction_figure", nb12.induction_figure, (np.full((4, 4), 0.5),
         {"all heads": 0.9, "without the 2 strongest": 0.2, "without the 2 weakest": 0.85}), {}),
        ("nb12", "timing_figure", nb12.timing_figure, ([16, 32, 64, 128], [0.01, 0.01, 0.012, 0.013],
         [0.01, 0.02, 0.04, 0.08]), {}),
        ("nb12", "cache_figure", nb12.cache_figure, ({4: 4096, 2: 2048, 1: 1024}, {4: 2.2, 2: 2.25, 1: 2.3}),
         {"context": 128, "length": 128, "bigram": 3.2, "selected": 2}),
        ("nb12", "patterns_figure", nb12.patterns_figure, (np.full((4, 24, 24), 1 / 24),),
         {"kv_heads": 1, "labels": list("the cat sat on the mat. ")}),
    ] + _long_context_calls()


@functools.cache
def _long_context_calls():
    """Notebooks 13 and 14's figure functions, called as their notebooks call them, on their shipped results
    (and, for 13's sink figure and 14's counting figure, their shipped models' weights)."""
    from attnlab.lessons import nb13_long_context as nb13, nb14_length_generalisation as nb14
    m13, m14 = nb13.measured(), nb14.measured()
    sinks, streaming = m13["sinks"], m13["sinks"]["streaming"]
    b = nb13.sink_batch(1, seed=7)
    weights = nb13.windowed_logits(nb13.sink_model(), b.tokens[:, :-1], window=64, need_weights=True)[1][0][0]
    course, tuned, converted = nb13.latent_points()
    return [
        ("nb13", "receptive_figure", nb13.receptive_figure, (nb13.receptive_field(4, 3, 24), 4), {}),
        ("nb13", "ring_figure", nb13.ring_figure, (6, 2, 11), {}),
        ("nb13", "bytes_figure", nb13.bytes_figure, (16384, 64, 1024), {"context": 256}),
        ("nb13", "sink_figure", nb13.sink_figure, (weights, b.trigger[0, :-1]), {}),
        ("nb13", "sink_training_figure", nb13.sink_training_figure,
         (25, sinks["first-token weight every 25 steps"], 10, sinks["loss every 10 steps"]), {}),
        ("nb13", "streaming_figure", nb13.streaming_figure,
         (streaming["full"], streaming["evicted"], streaming["kept"], streaming["window"]), {}),
        ("nb13", "spectrum_figure", nb13.spectrum_figure, (nb13.latent_spectrum(nb13.gpt()), 32), {}),
        ("nb13", "latent_figure", nb13.latent_figure, (course, tuned), {"converted": converted}),
        ("nb14", "curves_figure", nb14.curves_figure, (m14,), {}),
        ("nb14", "interpolation_figure", nb14.interpolation_figure, (m14,), {}),
        ("nb14", "angles_figure", nb14.angles_figure, (), {}),
        ("nb14", "alibi_figure", nb14.alibi_figure, (), {}),
        ("nb14", "counting_figure", nb14.counting_figure,
         (nb14.first_token_weights(nb14.pretrained("nope", "copy"), 40)[0],), {}),
    ]


def _figures(fn, args, kwargs):
    plt.close("all")
    with contextlib.redirect_stdout(io.StringIO()):
        out = calls.call(fn, args, kwargs)
    figs = [plt.figure(n) for n in plt.get_fignums()]
    for o in (out if isinstance(out, (list, tuple, np.ndarray)) else [out]):
        f = o if isinstance(o, Figure) else getattr(o, "figure", None)
        if isinstance(f, Figure) and f not in figs:
            figs.append(f)
    return figs


def test_the_calls_cover_every_lesson_figure_function():
    """Every ``*_figure`` a lesson exports (its ``__all__``) is drawn here."""
    import importlib
    import pkgutil

    import attnlab.lessons as lessons
    assert len(_late_calls()) == LATE_CALLS
    drawn = {(c[0], c[1]) for c in FIGURE_CALLS} | {(c[0], c[1]) for c in _late_calls()}
    missing = []
    for m in pkgutil.iter_modules(lessons.__path__):
        module = importlib.import_module(f"attnlab.lessons.{m.name}")
        missing += [(m.name[:4], n) for n in getattr(module, "__all__", ()) if n.endswith("_figure")
                    and (m.name[:4], n) not in drawn]
    assert not missing


@pytest.mark.parametrize("lesson, name, fn, args, kwargs", FIGURE_CALLS, ids=[f"{c[0]}-{c[1]}" for c in FIGURE_CALLS])
def test_text_in_a_lesson_figure_has_a_contrast_of_4_5(lesson, name, fn, args, kwargs):
    low = [t for f in _figures(fn, args, kwargs) for t in low_contrast_texts(f, f"{lesson}.{name}")]
    plt.close("all")
    assert not low, f"(figure, text, colour, background, ratio) under {MIN_CONTRAST}:1: {low}"


LATE_CALLS = 26       # len(_late_calls()): test_the_calls_cover_every_lesson_figure_function checks it


@pytest.mark.parametrize("index", range(LATE_CALLS), ids=lambda i: f"late-{i}")
def test_text_in_a_late_lesson_figure_has_a_contrast_of_4_5(index):
    lesson, name, fn, args, kwargs = _late_calls()[index]
    low = [t for f in _figures(fn, args, kwargs) for t in low_contrast_texts(f, f"{lesson}.{name}")]
    plt.close("all")
    assert not low, f"(figure, text, colour, background, ratio) under {MIN_CONTRAST}:1: {low}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_text_in_a_play_panel_has_a_contrast_of_4_5(notebook):
    from _notebook_panels import play_panels
    low = []
    for panel in play_panels(notebook):
        low += low_contrast_texts(panel.figure, f"{notebook.stem}: {panel.name}")
    plt.close("all")
    assert not low, f"(panel, text, colour, background, ratio) under {MIN_CONTRAST}:1: {low}"


def test_the_check_can_fail():
    """Okabe-Ito's orange as text on white is 2.2:1; on its bbox of black it passes; a title in black passes;
    a number in black on a dark image cell fails, and a heatmap's own cell numbers are left to their test."""
    fig = Figure()
    ax = fig.subplots()
    ax.set_title("fine")
    ax.text(0.5, 0.5, "orange", color=plotting.SERIES_COLORS[1])
    ax.text(0.2, 0.2, "boxed", color=plotting.SERIES_COLORS[1], bbox={"facecolor": "black"})
    found = low_contrast_texts(fig)
    assert [(t, c) for _w, t, c, _b, _r in found] == [("orange", "#e69f00")]
    assert found[0][4] < 2.5
    fig = Figure()
    ax = fig.subplots()
    ax.imshow([[0.0, 1.0]], cmap="viridis", vmin=0, vmax=1)
    ax.text(0, 0, "dark", color="black")
    ax.text(1, 0, "light", color="black")
    assert [t for _w, t, *_r in low_contrast_texts(fig)] == ["dark"]
    ax = plotting.heatmap([[0.5, 0.55]], ax=Figure().subplots(), annotate=True, colorbar=False)
    ax.texts[0].set_color("#440154")                  # a cell number: not measured here
    assert not low_contrast_texts(ax.figure)


def test_contrast_is_wcag():
    assert contrast("black", "white") == pytest.approx(21.0)
    assert contrast("#767676", "white") == pytest.approx(4.54, abs=0.01)
    assert over((0, 0, 0, 0.5), "white") == pytest.approx((0.5, 0.5, 0.5))


def test_text_in_nb04s_step_table_with_a_current_and_hidden_rows_has_a_contrast_of_4_5():
    """The step table as the notebook's Play shows it midway: rows before the step black, the current one
    orange and bold, later ones grey "?" (the good call above shows every row, in black)."""
    from attnlab.lessons import nb04_self_attention_walkthrough as nb04
    table = nb04.draw_step_table(nb04.step_table(calls.STEPS04, calls.WORDS6, 0, 3), calls.WORDS6,
                                 ax=Figure().subplots(), current=3)
    low = low_contrast_texts(table.ax.figure, "nb04.draw_step_table(step 3)")
    assert not low, f"(figure, text, colour, background, ratio) under {MIN_CONTRAST}:1: {low}"


def _hue(colour):
    """The hue angle (degrees) in CAM02-UCS, colorspacious' perceptual space (independent of plotting's Lab)."""
    colorspacious = pytest.importorskip("colorspacious")
    _j, a, b = colorspacious.cspace_convert(colors.to_rgb(colour), "sRGB1", "CAM02-UCS")
    return float(np.degrees(np.arctan2(b, a)))


@pytest.mark.parametrize("colour", plotting.SERIES_COLORS + ("0.5", "0.6", "red", "lime"))
def test_text_color_is_the_series_hue_darkened_to_4_5_on_white(colour):
    text = plotting.text_color(colour)
    assert contrast(text, "white") >= MIN_CONTRAST
    if contrast(colour, "white") >= MIN_CONTRAST:
        assert text == colors.to_hex(colour)             # dark enough already: unchanged (blue, black)
        return
    assert contrast(text, "white") < MIN_CONTRAST + 0.25   # darkened no further than needed
    assert luminance(colors.to_rgb(text)) < luminance(colors.to_rgb(colour))
    r, g, b = colors.to_rgb(colour)
    if max(r, g, b) - min(r, g, b) < 0.01:               # a grey stays grey
        r2, g2, b2 = colors.to_rgb(text)
        assert max(r2, g2, b2) - min(r2, g2, b2) < 0.01
    else:                                                # the same hue, within 3 degrees
        assert abs((_hue(text) - _hue(colour) + 180) % 360 - 180) < 3


def test_text_color_of_a_non_colour_is_a_value_error():
    with pytest.raises(ValueError, match=r"color: expected a matplotlib colour such as '#E69F00' or 'C1', got 'nope'"):
        plotting.text_color("nope")
    with pytest.raises(ValueError, match=r"color: expected a matplotlib colour .*, got None"):
        plotting.text_color(None)
