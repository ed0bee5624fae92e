"""The live parts of notebook 09: an explorer for a sentence the learner types, and a trainer that
trains a fresh resolver (or an ablation) behind a button with ``attnlab.trainer.Trainer``.

The typed text is only split into words and looked up in VOCAB; it is never run as code.
"""
import html
import textwrap

import ipywidgets as widgets
import torch
from matplotlib.axes import Axes

from ... import _checks, panels, plotting
from ...trainer import Trainer
from . import data, figures, training
from .model import Resolution, pretrained, resolve

EXAMPLE = "the cat drank the milk because it was hungry"


@_checks.arguments(width=_checks.Int(20))
def known_words(width=110):
    """The kinds of words the model knows, one kind a paragraph, wrapped to ``width``."""
    lines = ["The model knows only these kinds of words:"]
    for kind, words in data.VOCAB.items():
        lines.append(textwrap.fill(f"{data.KIND_NAMES[kind]}: {', '.join(words)}", width,
                                   initial_indent="  ", subsequent_indent="    "))
    return "\n".join(lines)


@_checks.arguments(resolution=_checks.Instance(Resolution, "a Resolution (from resolve)"))
def describe(resolution):
    """The answer and each head's peak in words, for readers who can't see colour (one line per block)."""
    it = resolution.it_index
    L, H, _ = resolution.attention.shape
    lines = [f"“it” (word {it + 1}) refers to: {resolution.referent} (pointer weight {resolution.pointer.max():.2f})"]
    for l in range(L):
        peaks = ", ".join(f"head {h + 1} → {resolution.words[int(resolution.attention[l, h].argmax())]}"
                          for h in range(H))
        lines.append(f"block {l + 1}, where each head's weight peaks: {peaks}")
    return "\n".join(lines)


class Explorer:
    """Type a sentence; see the referent and "it"'s attention in every layer and head.

    ``models``: {name: ItResolver}; a menu picks one (the trainer below adds the learner's own).
    A sentence the model cannot read (an unknown word, no "it") dims the figure and says why.
    """

    @_checks.arguments(models=_checks.Optional(_checks.Dict()), text=_checks.Text())
    def __init__(self, models=None, *, text=EXAMPLE):
        self.models = dict(models or {"shipped": pretrained()})
        self.text = widgets.Text(value=text, description="sentence", continuous_update=False,
                                 layout=widgets.Layout(width="640px"))
        self.model = widgets.Dropdown(options=list(self.models), description="model")
        first = resolve(self.models[self.model.value], EXAMPLE)
        fig, self.ax = panels.new_figure(figsize=(11, 4.6))
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
        self.panel = panels.Panel(fig, {"sentence": self.text, "model": self.model}, self._draw, moving=moving,
                                  name="09-it-explorer", columns=2)
        self.widget = self.panel.widget

    def _draw(self, sentence, model):
        try:
            r = resolve(self.models[model], sentence)
        except (TypeError, ValueError) as exc:
            return self._refuse(str(exc), model)
        self._dim(False)
        labels = figures.row_labels(*r.attention.shape[:2])
        plotting.update_heatmap(self.ax, figures.attention_rows(r), x_labels=r.words, y_labels=labels)
        self.title.set_text(f"{model} model: “it” refers to {r.referent}")
        return describe(r)

    def _refuse(self, reason, model):
        self._dim(True)
        self.title.set_text(f"{model} model: no answer for this sentence")    # not the last sentence's referent
        short = reason.split("; the model knows")[0].replace("sentence: ", "")
        self.note.set_text("This sentence is not accepted:\n" + textwrap.fill(short, 60))
        return f"⚠ Not accepted: {short}.\n" + known_words()

    def _dim(self, dim):
        self.note.set_visible(dim)
        self.ax.images[0].set_alpha(0.15 if dim else 1.0)
        for t in plotting.heatmap_state(self.ax).cells:
            if t is not self.note:
                t.set_alpha(0.15 if dim else 1.0)

    def add_model(self, name, model):
        """Offer another model in the menu and show it."""
        self.models[name] = model
        self.model.options = list(self.models)
        self.model.value = name
        self.panel.refresh()

    def _repr_mimebundle_(self, **kwargs):
        text = f"Live panel 'it explorer': sentence text box, model menu ({', '.join(self.models)})"
        summary = self.panel.summary
        return panels.widget_bundle(self.widget, text + (f"\n{summary}" if summary else ""),
                                    bytes(self.panel.image.value) or None)


@_checks.arguments(explorer=_checks.Optional(_checks.Instance(Explorer, "the Explorer")), sentence=_checks.Text())
def trainer(explorer=None, *, steps=300, sentence=EXAMPLE):
    """Train a fresh resolver (or an ablation) behind a button: loss, batch accuracy and test accuracy
    curves, and the model's pointer for ``sentence`` as it learns. Each press starts from the same
    weights and data, so the same settings give the same model. When done, it joins the explorer."""
    choice = widgets.Dropdown(options=list(training.ABLATIONS), value="full model", description="model")

    trained = {}

    def run(steps, model):
        trained["name"] = model
        result = yield from training.run(steps, **training.ABLATIONS[model])
        return result

    def draw_pointer(ax, latest, model):
        if not ax.images:
            words = sentence.split()
            plotting.heatmap(torch.zeros(1, len(words)), x_labels=words, y_labels=["it →"], ax=ax, xlabel="",
                             ylabel="", annotate=True, colorbar=False, title="no model yet")
        if latest is None:
            ax.set_title(f"{model}: press the button to train it", fontsize=10)
            return None
        r = resolve(latest["model"], sentence)
        plotting.update_heatmap(ax, r.pointer[None], title=f"{trained['name']}: “it” → {r.referent}")
        return None if model == trained["name"] else f"(the picture shows {trained['name']}; press the button to train {model})"

    def done(result, history, model):
        acc = training.accuracy(result, "train"), training.accuracy(result, "test")
        name = f"yours: {model}, {len(history['loss'])} steps"
        if explorer is not None:
            explorer.add_model(name, result)
        return (f"Train accuracy <b>{acc[0]:.3f}</b>, test accuracy <b>{acc[1]:.3f}</b>."
                + (f" The explorer above now shows “{html.escape(name)}”." if explorer is not None else ""))

    t = Trainer(run, steps=steps, min_steps=20, max_steps=600, step=20, controls={"model": choice},
                curves=("loss", "test accuracy"), extra=draw_pointer, done=done,
                seconds_per_step=0.025, figsize=(12, 3.4), name="09-training")
    t.axes["loss"].set(ylabel="loss: −log(weight on the referent)", title="training loss")
    t.panel.refresh()                                       # show the relabelled axes
    return t


@_checks.arguments(ax=_checks.Instance(Axes, "a matplotlib Axes"))
def thumbnail(ax):
    """The index's small picture of this notebook, drawn into ``ax``."""
    model = pretrained()
    figures.pointer_rows(ax, [resolve(model, f"the cat drank the milk because it was {adjective}")
                           for adjective in ("sweet", "hungry")])
