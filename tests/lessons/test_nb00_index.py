"""The index's gallery: a stored thumbnail per notebook and language, each exactly what its lesson draws
today in that language; a Chinese thumbnail has no English text, and each edition's index shows its own."""
import base64
import importlib
import io
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import nbformat
import numpy as np
import pytest

from attnlab import i18n
from attnlab.lessons import nb00_index
from attnlab.lessons.nb00_index import figures, index, live

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import make_thumbnails
from _figure_texts import english_texts, text_artists


def test_every_notebook_in_the_folder_has_a_caption_and_a_stored_thumbnail():
    names = {p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")} - {"00_index"}
    assert names == set(index.CAPTIONS)
    for name in names:
        for lang in i18n.LANGUAGES:
            assert index.thumbnail_path(name, lang).is_file(), f"run python tools/make_thumbnails.py {name}"


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("name", sorted(index.CAPTIONS))
def test_stored_thumbnail_is_exactly_what_the_lesson_draws(name, lang):
    stored = plt.imread(index.thumbnail_path(name, lang))
    fresh = plt.imread(io.BytesIO(make_thumbnails.render(name, lang)))
    assert stored.shape == fresh.shape == (180, 260, 4)
    assert np.array_equal(stored, fresh), f"stale thumbnail: run python tools/make_thumbnails.py {name}"


def test_the_thumbnail_path_follows_the_language_in_force():
    with i18n.language("zh"):
        assert index.thumbnail_path("05_cat_milk_it") == index.THUMBNAILS / "zh" / "05_cat_milk_it.png"
    assert index.thumbnail_path("05_cat_milk_it") == index.THUMBNAILS / "05_cat_milk_it.png"
    assert index.thumbnail_path("05_cat_milk_it", "zh") != index.thumbnail_path("05_cat_milk_it", "en")


@pytest.mark.parametrize("name", sorted(index.CAPTIONS))
def test_a_chinese_thumbnail_has_no_english_text(name):
    en, zh = make_thumbnails.draw(name, "en"), make_thumbnails.draw(name, "zh")
    try:
        assert not english_texts(text_artists(en), text_artists(zh))
    finally:
        plt.close(en)
        plt.close(zh)


def test_the_english_text_check_finds_an_untranslated_title_and_catalog_message():
    en = [("title", "attention weights"), ("tick", "cat"), ("label", "query"), ("text", "weight")]
    zh = [("title", "attention weights"), ("tick", "cat"), ("label", "查询"), ("text", "weight")]
    assert english_texts(en, zh) == [("title", "attention weights"), ("text", "weight")]
    assert english_texts([("label", "d_k = 4")], [("label", "d_k = 4")]) == []


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_each_editions_index_shows_the_thumbnails_drawn_in_its_language(lang):
    path = ROOT / "notebooks" / ("zh/" if lang == "zh" else "") / "00_index.ipynb"
    stored = " ".join(o.get("data", {}).get("text/html", "") for c in nbformat.read(path, as_version=4).cells
                      if c.cell_type == "code" for o in c.get("outputs", []))
    for name in index.CAPTIONS:
        png = base64.b64encode(index.thumbnail_path(name, lang).read_bytes()).decode("ascii")
        assert png in stored, f"{path.name} ({lang}): re-execute it; its gallery does not show {name}'s {lang} picture"


@pytest.mark.parametrize("name", sorted(index.CAPTIONS))
def test_each_lesson_draws_its_own_thumbnail(name):
    lesson = importlib.import_module(f"attnlab.lessons.nb{name}")
    fig, ax = plt.subplots()
    lesson.thumbnail(ax)
    assert ax.lines or ax.images or ax.patches or ax.texts
    plt.close(fig)


def test_gallery_hides_spare_axes_and_titles_each_picture():
    fig = figures.gallery(["01_kernel_regression", "06_positional_encoding"], columns=3)
    assert [ax.get_visible() for ax in fig.axes] == [True, True, False]
    assert fig.axes[0].get_title() == "01 kernel regression\nfits with σ too small, right, too large"
    plt.close(fig)


@pytest.mark.parametrize("call,match", [
    (lambda: figures.gallery(["09_nope"]), r"name: expected one of \[.*\], got '09_nope'"),
    (lambda: figures.gallery(columns=0), r"columns: expected an int >= 1, got 0"),
    (lambda: index.thumbnail_path("x"), r"name: expected one of .*got 'x'"),
    (lambda: index.thumbnail_path("05_cat_milk_it", "fr"), r"lang: expected one of 'en', 'zh', got 'fr'"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_gallery_html_links_every_notebook_and_embeds_its_picture():
    import base64
    import re
    page = figures.gallery_html(columns=4).data
    links = re.findall(r'<a class="attnlab-thumb" href="([^"]+)"', page)
    assert links == [f"{name}.ipynb" for name in index.CAPTIONS]
    pictures = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert [base64.b64decode(p) for p in pictures] == [index.thumbnail_path(n).read_bytes() for n in index.CAPTIONS]
    assert "repeat(4," in page and "q·k spreads out as d_k grows" in page
    assert 'alt="05 cat milk it: each word (○) → its output (●)"' in page
    with pytest.raises(TypeError, match="columns: expected an int, got bool"):
        figures.gallery_html(columns=True)
    with pytest.raises(ValueError, match="name: expected one of"):
        figures.gallery_html(["nope"])


def test_softmax_warm_up_bars_are_the_softmax():
    import torch
    play = live.SoftmaxWarmUp()
    text = play.update(s1=1.0, s2=2.0, s3=3.0, T=0.5)
    ref = torch.softmax(torch.tensor([2.0, 4.0, 6.0], dtype=torch.float64), dim=0)   # scores / T by hand
    assert [b.get_height() for b in play.bars] == pytest.approx(ref.tolist(), rel=1e-12)
    assert text.startswith("weights: " + ", ".join(f"{w:.3f}" for w in ref.tolist()))
    play.update(s1=2.0, s2=2.0, s3=2.0, T=0.01)                                     # equal scores: uniform at any T
    assert [b.get_height() for b in play.bars] == pytest.approx([1 / 3] * 3)


def test_play_is_the_warm_up_with_these_starting_values():
    from attnlab.ui.panels import Panel
    play = nb00_index.play(scores=(0.5, -1.0, 2.0), temperature=0.1)
    assert isinstance(play, Panel) and isinstance(play.update.__self__, live.SoftmaxWarmUp)
    assert [play.controls[k].value for k in ("s1", "s2", "s3")] == [0.5, -1.0, 2.0]
    assert play.controls["T"].value == pytest.approx(0.1)
    with pytest.raises(ValueError, match=r"scores: expected at least 3 entries, got 2"):
        nb00_index.play(scores=(1.0, 2.0))
    with pytest.raises(ValueError, match=r"scores: expected at most 3 entries, got 4"):
        nb00_index.play(scores=(1.0, 2.0, 3.0, 4.0))
    with pytest.raises(ValueError, match=r"temperature: expected a number <= 100, got 1000"):
        nb00_index.play(temperature=1000.0)
    with pytest.raises(TypeError, match="too many positional arguments"):
        nb00_index.play((1.0, 2.0, 3.0))


def test_the_package_exports_what_the_notebook_uses():
    assert nb00_index.__all__ == ["gallery_html", "play"]
