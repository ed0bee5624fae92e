"""Notebook 08's Play panels: an explorer for a date the learner types (``play``: an ``AlignmentExplorer``, a
Panel that a trainer adds models to), and a trainer that trains a fresh model behind a button and adds it to
that explorer (``play_trainer``: a Trainer panel).

The widgets compute nothing themselves: translations come from ``seq2seq``, the heatmaps from
``figures``. ``play`` and ``play_trainer`` check their arguments once; what a control gives goes to the
unchecked internals (``figures.alignment_unchecked``, ``figures.update_alignment_unchecked``) without being
checked again.
"""
import html

import ipywidgets as widgets
import torch

from ...core import checks
from ...i18n import N_, gettext as _
from ...ui.panels import Panel, new_figure
from ...ui.text import fill
from ...ui.trainer import Trainer
from . import dates, seq2seq
from .figures import ROWS, alignment_heatmap, alignment_unchecked, argmax_line_unchecked, update_alignment_unchecked

__all__ = ["AlignmentExplorer", "play", "play_trainer"]

_TRANSLATOR = checks.Instance(seq2seq.DateTranslator, "a DateTranslator")


class AlignmentExplorer(Panel):
    """A text box for a date and two model menus over two alignment heatmaps, side by side: a Panel whose
    ``add_model`` offers a model trained later (``play_trainer``) in both menus.

    models: {name: DateTranslator}. Invalid input (dates.check_source) dims both heatmaps and shows
    the message over them and under them; no traceback. ``.date`` is the text box, ``.left`` and ``.right``
    the menus (the controls "text", "left" and "right").
    """

    def __init__(self, models, text, left=None, right=None):
        self.models = dict(models)
        self._last = None                          # the last date accepted, shown dimmed under a refusal
        names = list(self.models)
        self.date = widgets.Text(value=text, description=_("date"), placeholder=_("e.g. 7 mar 1994"),
                                 layout=widgets.Layout(width="260px"))
        self.left = widgets.Dropdown(options=names, value=left or names[0], description=_("left"),
                                     layout=widgets.Layout(width="330px"))
        self.right = widgets.Dropdown(options=names, value=right or names[-1], description=_("right"),
                                      layout=widgets.Layout(width="330px"))
        figure, self.axes = new_figure(1, 2, figsize=(12, 4.6))
        blank = torch.zeros(ROWS, dates.MAX_SOURCE_LEN)
        for ax in self.axes:
            alignment_heatmap(blank, "?" * dates.MAX_SOURCE_LEN, "", ax=ax)
        self.message = figure.text(0.5, 0.5, "", ha="center", va="center", fontsize=13, color="#b00020",
                                   visible=False, bbox={"facecolor": "white", "edgecolor": "#b00020"})
        super().__init__(figure, {"text": self.date, "left": self.left, "right": self.right}, self.update,
                         moving=[*self.axes, self.message], name="08-alignment", columns=3)

    def update(self, text, left, right):
        try:
            source = dates.check_source(text)
        except (TypeError, ValueError) as exc:
            return self._refuse((dates.source_problem(text) if isinstance(text, str) else None) or str(exc), left, right)
        self._dim(False)
        self._last = source
        return self._draw(source, left, right)

    def _draw(self, source, left, right):
        lines = []
        for ax, name in zip(self.axes, (left, right)):
            output, w = alignment_unchecked(self.models[name], source)
            update_alignment_unchecked(ax, w, source, output, title=f"{name}: {source} → {output}")
            lines.append(_("{model}, largest weight per output character:\n  {line}").format(
                model=name, line=argmax_line_unchecked(w, source, output)))
        return "\n".join(lines)

    def _refuse(self, reason, left, right):
        if self._last:           # the dimmed heatmaps show the models the menus name, on the last date accepted
            self._draw(self._last, left, right)
        self._dim(True)
        reason_lines = fill(reason, 60)             # 60 columns: a Chinese character takes two
        if self._last:
            note = _("This input is not accepted:\n{reason}\n(the dimmed heatmaps still show {date})").format(
                reason=reason_lines, date=self._last)
        else:
            note = _("This input is not accepted:\n{reason}").format(reason=reason_lines)
        self.message.set_text(note)
        return _("⚠ Input not accepted: {reason}").format(reason=reason)

    def _dim(self, dim):
        self.message.set_visible(dim)
        for ax in self.axes:
            ax.images[0].set_alpha(0.15 if dim else 1.0)
            for t in ax.texts:
                t.set_alpha(0.15 if dim else 1.0)

    def add_model(self, name, model, *, show_right=True):
        """Offer another model in both menus (replacing one of the same name) and show it on the right."""
        self.models[name] = model
        keep = self.left.value, self.right.value
        names = list(self.models)
        self.left.options, self.right.options = names, names
        self.left.value = keep[0]
        self.right.value = name if show_right else keep[1]
        self.refresh()

    def current_source(self, default="17 mar 1994"):
        """The typed date if it is valid, else the last date accepted (what the dimmed heatmaps show),
        else ``default``."""
        try:
            return dates.check_source(self.date.value)
        except (TypeError, ValueError):
            return self._last or default


@checks.arguments(explorer=checks.Instance(AlignmentExplorer, "the AlignmentExplorer"), seed=checks.Int(0))
def play_trainer(*, explorer, steps=80, seed=5, redraws=16) -> Trainer:
    """Train a fresh DateTranslator behind a button (``attnlab.ui.trainer.Trainer``): progress bar, live
    loss curve and the live alignment of the model being trained for the explorer's date; when done,
    the model joins the explorer.

    Each press starts from the same initial weights (seed 0) and the same data (``seed``), so the
    same settings give the same model. The alignment follows the explorer's date as it is typed, before,
    during and after training.
    """
    kind = widgets.ToggleButtons(options=[(_("additive"), "additive"), (_("dot"), "dot")], value="additive",
                                 description=_("scoring"),
                                 style={"button_width": "80px"})

    def run(steps, scoring):
        model = seq2seq.DateTranslator(scoring, seed=0)
        losses = []
        for step, loss in enumerate(seq2seq.train_steps(model, steps, seed=seed), 1):
            losses.append(loss)
            yield {"loss": loss, "model": model, "step": step}
        return model

    def draw_alignment(ax, latest, scoring):
        source = explorer.current_source()
        if latest is None:                   # the title names the scoring the next press trains
            blank = torch.zeros(ROWS, len(source))
            title = _("no {scoring} model yet: press “Train a fresh model”").format(scoring=_(scoring))
            if not ax.images:
                alignment_heatmap(blank, source, "?" * dates.TARGET_LEN, ax=ax, title=title)
            update_alignment_unchecked(ax, blank, source, "?" * dates.TARGET_LEN, title=title)   # the date typed now
            return None
        model = latest["model"]
        was_training = model.training
        output, w = alignment_unchecked(model, source)
        model.train(was_training)
        update_alignment_unchecked(ax, w, source, output, title=_("your model after {step} steps: {source} → {output}").format(
            step=latest["step"], source=source, output=output))
        return None

    def done(model, history, scoring):
        acc = seq2seq.accuracy(model, n=200)
        name = _("yours: {scoring}, {steps} steps").format(scoring=_(scoring), steps=len(history["loss"]))
        explorer.add_model(name, model)
        return _("Exact-match accuracy on 200 fresh dates: <b>{accuracy:.2f}</b>. "
                 "The explorer above now shows “{model}” on the right.").format(accuracy=acc, model=html.escape(name))

    t = Trainer(run, steps=steps, controls={"scoring": kind}, curves=(N_("loss"),), extra=draw_alignment, done=done,
                seconds_per_step=0.04, redraws=redraws, figsize=(12, 3.9), name="08-training")
    t.axes["loss"].set(ylabel=_("loss (cross-entropy, log scale)"), title=_("training loss"))
    t.refresh()                              # show those labels now, not after the first move
    # The date box is the explorer's control, not the trainer's: redraw the alignment when it changes.
    explorer.date.observe(lambda change: t.refresh(), names="value")
    return t


@checks.arguments(models=checks.Dict(), text=checks.Text())
def play(*, models, text="17 mar 1994") -> AlignmentExplorer:
    """The alignment explorer (an ``AlignmentExplorer`` panel) of ``models`` ({name: DateTranslator}) showing ``text``;
    display it as the cell's last value. Its menus gain the models ``play_trainer`` trains."""
    for name, model in models.items():
        _TRANSLATOR(model, f"models[{name!r}]")
    return AlignmentExplorer(models, text)
