"""attnlab.ui.figure_text: a described figure's text/plain in a notebook says what it shows (issue 49)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest
from IPython.core.interactiveshell import InteractiveShell
from matplotlib.figure import Figure

import attnlab
from attnlab.i18n import language
from attnlab.ui import figure_text
from attnlab.ui.figure_text import describe, text_of, words


@pytest.fixture(autouse=True)
def english_after():
    yield
    attnlab.set_language("en")


def _figure():
    fig, (ax, other) = plt.subplots(1, 2)
    ax.plot([0, 1], [1, 0], label="first copy")
    ax.plot([0, 1], [0, 1], label="second copy")
    ax.set(title="Loss per position", xlabel="place\nin the copy", ylabel="loss (nats)")
    ax.legend()
    image = other.imshow([[0, 1], [1, 0]])
    fig.colorbar(image, ax=other, label="weight")
    return fig, ax


def test_words_are_the_titles_labels_legends_and_colour_bar_of_each_axes():
    fig, _ax = _figure()
    assert words(fig) == ("Loss per position (x axis: place in the copy; y axis: loss (nats); "
                          "legend: first copy, second copy)\ncolour scale: weight")
    fig.suptitle("Two panels")
    assert words(fig).split("\n")[0] == "Two panels"
    plt.close(fig)


def test_words_in_chinese_take_chinese_punctuation():
    fig, _ax = _figure()
    with language("zh"):
        text = words(fig)
    assert text == ("Loss per position（横轴：place in the copy；纵轴：loss (nats)；图例：first copy、second copy）\n"
                    "颜色刻度：weight")
    plt.close(fig)


def test_a_figure_without_words_keeps_matplotlibs_text():
    fig = Figure(figsize=(2, 1))
    fig.subplots().plot([0, 1])
    assert words(fig) == repr(fig) and repr(fig).startswith("<Figure size")


def test_describe_keeps_a_text_or_the_words_in_the_language_it_was_called_in():
    fig, ax = _figure()
    assert text_of(fig) is None
    with language("zh"):
        assert describe(ax) is ax                       # an Axes names its figure; its words are read later
    ax.set_title("Changed later")
    assert text_of(fig).startswith("Changed later（横轴")
    assert describe(fig, "the loss falls in the second copy") is fig
    assert text_of(fig) == "the loss falls in the second copy"
    plt.close(fig)


@pytest.mark.parametrize("args, error, message", [
    (("a figure",), TypeError, r"figure: expected a matplotlib Figure or Axes, got str"),
    ((Figure(), 3), TypeError, r"text: expected a str, got int"),
    ((Figure(), "  "), ValueError, r"text: expected a non-empty str, got '  '"),
])
def test_bad_arguments_are_named(args, error, message):
    with pytest.raises(error, match=message):
        describe(*args)


def test_text_of_wants_a_figure():
    with pytest.raises(TypeError, match=r"figure: expected a matplotlib Figure, got NoneType"):
        text_of(None)


def test_in_ipython_a_described_figure_displays_its_text_and_others_matplotlibs():
    shell = InteractiveShell.instance()
    fig, ax = _figure()
    plain = Figure(figsize=(2, 1))
    plain.subplots()
    describe(fig, "what it shows")
    describe(fig, "what it shows")                      # the printer is registered once
    data, _metadata = shell.display_formatter.format(fig)
    assert data["text/plain"] == "what it shows"
    assert shell.display_formatter.format(plain)[0]["text/plain"].startswith("<Figure size 200x100")
    formatter = shell.display_formatter.formatters["text/plain"]
    assert formatter.type_printers[Figure] is figure_text._pretty
    plt.close(fig)
