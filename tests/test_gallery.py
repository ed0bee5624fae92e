import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from attnlab import gallery  # noqa: E402


def test_every_notebook_in_the_folder_has_a_thumbnail():
    from pathlib import Path
    names = {p.stem for p in (Path(__file__).parents[1] / "notebooks").glob("0[1-9]_*.ipynb")}
    assert names <= set(gallery.THUMBNAILS)
    assert set(gallery.CAPTIONS) == set(gallery.THUMBNAILS)


@pytest.mark.parametrize("name", sorted(gallery.THUMBNAILS))
def test_thumbnail_draws_something(name):
    ax = gallery.thumbnail(name)
    assert ax.lines or ax.images or ax.patches
    plt.close(ax.figure)


def test_gallery_hides_spare_axes():
    fig = gallery.gallery(["01_kernel_regression", "06_positional_encoding"], columns=3)
    assert [ax.get_visible() for ax in fig.axes if not ax.get_label() == "<colorbar>"][:3] == [True, True, False]
    plt.close(fig)


def test_unknown_name():
    with pytest.raises(ValueError, match="name: expected one of .*got '09_nope'"):
        gallery.thumbnail("09_nope")
