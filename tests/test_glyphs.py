"""_glyphs.py: Agg with remembered text layouts and glyph bitmaps must give matplotlib's own Agg
pixels exactly, on first and repeated draws, for rotated, bold, mathtext, unaliased, CJK text."""
from pathlib import Path

import numpy as np
import pytest
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from attnlab import _glyphs, plotting

CJK = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")      # make test-setup installs it


def _figure(canvas_class, dpi):
    fig = Figure(figsize=(7, 3.5), dpi=dpi)
    canvas_class(fig)
    ax1, ax2 = fig.subplots(1, 2)
    plotting.heatmap(np.linspace(0, 1, 16).reshape(4, 4), ax=ax1, x_labels=["cat", "milk", "it", "sat"],
                     y_labels=list("wxyz"), title="weights α, ∑ = 1")
    ax2.plot(np.arange(10), np.arange(10) ** 2)
    ax2.set_title("squares", fontweight="bold")
    ax2.text(1, 60, "rotated 33°", rotation=33)
    if CJK.exists():                                      # a font collection (.ttc), given by file
        ax2.text(1, 40, "注意力汇聚", fontproperties=font_manager.FontProperties(fname=CJK, size=11))
    plain = ax2.text(1, 20, "no antialiasing", fontsize=8)
    plain.set_antialiased(False)
    ax2.set_xlabel(r"$\sqrt{d_k}$ and $\mathrm{softmax}(QK^\top)$")
    ax2.set_ylabel("y label")
    fig.suptitle("a figure title", fontstyle="italic")
    return fig


@pytest.mark.parametrize("dpi", [72, 90, 150])
def test_same_pixels_as_matplotlib_agg_on_first_and_later_draws(dpi):
    reference = _figure(FigureCanvasAgg, dpi)
    cached = _figure(_glyphs.FigureCanvasGlyphCache, dpi)
    assert isinstance(cached.canvas.get_renderer(), _glyphs.GlyphCachingRenderer)
    for _ in range(3):                                   # first draw fills the caches, later ones use them
        reference.canvas.draw()
        cached.canvas.draw()
        np.testing.assert_array_equal(np.asarray(cached.canvas.buffer_rgba()),
                                      np.asarray(reference.canvas.buffer_rgba()))


def test_caches_are_used_and_bounded(monkeypatch):
    fig = _figure(_glyphs.FigureCanvasGlyphCache, 90)
    fig.canvas.draw()
    assert _glyphs._layouts and _glyphs._bitmaps
    monkeypatch.setattr(_glyphs, "_LIMIT", 5)
    _glyphs._layouts.clear()
    _glyphs._bitmaps.clear()
    fig.canvas.draw()
    assert len(_glyphs._layouts) <= 5 and len(_glyphs._bitmaps) <= 5
    reference = _figure(FigureCanvasAgg, 90)
    reference.canvas.draw()
    np.testing.assert_array_equal(np.asarray(fig.canvas.buffer_rgba()), np.asarray(reference.canvas.buffer_rgba()))


def test_supported_on_the_pinned_matplotlib():
    assert _glyphs.SUPPORTED


def test_a_font_family_setting_changed_later_is_followed():
    import matplotlib as mpl
    fig = _figure(_glyphs.FigureCanvasGlyphCache, 90)
    fig.canvas.draw()                                   # fills the caches with DejaVu Sans
    with mpl.rc_context({"font.sans-serif": ["DejaVu Serif"]}):
        cached = _figure(_glyphs.FigureCanvasGlyphCache, 90)
        reference = _figure(FigureCanvasAgg, 90)
        cached.canvas.draw()
        reference.canvas.draw()
        np.testing.assert_array_equal(np.asarray(cached.canvas.buffer_rgba()),
                                      np.asarray(reference.canvas.buffer_rgba()))
