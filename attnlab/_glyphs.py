"""Agg that remembers text: the same pixels as matplotlib's Agg, with less work per redraw.

A live panel redraws the same words (tick labels, cell values, titles) again and again. Agg lays
out each string with FreeType and renders every glyph each time; here both are remembered:

- the layout of a string, per font properties and dpi;
- each glyph's bitmap, per font, size, dpi, rotation and sub-pixel offset (1/64 px), stored
  relative to its whole-pixel position (FreeType renders a glyph moved by whole pixels to the
  same bitmap, moved by those pixels).

The output is byte-identical to ``RendererAgg`` (tests/test_glyphs.py compares them). This leans
on matplotlib internals of the pinned 3.11 (``_draw_text_glyphs_and_boxes``, ``FT2Font._layout``,
``_render_glyph``, ``FontManager._find_fonts_by_props``, as RendererAgg itself uses); where they are missing, the canvas falls back to plain Agg.
"""
import math

import matplotlib as mpl
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg, get_hinting_flag
from matplotlib.font_manager import fontManager as _fontManager

try:
    from matplotlib.ft2font import FT2Font, RenderMode
    SUPPORTED = all(hasattr(FT2Font, name) for name in ("_layout", "_render_glyph", "_set_transform")) \
        and hasattr(RendererAgg, "_draw_text_glyphs_and_boxes")
except ImportError:  # pragma: no cover - other matplotlib versions
    SUPPORTED = False

_LIMIT = 50_000                    # entries per cache before it starts over (a few tens of MB)
_layouts = {}                      # (string, font properties, dpi, flags, features, language) -> glyphs
_bitmaps = {}                      # (font, size, dpi, glyph, matrix, sub-pixel x, y, flags, aa) -> bitmap


def _font_key(prop):
    """The font files the properties resolve to now (family names depend on rcParams), and size."""
    return (tuple(_fontManager._find_fonts_by_props(prop)), prop.get_size_in_points(),
            mpl.rcParams["text.hinting_factor"], mpl.rcParams["text.kerning_factor"])


class GlyphCachingRenderer(RendererAgg):
    """``RendererAgg`` whose plain text (not mathtext boxes) reuses layouts and glyph bitmaps."""

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if ismath:
            return super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
        features = mtext.get_fontfeatures() if mtext is not None else None
        language = mtext.get_language() if mtext is not None else None
        flags = get_hinting_flag()
        key = (s, _font_key(prop), self.dpi, flags, None if features is None else tuple(features), language)
        glyphs = _layouts.get(key)
        if glyphs is None:
            font = self._prepare_font(prop)
            glyphs = [(item.ft_object, item.glyph_index, item.x, item.y)
                      for item in font._layout(s, flags=flags, features=features, language=language)]
            if len(_layouts) >= _LIMIT:
                _layouts.clear()
            _layouts[key] = glyphs
        size = prop.get_size_in_points()
        self._draw_text_glyphs_and_boxes(
            gc, x, y, angle, ((font, size, index, 0, 1, gx, gy) for font, index, gx, gy in glyphs), [])

    def _draw_text_glyphs_and_boxes(self, gc, x, y, angle, glyphs, boxes):
        # The glyph half of RendererAgg's method, with bitmaps remembered; boxes (mathtext rules)
        # go to the original.
        cos = math.cos(math.radians(angle))
        sin = math.sin(math.radians(angle))
        flags = get_hinting_flag()
        aa = bool(gc.get_antialiased())
        height = self.height
        matrices = {}
        for font, size, index, slant, extend, dx, dy in glyphs:
            matrix = matrices.get((slant, extend))
            if matrix is None:
                matrix = matrices[(slant, extend)] = (
                    0x10000 * np.array([[cos, -sin], [sin, cos]]) @ [[extend, extend * slant], [0, 1]]
                ).round().astype(int)
            tx = round(0x40 * (x + dx * cos - dy * sin))
            ty = round(0x40 * (height - y + dx * sin + dy * cos))
            key = (font.fname, font.face_index, size, self.dpi, index, matrix.tobytes(), tx & 63, ty & 63, flags, aa)
            cached = _bitmaps.get(key)
            if cached is None:
                font.set_size(size, self.dpi)
                font._set_transform(matrix, [tx, ty])
                bitmap = font._render_glyph(index, flags, RenderMode.NORMAL if aa else RenderMode.MONO)
                buffer = np.array(bitmap.buffer, copy=True)
                if not aa:
                    buffer *= 0xff
                cached = (buffer, bitmap.left - (tx >> 6), bitmap.top - (ty >> 6))
                if len(_bitmaps) >= _LIMIT:
                    _bitmaps.clear()
                _bitmaps[key] = cached
            buffer, left, top = cached
            self._renderer.draw_text_image(
                buffer, left + (tx >> 6), int(height) - (top + (ty >> 6)) + buffer.shape[0], 0, gc)
        if boxes:
            super()._draw_text_glyphs_and_boxes(gc, x, y, angle, (), boxes)


class FigureCanvasGlyphCache(FigureCanvasAgg):
    """A ``FigureCanvasAgg`` drawing with ``GlyphCachingRenderer`` (plain Agg if unsupported)."""

    def get_renderer(self):
        if not SUPPORTED:  # pragma: no cover - other matplotlib versions
            return super().get_renderer()
        w, h = self.get_width_height(physical=True)
        key = w, h, self.figure.dpi
        if self._lastKey != key:
            self.renderer = GlyphCachingRenderer(w, h, self.figure.dpi)
            self._lastKey = key
        return self.renderer
