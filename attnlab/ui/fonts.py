"""The CJK font that travels with attnlab, registered with matplotlib behind its default font.

``attnlab/locale/fonts/attnlab-cjk-sc.otf`` is a subset of Noto Sans CJK SC (SIL OFL 1.1, licence in
``OFL.txt`` beside it; built by ``tools/build_font.py``): the Chinese characters of the catalog, the
Chinese notebooks and GB 2312 level 1, and no Latin glyph. Importing this module (the drawing
modules do) adds it to matplotlib's font manager and appends its family to ``rcParams["font.family"]``.
Matplotlib looks a glyph up in each family of that list in turn, so Latin text is drawn by the default
font (DejaVu Sans) exactly as before (tests/ui/test_i18n.py compares the pixels) and only characters the
default font lacks come from this one: the same under pip, conda, Binder, Colab and the static site,
with no system font needed.
"""
from pathlib import Path

from matplotlib import font_manager, rcParams

__all__ = ["FONT_FILE", "BOLD_FILE", "FAMILY", "register"]

FONT_FILE = Path(__file__).parents[1] / "locale" / "fonts" / "attnlab-cjk-sc.otf"
BOLD_FILE = FONT_FILE.with_name("attnlab-cjk-sc-bold.otf")      # the characters in use, for bold titles
FAMILY = "attnlab CJK SC"


def register():
    """Add the font to matplotlib (once) and put its family last in ``font.family``; idempotent."""
    if not any(entry.name == FAMILY for entry in font_manager.fontManager.ttflist):
        font_manager.fontManager.addfont(str(FONT_FILE))
        font_manager.fontManager.addfont(str(BOLD_FILE))
    families = rcParams["font.family"]
    families = [families] if isinstance(families, str) else list(families)
    if FAMILY not in families:
        rcParams["font.family"] = families + [FAMILY]


register()
