"""Every lesson figure drawn in Chinese has no English text: each lesson's figure functions (one good call
each, from tests/_lesson_calls.py) are drawn in English and in Chinese and their texts compared artist by
artist (tests/_figure_texts.py says what counts as English). The notebooks' stored figures are these
functions' drawings in the notebook's language, so an English word in a Chinese notebook's figure fails
here first; the index's stored thumbnails are checked in tests/lessons/test_nb00_index.py."""
import contextlib
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

import _lesson_calls as calls
from _figure_texts import english_texts, text_artists
from attnlab import i18n

FIGURE_CALLS = [c for c in calls.GOOD if c[2].__module__.endswith(".figures") or c[1].endswith("_figure")]


def given_strings(value):
    """The strings a call passes in (titles, names): a figure may show them as they are."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(given_strings(k) | given_strings(v) for k, v in value.items())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*map(given_strings, value)) if value else set()
    return set()


def drawn_texts(fn, args, kwargs, lang):
    plt.close("all")
    with i18n.language(lang), contextlib.redirect_stdout(io.StringIO()):
        out = calls.call(fn, args, kwargs)
        figs = [plt.figure(n) for n in plt.get_fignums()]
        figs += [f for f in (out if isinstance(out, Figure) else getattr(out, "figure", None),) if f is not None
                 and isinstance(f, Figure) and f not in figs]
        texts = [t for f in figs for t in text_artists(f)]
    plt.close("all")
    return texts


def test_the_calls_cover_every_lesson_with_figures():
    assert {lesson for lesson, *_rest in FIGURE_CALLS} >= {f"nb{n:02d}" for n in range(0, 11)}


@pytest.mark.parametrize("lesson, name, fn, args, kwargs", FIGURE_CALLS, ids=[f"{c[0]}-{c[1]}" for c in FIGURE_CALLS])
def test_a_lesson_figure_drawn_in_chinese_has_no_english_text(lesson, name, fn, args, kwargs):
    en = drawn_texts(fn, args, kwargs, "en")
    zh = drawn_texts(fn, args, kwargs, "zh")
    assert not english_texts(en, zh, given=given_strings((args, kwargs)))


def test_an_english_title_in_a_chinese_figure_is_found():
    def figure():
        fig, ax = plt.subplots()
        ax.set_title(i18n.gettext("attention weights"))          # translated: not found
        ax.set_xlabel("keys (masked)")                             # not through the catalog: found
        ax.set_ylabel("queries")
        return fig
    en, zh = drawn_texts(figure, (), {}, "en"), drawn_texts(figure, (), {}, "zh")
    assert english_texts(en, zh) == [("label", "keys (masked)"), ("label", "queries")]
