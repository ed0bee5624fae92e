"""Notebook 09's Play panels: the explorer for a sentence the learner types (``play``: an ``Explorer``, a
Panel that a trainer adds models to), and a trainer that trains a fresh resolver (or an ablation) behind a
button (``play_trainer``: an ``attnlab.ui.trainer.Trainer`` panel).

The typed text is only split into words and looked up in VOCAB; it is never run as code.
"""
import html

import ipywidgets as widgets
import torch

from ...core import checks
from ...i18n import N_, gettext as _, pgettext
from ...ui import plotting
from ...ui.panels import Panel, new_figure
from ...ui.text import fill
from ...ui.trainer import Trainer
from . import data, figures, training
from .model import Resolution, pretrained, resolve_unchecked

__all__ = ["EXAMPLE", "known_words", "describe", "Explorer", "play", "play_trainer"]

EXAMPLE = "the cat drank the milk because it was hungry"


@checks.arguments(width=checks.Int(20))
def known_words(width=110):
    """The kinds of words the model knows, one kind a paragraph, wrapped to ``width``
    columns (a Chinese character takes two)."""
    lines = [_("The model knows only these kinds of words:")]
    for kind, words in data.VOCAB.items():
        lines.append(fill(_("{kind}: {words}").format(kind=_(data.KIND_NAMES[kind]), words=", ".join(words)),
                          width, initial_indent="  ", subsequent_indent="    "))
    return "\n".join(lines)


@checks.arguments(resolution=checks.Instance(Resolution, "a Resolution (from resolve)"))
def describe(resolution):
    """The answer and each head's peak in words, for readers who can't see colour (one line per block)."""
    return _describe(resolution)


def _describe(resolution):
    it = resolution.it_index
    L, H, _n = resolution.attention.shape
    lines = [_("“it” (word {position}) refers to: {referent} (pointer weight {weight:.2f})").format(
        position=it + 1, referent=resolution.referent, weight=resolution.pointer.max())]
    for l in range(L):
        peaks = pgettext("list separator", ", ").join(_("head {head} → {word}").format(
            head=h + 1, word=resolution.words[int(resolution.attention[l, h].argmax())]) for h in range(H))
        lines.append(_("block {block}, where each head's weight peaks: {peaks}").format(block=l + 1, peaks=peaks))
    return "\n".join(lines)


class Explorer(Panel):
    """Type a sentence; see the referent and "it"'s attention in every layer and head: a Panel whose
    ``add_model`` offers a model trained later (``play_trainer``) in its menu.

    ``models``: {name: ItResolver}; a menu picks one (the trainer below adds the learner's own).
    A sentence the model cannot read (an unknown word, no "it") dims the figure and says why.
    ``.sentence`` is the text box, ``.menu`` the model menu (the controls "sentence" and "model").
    """

    @checks.arguments(models=checks.Optional(checks.Dict()), text=checks.Text())
    def __init__(self, models=None, *, text=EXAMPLE):
        self.models = dict(models or {_("shipped"): pretrained()})
        self.sentence = widgets.Text(value=text, description=_("sentence"), continuous_update=False,
                                     layout=widgets.Layout(width="640px"))
        self.menu = widgets.Dropdown(options=list(self.models), description=_("model"))
        first = resolve_unchecked(self.models[self.menu.value], EXAMPLE)
        fig, self.ax = new_figure(figsize=(11, 4.6))
        figures.it_attention(first, ax=self.ax)
        self.title = plotting.live_title(self.ax, self.ax.get_title())       # changed by the menu: drawn alone
        self.ax.set_title("")
        self.note = self.ax.text(0.5, 0.5, "", transform=self.ax.transAxes, ha="center", va="center", fontsize=11,
                                 bbox={"facecolor": "white", "edgecolor": "#b36b00", "boxstyle": "round"},
                                 visible=False, zorder=5)
        # What the model menu changes: the weights, their numbers and the title (a new sentence changes
        # the words on the axis, so it draws the whole figure); a refusal shows the note and dims them.
        state = plotting.heatmap_state(self.ax)
        moving = [state.image, lambda: state.cells, self.title, self.note]
        super().__init__(fig, {"sentence": self.sentence, "model": self.menu}, self.update, moving=moving,
                         name="09-it-explorer", columns=2)

    def update(self, sentence, model):
        try:
            r = resolve_unchecked(self.models[model], sentence)
        except (TypeError, ValueError) as exc:
            reason = data.sentence_problem(sentence) if isinstance(sentence, str) else None
            return self._refuse(reason or str(exc), model)
        self._dim(False)
        labels = figures.row_labels(*r.attention.shape[:2])
        plotting.update_heatmap(self.ax, figures.attention_rows(r), x_labels=r.words, y_labels=labels)
        self.title.set_text(_("{model} model: “it” refers to {referent}").format(model=model, referent=r.referent))
        return _describe(r)

    def _refuse(self, short, model):
        """Dim the figure and say why: ``short`` is data.sentence_problem's reason (in the learner's
        language); for what it does not judge (a sentence that is not a str), the error's whole English
        message, uncut."""
        self._dim(True)
        self.title.set_text(_("{model} model: no answer for this sentence").format(model=model))  # not the last referent
        self.note.set_text(_("This sentence is not accepted:\n{reason}").format(reason=fill(short, 60)))   # 60 columns
        return _("⚠ Not accepted: {reason}.\n{known}").format(reason=short, known=known_words())

    def _dim(self, dim):
        self.note.set_visible(dim)
        self.ax.images[0].set_alpha(0.15 if dim else 1.0)
        for t in plotting.heatmap_state(self.ax).cells:
            if t is not self.note:
                t.set_alpha(0.15 if dim else 1.0)

    def add_model(self, name, model):
        """Offer another model in the menu and show it."""
        self.models[name] = model
        self.menu.options = list(self.models)
        self.menu.value = name
        self.refresh()


@checks.arguments(explorer=checks.Optional(checks.Instance(Explorer, "the Explorer")), sentence=checks.Text())
def play_trainer(*, explorer=None, steps=300, sentence=EXAMPLE) -> Trainer:
    """Train a fresh resolver (or an ablation) behind a button: loss, batch accuracy and test accuracy
    curves, and the model's pointer for ``sentence`` as it learns. Each press starts from the same
    weights and data, so the same settings give the same model. When done, it joins the explorer."""
    choice = widgets.Dropdown(options=[(_(name), name) for name in training.ABLATIONS], value="full model",
                              description=_("model"))

    trained = {}

    def run(steps, model):
        trained["name"] = model
        result = yield from training.run(steps, **training.ABLATIONS[model])
        return result

    def draw_pointer(ax, latest, model):
        if not ax.images:
            words = sentence.split()
            plotting.heatmap(torch.zeros(1, len(words)), x_labels=words, y_labels=["it →"], ax=ax, xlabel="",
                             ylabel="", annotate=True, colorbar=False, title=_("no model yet"))
        if latest is None:
            ax.set_title(_("{model}: press the button to train it").format(model=_(model)), fontsize=10)
            return None
        r = resolve_unchecked(latest["model"], sentence)
        shown = trained["name"]                             # the model the picture shows (an ABLATIONS key)
        plotting.update_heatmap(ax, r.pointer[None], title=_("{model}: “it” → {referent}").format(
            model=_(shown), referent=r.referent))
        if model == shown:
            return None
        return _("(the picture shows {shown}; press the button to train {model})").format(shown=_(shown), model=_(model))

    def done(result, history, model):
        acc = training.accuracy(result, "train"), training.accuracy(result, "test")
        name = _("yours: {model}, {steps} steps").format(model=_(model), steps=len(history["loss"]))
        if explorer is None:
            return _("Train accuracy <b>{train:.3f}</b>, test accuracy <b>{test:.3f}</b>.").format(
                train=acc[0], test=acc[1])
        explorer.add_model(name, result)
        return _("Train accuracy <b>{train:.3f}</b>, test accuracy <b>{test:.3f}</b>. "
                 "The explorer below now shows “{model}”.").format(train=acc[0], test=acc[1], model=html.escape(name))

    t = Trainer(run, steps=steps, min_steps=20, max_steps=600, step=20, controls={"model": choice},
                curves=(N_("loss"), N_("test accuracy")), extra=draw_pointer, done=done,
                seconds_per_step=0.025, figsize=(12, 3.4), name="09-training")
    t.axes["loss"].set(ylabel=_("loss: −log(weight on the referent)"), title=_("training loss"))
    t.refresh()                                             # show the relabelled axes
    return t


@checks.arguments(text=checks.Text())
def play(*, text=EXAMPLE) -> Explorer:
    """The Play panel of notebook 09, the “it” explorer (an ``Explorer`` of the shipped model) showing ``text``;
    display it as the cell's last value. Pass it to ``play_trainer(explorer=...)`` and the models trained there
    join its menu."""
    return Explorer(text=text)
