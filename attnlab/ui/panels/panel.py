"""Live panels: controls wired to a figure that is drawn once and then updated in place.

A panel does no attention maths. The notebook gives it a figure, the controls and an ``update``
callback that reads every control's value, changes the figure's artists (``set_data``,
``update_heatmap``...) and may return a line of text to show under the figure. The panel renders
the figure to PNG bytes in an ``ipywidgets.Image`` (no pyplot, no extra front-end extension, and
it works the same in JupyterLab and Voila), shows any exception from the callback in the panel
instead of losing it, and offers PNG and SVG downloads that work in the browser.
"""
import asyncio
import base64
import contextlib
import html
import io
import re
import time
import traceback

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ...core import checks
from ...i18n import get_language, gettext as _, language, listed
from .. import fonts  # noqa: F401  (the shipped CJK font, behind the default one)
from .png import PNG_SIGNATURE, PngEncoder
from .renderer import Blitter

# A panel where no widget runs (nbviewer, GitHub, nbconvert's HTML): its picture, and its text under it.
_STATIC = ("<div class='attnlab-static-panel'><img alt=\"{alt}\" src='data:image/png;base64,{png}' "
           "style='max-width:100%;height:auto'><pre style='margin:4px 0;white-space:pre-wrap'>{text}</pre></div>")
_TEXT = ("<pre style='margin:0;font-size:12px;font-family:var(--jp-code-font-family, monospace);"
         "white-space:pre'>{}</pre>")
# The figure's accessible name, carried beside the text (hidden: never shown, never read twice); the Voila
# template makes it the image's alt after every move (issue 38).
_NAME = "<span class='attnlab-figure-name' hidden>{}</span>"
__all__ = ["Later", "Panel", "label_of", "new_figure", "widget_bundle"]

PLAN_DELAY = 0.3      # seconds the controls stay still before a panel plans its next blit ahead
# Seconds after a move's first answer (a Later's) before its finish runs in the kernel's event loop: the
# picture is on its way by then, and a move that came meanwhile (a held arrow key repeats every ~33 ms)
# replaces it, so only the last of a run of moves finishes (issue 51).
FINISH_DELAY = 0.05
# A panel whose kernel is gone (issue 28) in JupyterLab, with no front-end extension: when the
# kernel dies (the server restarts it) or is restarted, ipywidgets' manager there (jupyterlab_widgets)
# sets the old models' comm_live false, and every view gets the class "jupyter-widgets-disconnected"
# (measured in JupyterLab 4.6 / ipywidgets 8.1: within 1.3 s of a SIGKILL). The panel's first child
# carries this style and a note: the box is not displayed, and the note has the `hidden` attribute
# (a viewer that drops the <style> hides it too). A disconnected panel shows the note, greys its
# controls and figure, and they take no clicks. Elsewhere (Colab, static viewers, nbconvert) no view
# is marked so, and nothing shows. Voila's page has its own banner and notes (the attnlab template,
# change 6), which hide this note and this greying.
_GONE_STYLE = (
    "<style>"
    ".attnlab-panel > .attnlab-disconnected-note { display: none; }"
    ".attnlab-panel.jupyter-widgets-disconnected > .attnlab-disconnected-note { display: block; height: auto; }"
    ".attnlab-panel.jupyter-widgets-disconnected .attnlab-disconnected-text {"
    " display: block; margin: 4px 0; padding: 4px 10px; white-space: normal;"
    " font: 14px/1.4 var(--jp-ui-font-family, system-ui, sans-serif);"
    " border-left: 4px solid #b00020; background: #fdecee; color: #5c0010; }"
    ".attnlab-panel.jupyter-widgets-disconnected > :not(.attnlab-disconnected-note) {"
    " opacity: .4; filter: grayscale(1); pointer-events: none; user-select: none; }"
    "</style>")
_GONE_NOTE = "<div class='attnlab-disconnected-text' role='status' hidden>{}</div>"


def label_of(control, name):
    """What a learner sees as ``control``'s name: its label (``description``, markup and a trailing colon
    dropped), in the language it was built in; ``name`` (its keyword name) only when it has no label."""
    label = html.unescape(re.sub(r"<[^>]*>", "", getattr(control, "description", None) or ""))
    return label.strip().rstrip(":：").strip() or name


def new_figure(nrows=1, ncols=1, *, figsize=(6, 3.5), dpi=90, **subplot_kw):
    """A matplotlib Figure outside pyplot (so nothing is shown twice) and its axes."""
    fig = Figure(figsize=figsize, dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, **subplot_kw)
    return fig, axes


class Later:
    """What a panel's ``update`` returns to answer a move in two parts (issue 51: a panel that runs a
    model shows something at once, the cheap part first): ``text`` (str or None) goes under the picture
    the update drew, at once; then ``finish()`` runs, once that picture is on its way (in a kernel, in its
    event loop FINISH_DELAY seconds later, dropped if another move came first; elsewhere, and on
    ``Panel.refresh()``, at once), and returns the text that replaces ``text`` (or another ``Later``).
    ``draws``: finish changes the figure's artists too, so the panel draws and sends the picture again.
    The figure and the text under it always describe the same values: the first part's text says
    what is still to come."""

    __slots__ = ("text", "finish", "draws")

    def __init__(self, text, finish, *, draws=False):
        if text is not None:
            checks.string(text, "text")
        checks.function(finish, "finish", "a function finish() -> str, None or a Later")
        checks.flag(draws, "draws")
        self.text, self.finish, self.draws = text, finish, draws


class Panel:
    """Controls above a figure; moving any control calls ``update(**values)`` and redraws.

    Args:
        figure: a matplotlib Figure (see ``new_figure``), drawn once here and updated in place.
        controls: {name: widget with a .value}; the names are the keyword arguments of ``update``.
        update: callback(**values) -> None or a str shown under the figure (e.g. the weights in
            numbers, for readers who can't see colour). It must change artists, not make a figure.
            A ``Later`` instead answers in two parts: its text now, its ``finish()`` after the picture.
        moving: the artists the controls move (images, lines, texts, a colour bar's Axes...), or
            callables returning such artists (asked again at every full draw, e.g. ``lambda: ax.texts``).
            Those are redrawn on a saved picture of the rest; an Axes is redrawn whole (its limits and
            ticks may change). Any other artist that changes makes that refresh a full draw, so a
            missing declaration costs speed, never correctness; nothing declared = full draws.
        name: file name stem for the downloads.
        columns: how many controls per row.
        freeze_layout: lay the figure out on the first draw only, so it does not jump as values change.
        blit: False draws everything on every refresh, whatever is declared.
        describe: callback(**values) -> str, what the figure shows now, for readers who cannot see it
            (the image's accessible name), called after ``update`` (``.summary`` holds its text);
            None (or None from it): the text ``update`` returns.
    The panel remembers the language it was built in (``attnlab.i18n``): every callback, redraw and
    text of its own runs in that language, whatever ``set_language`` chose since.
    Accessibility (docs/accessibility.md): after every move the figure is named by what it shows now
    (``accessible_name``: ``describe``'s text, else the text under the figure), carried in a hidden
    element beside that text (class ``attnlab-figure-name``; ipywidgets 8's ``tooltip`` on an Image
    breaks its view in Voila 0.5's widget manager, measured), which the Voila template makes the
    image's alt; once a move has settled, the template announces in a polite live region of its own what
    changed (the moved control's label and value, and a changed line of the text under the figure,
    class ``attnlab-summary``, or of the name). A FloatLogSlider control gets the class
    ``attnlab-log-base-<base>`` (its handle holds the exponent; the template speaks the value), a
    SelectionSlider ``attnlab-selection-slider`` (its handle holds the option's index). No
    front-end extension: in JupyterLab the text under the figure is the words there are.
    The panel itself is displayable (widget view, plus the current figure as PNG and the text summary
    for viewers without widgets); ``.widget`` is the ipywidgets box.
    """

    def __init__(self, figure, controls, update, *, moving=(), name="figure", columns=2, freeze_layout=True,
                 blit=True, describe=None):
        checks.instance(figure, "figure", Figure, "a matplotlib Figure (see panels.new_figure)")
        checks.instance(controls, "controls", dict, "a dict {name: widget}")
        for key, control in controls.items():
            checks.identifier(key, "controls' names", "names that are keyword arguments of update")
            checks.has(control, f"controls[{key!r}]", ("value", "observe"), "a widget with a .value")
        checks.function(update, "update", "a function update(**values)")
        if describe is not None:
            checks.function(describe, "describe", "a function describe(**values) -> str, or None")
        checks.string(name, "name", non_empty=True)
        checks.count(columns, "columns", low=1)
        checks.flag(freeze_layout, "freeze_layout")
        checks.flag(blit, "blit")
        self.figure = figure
        if not isinstance(figure.canvas, FigureCanvasAgg):
            FigureCanvasAgg(figure)
        self.blitter = Blitter(figure, moving, freeze_layout=freeze_layout) if blit else None
        self.summary = None                                # the text shown under the figure
        self.describe = describe
        self.accessible_name = ""                          # what the figure shows now, in words
        self.controls = dict(controls)
        self.update = update
        self.name = name
        self.freeze_layout = freeze_layout
        self.language = get_language()     # callbacks, redraws and texts stay in the language it was built in
        self.timings = []                  # seconds per refresh: (update, render = draw + PNG encode, draw)
        self._ahead = None                 # the pending call of _plan_ahead (a kernel's event loop only)
        self._later = None                 # the pending call of a Later's finish (a kernel's event loop only)
        self._quiet = []                   # controls whose changes do not refresh (see quietly)
        self._encoder = PngEncoder()
        # Shown at its own pixel size (not stretched by the flex box), shrinking on narrow screens.
        self.image = widgets.Image(format="png", layout=widgets.Layout(
            max_width="100%", height="auto", align_self="flex-start", object_fit="contain"))
        self.text = widgets.HTML(layout=widgets.Layout(margin="0 0 0 8px"))
        self.text.add_class("attnlab-summary")             # what the Voila template announces a move from
        self.error = widgets.HTML()
        self.download = widgets.HTML()
        self.gone = widgets.HTML(_GONE_STYLE + _GONE_NOTE.format(html.escape(_(
            "Controls disabled: the kernel is gone, so this figure no longer follows them. "
            "Restart the kernel and run the cells again."))))
        self.gone.add_class("attnlab-disconnected-note")
        buttons = []
        for fmt in ("png", "svg"):
            b = widgets.Button(description=_("Download {format}").format(format=fmt.upper()), icon="download",
                               layout=widgets.Layout(width="auto"),
                               tooltip=_("Save the figure as {format}").format(format=fmt.upper()))
            b.on_click(lambda _button, fmt=fmt: self._offer_download(fmt))
            buttons.append(b)
        items = list(self.controls.values())
        rows = [widgets.HBox(items[i:i + columns]) for i in range(0, len(items), columns)]
        self.widget = widgets.VBox(
            [self.gone] + rows + [self.image, self.text, self.error, widgets.HBox(buttons + [self.download])],
            layout=widgets.Layout(max_width="1100px"))
        self.widget.add_class("attnlab-panel")
        # which panel this is, for a page's scripts and bench/bench_dashboards.py (each panel's budget)
        self.widget.add_class("attnlab-panel-" + re.sub(r"[^A-Za-z0-9_-]", "-", name))
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
            # what a slider's handle holds, for the Voila template's words (docs/accessibility.md): a log slider's
            # is the exponent (the template speaks base ** exponent), a selection slider's the option's index
            if isinstance(control, widgets.FloatLogSlider):
                control.add_class(f"attnlab-log-base-{control.base:g}")
            elif isinstance(control, widgets.SelectionSlider):
                control.add_class("attnlab-selection-slider")
        self.refresh()

    def declare(self, *moving):
        """Declare more moving artists (as ``moving=`` does); the next refresh draws in full."""
        if self.blitter is not None:
            self.blitter.declare(*moving)

    def values(self):
        return {name: control.value for name, control in self.controls.items()}

    def _on_change(self, change):
        if not any(change["owner"] is control for control in self._quiet):
            with language(self.language):
                self._refresh(defer=True)

    @contextlib.contextmanager
    def quietly(self, *names):
        """Inside the block, changes of ``controls[name]`` for these names do not refresh the panel: for an
        update that sets a control itself (a slider clamped to a new max) and draws with the value it sets,
        so that a move runs the update and draws once."""
        quiet = [self.controls[name] for name in names]
        self._quiet.extend(quiet)
        try:
            yield
        finally:
            del self._quiet[len(self._quiet) - len(quiet):]

    def refresh(self):
        """Run the callback with the current values and show the new figure (or the error), in the
        language the panel was built in; an update's ``Later`` is finished before this returns."""
        with language(self.language):
            self._refresh()

    def _cancel_pending(self):
        for pending in (self._ahead, self._later):
            if pending is not None:
                pending.cancel()
        self._ahead = self._later = None

    def _refresh(self, defer=False):
        """A move: update, draw, send. ``defer``: a ``Later``'s finish runs in the event loop (a move)."""
        self._cancel_pending()
        t0 = time.perf_counter()
        try:
            values = self.values()
            text = self.update(**values)
            later = None
            if isinstance(text, Later):
                later, text = text, text.text
            t1 = time.perf_counter()
            png = self.png()               # drawing can fail too, e.g. on a title with bad mathtext
            if text is not None:
                self.summary = str(text)   # (describe may read it)
        except Exception as exc:  # shown to the learner, not swallowed
            self._failed(exc)
            return
        t2 = time.perf_counter()
        # The picture first: the text, its accessible name and any describe follow in the same move, but
        # nothing a reader of the text waits for delays the picture (issue 51).
        self.image.value = png
        try:
            self._show_text(text, values)
        except Exception as exc:  # a describe that failed: shown as any callback's error
            self._failed(exc)
            return
        self.timings.append((t1 - t0, t2 - t1, self._draw_seconds))
        if later is not None:
            self._finish(later, values, defer)
        if self.blitter is not None and self.blitter.plan is None:
            self._plan_when_still()

    def _failed(self, exc):
        self.error.value = _error_html(exc)
        if self.blitter is not None:
            self.blitter.reset()

    def _show_text(self, text, values):
        """The text under the figure and the figure's accessible name (``describe``'s, else the text), in
        one message; nothing is sent when they did not change (traitlets compares)."""
        if text is not None:
            self.summary = str(text)
        described = self.describe(**values) if self.describe is not None else None
        self.accessible_name = str((described if described is not None else self.summary) or "").strip()
        if text is not None or self.describe is not None:
            self.text.value = (_TEXT.format(html.escape(self.summary)) if self.summary is not None else "") + \
                _NAME.format(html.escape(self.accessible_name))
        self.error.value = ""

    def _finish(self, later, values, defer):
        """Run ``later.finish`` now, or (``defer``, in a kernel's event loop) FINISH_DELAY s from now."""
        if defer:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
            if loop is not None:
                self._later = loop.call_later(FINISH_DELAY, lambda: self._run_later(later, values))
                return
        self._run_later(later, values)

    def _run_later(self, later, values):
        """A move's second part: the Later's finish, the picture again if it draws, the text."""
        self._later = None
        with language(self.language):
            try:
                text = later.finish()
                after = None
                if isinstance(text, Later):
                    after, text = text, text.text
                if later.draws:
                    self.image.value = self.png()
                self._show_text(text, values)
            except Exception as exc:  # shown to the learner, not swallowed
                self._failed(exc)
                return
        if after is not None:
            self._finish(after, values, defer=True)

    def _plan_when_still(self):
        """After a full draw that made no plan (a structural move: a plan costs the draw two or
        three times over, and such moves tend to come in a row), plan the next blit once the
        controls have been still for PLAN_DELAY seconds, in the kernel's event loop, where messages
        are handled (none outside a kernel: the next move then plans). A learner who switches to
        another control after a pause then gets a blit at once."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._ahead = loop.call_later(PLAN_DELAY, self._plan_ahead)

    def _plan_ahead(self):
        self._ahead = None
        try:
            self.blitter.plan_ahead()
        except Exception:  # the next refresh draws in full and shows any error
            self.blitter.reset()

    def png(self):
        """The figure as PNG bytes, fast: draw with Agg (blitted where declared), encode (PngEncoder)."""
        canvas = self.figure.canvas
        if not isinstance(canvas, FigureCanvasAgg):        # e.g. pyplot swapped the canvas
            canvas = FigureCanvasAgg(self.figure)
            if self.blitter is not None:
                self.blitter.reset()
        t0 = time.perf_counter()
        if self.blitter is not None:
            self.blitter.draw()
        else:
            canvas.draw()
            if self.freeze_layout:                           # lay out once; later draws keep positions
                self.figure.set_layout_engine("none")
                self.freeze_layout = False
        self._draw_seconds = time.perf_counter() - t0
        return self._encoder.encode(np.asarray(canvas.buffer_rgba()))

    def export(self, fmt):
        """The figure as bytes in ``fmt`` ("png" at 150 dpi, or "svg")."""
        checks.choice(fmt, "fmt", ("png", "svg"), expected="'png' or 'svg'")
        buf = io.BytesIO()
        self.figure.savefig(buf, format=fmt, dpi=150 if fmt == "png" else None)
        if self.blitter is not None:
            self.blitter.reset()           # that draw, at another dpi, moved ticks and texts: start over
        return buf.getvalue()

    def _offer_download(self, fmt):
        mime = "image/png" if fmt == "png" else "image/svg+xml"
        with language(self.language):
            data = base64.b64encode(self.export(fmt)).decode("ascii")
            save = _("Save {file}").format(file=f"{html.escape(self.name)}.{fmt}")
        self.download.value = (f'<a download="{html.escape(self.name)}.{fmt}" href="data:{mime};base64,{data}" '
                               f'class="attnlab-download">{save}</a>')

    def _repr_mimebundle_(self, **kwargs):
        """The widget view, and for viewers without widgets (GitHub, nbviewer, a static site) the
        current figure as PNG and a text form: the panel's name, its controls as the learner sees them
        (their labels, ``label_of``) and the text summary, in the panel's language."""
        with language(self.language):
            text = _("Live panel '{name}' with controls: {controls}").format(
                name=self.name, controls=listed(label_of(c, key) for key, c in self.controls.items()))
        if self.summary:
            text += "\n" + self.summary
        return widget_bundle(self.widget, text, bytes(self.image.value) or None, alt=self.accessible_name)


def widget_bundle(widget, text, png=None, *, alt=None):
    """The display bundle of ``widget`` as ipywidgets 7 and 8 both write it: the widget view
    (protocol 2, the widget's model id), ``text`` as text/plain for viewers without widgets, and
    ``png`` (PNG bytes, e.g. the current figure) when given: as image/png, and as text/html (the
    picture with ``text`` under it), since a static viewer shows only one representation and
    nbconvert/nbviewer pick HTML over PNG. For ``_repr_mimebundle_`` of anything built around a
    widget (a panel, a trainer, a self-check): ipywidgets 7's containers (VBox, HBox) have no
    ``_repr_mimebundle_`` of their own (they display through ``_ipython_display_``), so
    ``self.widget._repr_mimebundle_()`` fails there (Colab). ``alt``: the stored picture's alt text (a
    panel's ``accessible_name``: what the figure shows); without it (or empty), ``text``'s first line."""
    checks.instance(widget, "widget", widgets.DOMWidget, "a live ipywidgets widget (e.g. a VBox)")
    checks.has(widget, "widget", ("model_id",), "a live ipywidgets widget (e.g. a VBox), not a closed one")
    checks.string(text, "text")
    if alt is not None:
        checks.string(alt, "alt")
    bundle = {"text/plain": text}
    if png is not None:
        checks.instance(png, "png", (bytes, bytearray, memoryview), "PNG bytes or None")
        if bytes(png[:8]) != PNG_SIGNATURE:
            raise checks.error("png", "PNG bytes (starting with the PNG signature)", repr(bytes(png[:8])))
        bundle["image/png"] = base64.b64encode(bytes(png)).decode("ascii")
        bundle["text/html"] = _STATIC.format(alt=html.escape(alt.strip() if alt and alt.strip() else text.split("\n", 1)[0], quote=True),
                                             png=bundle["image/png"], text=html.escape(text))
    bundle["application/vnd.jupyter.widget-view+json"] = {
        "version_major": 2, "version_minor": 0, "model_id": widget.model_id}
    return bundle


def _error_html(exc):
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-3))
    details = _("details")
    return (f"<div style='color:#b00020'><b>{html.escape(type(exc).__name__)}:</b> {html.escape(str(exc))}"
            f"<details><summary>{details}</summary><pre>{html.escape(tb)}</pre></details></div>")


