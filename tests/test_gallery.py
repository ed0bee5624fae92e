"""gallery.py: every notebook thumbnail draws on the Axes given; the gallery lays them all out."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from attnlab import gallery  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.mark.parametrize("name", sorted(gallery.THUMBNAILS))
def test_each_thumbnail_draws_something(name):
    fig, ax = plt.subplots()
    out = gallery.thumbnail(name, ax=ax)
    assert out is ax
    assert ax.lines or ax.images or ax.patches or ax.texts


def test_gallery_figure_and_default_axes():
    fig = gallery.gallery(columns=4)
    visible = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
    assert [ax.get_title() for ax in visible][:2] == ["01 kernel regression", "02 scoring functions"]
    assert len(visible) == len(gallery.THUMBNAILS)
    assert gallery.thumbnail("06_positional_encoding").images


def test_unknown_thumbnail():
    with pytest.raises(ValueError, match=r"name: expected one of \[.*'01_kernel_regression'.*\], got '99_nothing'"):
        gallery.thumbnail("99_nothing")
