"""Draw every lesson's thumbnail in each language and store it for the index (notebook 00).

    python tools/make_thumbnails.py          # rewrite attnlab/lessons/nb00_index/thumbnails/*.png (English)
                                             # and thumbnails/zh/*.png (Chinese)
    python tools/make_thumbnails.py 05_cat_milk_it      # one notebook's, in every language

Run it after changing a lesson's ``thumbnail(ax)`` or a string it draws; tests/lessons/test_nb00_index.py fails
until you do.
"""
import importlib
import io
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from attnlab.i18n import LANGUAGES, language
from attnlab.lessons.nb00_index import index


def draw(name, lang="en"):
    """The Figure of lesson ``name``'s thumbnail in ``lang``, drawn the one way the index stores it."""
    lesson = importlib.import_module(f"attnlab.lessons.nb{name}")
    with language(lang):
        fig, ax = plt.subplots(figsize=index.SIZE_INCHES, dpi=index.DPI, layout="constrained")
        lesson.thumbnail(ax)
        ax.tick_params(labelsize=6)
    return fig


def render(name, lang="en"):
    """PNG bytes of lesson ``name``'s thumbnail in ``lang``."""
    fig = draw(name, lang)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=index.DPI, metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def main(argv):
    names = argv or list(index.CAPTIONS)
    for lang in LANGUAGES:
        for name in names:
            path = index.thumbnail_path(name, lang)
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(render(name, lang))
            print("wrote", path)


if __name__ == "__main__":
    main(sys.argv[1:])
