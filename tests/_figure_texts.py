"""The texts a matplotlib figure draws, and which of them are English in a figure drawn in Chinese
(shared by tests/lessons/test_nb00_index.py, for the stored thumbnails, and tests/notebooks/test_zh_figures.py, for every
lesson figure)."""
import re
import sys
from pathlib import Path

from attnlab import i18n

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import translations

UNITS = {"GiB", "MiB", "KiB", "TiB"}


def text_artists(fig):
    """(role, text) of every text a figure draws, in drawing order; role: title, label, tick, legend, text."""
    fig.canvas.draw()
    out = []
    for ax in fig.axes:
        roles = [("title", [ax.title, ax._left_title, ax._right_title]), ("label", [ax.xaxis.label, ax.yaxis.label]),
                 ("tick", ax.get_xticklabels() + ax.get_yticklabels()), ("text", ax.texts),
                 ("legend", ax.get_legend().get_texts() if ax.get_legend() else [])]
        out += [(role, a.get_text()) for role, artists in roles for a in artists if a.get_text()]
    out += [("text", t.get_text()) for t in fig.texts if t.get_text()]
    out += [("title", fig._suptitle.get_text())] if getattr(fig, "_suptitle", None) and fig._suptitle.get_text() else []
    return out


def english_texts(en, zh, given=()):
    """Texts of a Chinese figure that are English: drawn exactly as in the English figure, and either a
    catalog message that has a translation, or a title, axis label or legend entry with a Latin word (three
    letters or more, not code, a symbol or a unit: tools/translations.py's rules). Tick labels and free texts
    may be the lesson's English data ("the cat drank the milk", dates), and ``given`` texts are the
    caller's (a title passed in)."""
    assert [role for role, _t in en] == [role for role, _t in zh], "the two figures draw different texts"
    found = []
    with i18n.language("zh"):
        for (role, e), (_role, z) in zip(en, zh):
            if e != z or e in given:
                continue
            words = [w for w in re.findall(r"[A-Za-z]{3,}", translations._CODE_LIKE.sub(" ", e))
                     if w not in translations.CODE_WORDS | UNITS]
            if i18n.gettext(e) != e or (role in ("title", "label", "legend") and words):
                found.append((role, e))
    return found
