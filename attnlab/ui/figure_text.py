"""A static figure's text in a notebook: what it shows, in words, instead of "<Figure size 640x340 with 1 Axes>".

A figure a notebook shows (``plt.show()``, or a Figure displayed) is stored as a PNG and a text/plain,
which matplotlib writes as "<Figure size 640x340 with 1 Axes>": what JupyterLab gives a reader where the
picture is not seen (a screen reader's text, a copy, a viewer without images). The dashboards and the
static site give each stored picture a text that says what it shows (the Voila template and
tools/build_site.py: the paragraph above it, as its alt). A kernel cannot read the notebook's prose, so a
figure says it in its own words:

    describe(figure_or_axes, text=None)   the figure's text/plain in a notebook becomes ``text``, or (None)
                                          its own words (``words``) read when it is shown; returns its argument
    words(figure)                         each Axes' title, axis labels, legend entries and colour bar label
    text_of(figure)                       the text a described figure shows (None for any other figure)

The text is written in the language ``describe`` was called in (``attnlab.i18n``). Only figures passed to
``describe`` change; every other figure keeps matplotlib's text. It works through IPython's display
formatter (a printer for matplotlib's Figure, registered in the running shell at the first ``describe``),
so nothing is set on matplotlib's objects and nothing happens outside IPython.
"""
import weakref

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..core import checks
from ..i18n import get_language, gettext as _, language, listed

__all__ = ["describe", "text_of", "words"]

_DESCRIBED = weakref.WeakKeyDictionary()        # Figure -> (text or None for its words, language)


def describe(figure, text=None):
    """Give ``figure`` (a matplotlib Figure, or an Axes of it) a text for its display in a notebook:
    ``text`` (a str), or None for its own words (``words``, read when it is shown). Returns ``figure``."""
    checks.instance(figure, "figure", (Figure, Axes), "a matplotlib Figure or Axes")
    if text is not None:
        checks.string(text, "text", non_empty=True)
    target = figure.get_figure(root=True)            # the Figure that is shown (matplotlib >= 3.10)
    _DESCRIBED[target] = (text, get_language())
    _install()
    return figure


def text_of(figure):
    """The text ``figure`` shows in a notebook, if ``describe`` gave it one; None otherwise."""
    checks.instance(figure, "figure", Figure, "a matplotlib Figure")
    if figure not in _DESCRIBED:
        return None
    text, lang = _DESCRIBED[figure]
    if text is not None:
        return text
    with language(lang):
        return words(figure)


def words(figure):
    """The figure's own words, one line per Axes that has any: its title, its axis labels, the entries of its
    legend (a colour bar: its label), in the current language's punctuation."""
    checks.instance(figure, "figure", Figure, "a matplotlib Figure")
    suptitle = _one_line(figure.get_suptitle())
    lines = [suptitle] if suptitle else []
    for ax in figure.axes:
        if ax.get_label() == "<colorbar>":
            label = ax.get_ylabel() or ax.get_xlabel()
            if label.strip():
                lines.append(_("colour scale: {label}").format(label=_one_line(label)))
            continue
        parts = []
        for name, label in ((_("x axis: {label}"), ax.get_xlabel()), (_("y axis: {label}"), ax.get_ylabel())):
            if label.strip():
                parts.append(name.format(label=_one_line(label)))
        legend = ax.get_legend()
        if legend is not None:
            entries = [_one_line(t.get_text()) for t in legend.get_texts() if t.get_text().strip()]
            if entries:
                parts.append(_("legend: {entries}").format(entries=listed(entries)))
        title = _one_line(ax.get_title())
        if title or parts:
            line = _("; ").join(parts)
            lines.append(_("{title} ({details})").format(title=title, details=line) if title and line else title or line)
    return "\n".join(lines) or repr(figure)


def _one_line(text):
    return " ".join(text.split())


def _pretty(figure, printer, cycle):
    """IPython's text/plain printer for a Figure: its text where ``describe`` gave one, else matplotlib's."""
    printer.text(text_of(figure) or repr(figure))


def _install():
    """Register ``_pretty`` for Figure in the running IPython shell's text/plain formatter (once); nothing
    outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:                    # no IPython: no notebook to show the figure in
        return
    shell = get_ipython()
    if shell is None:
        return
    formatter = shell.display_formatter.formatters["text/plain"]
    if formatter.type_printers.get(Figure) is not _pretty:
        formatter.for_type(Figure, _pretty)
