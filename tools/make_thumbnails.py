"""Draw every lesson's thumbnail and store it for the index (notebook 00).

    python tools/make_thumbnails.py          # rewrite attnlab/lessons/nb00_index/thumbnails/*.png

Run it after changing a lesson's ``thumbnail(ax)``; tests/test_nb00_index.py fails until you do.
"""
import importlib
import io
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from attnlab.lessons.nb00_index import index


def render(name):
    """PNG bytes of lesson ``name``'s thumbnail, drawn the one way the index stores it."""
    lesson = importlib.import_module(f"attnlab.lessons.nb{name}")
    fig, ax = plt.subplots(figsize=index.SIZE_INCHES, dpi=index.DPI, layout="constrained")
    lesson.thumbnail(ax)
    ax.tick_params(labelsize=6)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=index.DPI, metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def main(argv):
    names = argv or list(index.CAPTIONS)
    index.THUMBNAILS.mkdir(exist_ok=True)
    for name in names:
        index.thumbnail_path(name).write_bytes(render(name))
        print("wrote", index.thumbnail_path(name))


if __name__ == "__main__":
    main(sys.argv[1:])
