"""Alignment heatmaps of the date translator (notebook 08) and two live widgets: an explorer for a
date the learner types, and a trainer that trains a fresh model behind a button.

An alignment (对齐) heatmap has one row per output character (decoder step i, the last one writes
<eos>) and one column per input character (encoder state h_j); cell (i, j) is the weight alpha_ij.
The widgets compute nothing themselves: translations come from ``attnlab.seq2seq``.
"""
import html
import textwrap
import time

import ipywidgets as widgets
import torch

from . import dates, panels, plotting, seq2seq

SPACE = "␣"                                   # a visible space for tick labels
ROWS = dates.TARGET_LEN + 1                    # 10 output characters + <eos>
XLABEL, YLABEL = "input character j (encoder state h_j)", "output character i (decoder step)"


def source_labels(source):
    """Tick labels for the input characters, spaces shown as ␣."""
    return [SPACE if c == " " else c for c in source]


def output_labels(output):
    """Tick labels for the ROWS decoder steps: the output characters, <eos>, then · for steps after it."""
    return (list(output) + ["<eos>"] + ["·"] * ROWS)[:ROWS]


def alignment_heatmap(weights, source, output, *, ax=None, title=None, colorbar=True, annotate=False):
    """Draw weights (ROWS, len(source)) as output characters × input characters, fixed 0–1 scale."""
    ax = plotting.heatmap(weights, x_labels=source_labels(source), y_labels=output_labels(output), ax=ax,
                          title=title, xlabel=XLABEL, ylabel=YLABEL, colorbar=colorbar, annotate=annotate)
    return _upright(ax)


def _upright(ax):
    """Single characters read best unrotated."""
    for label in ax.get_xticklabels():
        label.set(rotation=0, ha="center")
    return ax


def update_alignment(ax, weights, source, output, *, title=None):
    """Put a new alignment into a heatmap drawn by ``alignment_heatmap`` (the input length may change)."""
    return _upright(plotting.update_heatmap(ax, weights, x_labels=source_labels(source),
                                            y_labels=output_labels(output), title=title))


def alignment(model, source):
    """(output str, weights (ROWS, len(source))) for one checked source string."""
    outputs, weights = seq2seq.translate(model, [source])
    return outputs[0], weights[0, :, :len(source)]


def argmax_line(weights, source, output):
    """One line of text: for each output character, the input character with the largest weight."""
    ys, xs = output_labels(output), source_labels(source)
    best = weights.argmax(-1).tolist()
    return " · ".join(f"{ys[i]}←{xs[j]} {weights[i, j]:.2f}" for i, j in enumerate(best))


class AlignmentExplorer:
    """A text box for a date and two model menus over two alignment heatmaps, side by side.

    models: {name: DateTranslator}. Invalid input (dates.check_source) dims both heatmaps and shows
    the message over them and under them; no traceback.
    """

    def __init__(self, models, *, text="17 mar 1994", left=None, right=None):
        self.models = dict(models)
        self._last = None                          # the last date accepted, shown dimmed under a refusal
        names = list(self.models)
        self.text = widgets.Text(value=text, description="date", placeholder="e.g. 7 mar 1994",
                                 layout=widgets.Layout(width="260px"))
        self.left = widgets.Dropdown(options=names, value=left or names[0], description="left",
                                     layout=widgets.Layout(width="330px"))
        self.right = widgets.Dropdown(options=names, value=right or names[-1], description="right",
                                      layout=widgets.Layout(width="330px"))
        self.figure, self.axes = panels.new_figure(1, 2, figsize=(12, 4.6))
        blank = torch.zeros(ROWS, dates.MAX_SOURCE_LEN)
        for ax in self.axes:
            alignment_heatmap(blank, "?" * dates.MAX_SOURCE_LEN, "", ax=ax)
        self.message = self.figure.text(0.5, 0.5, "", ha="center", va="center", fontsize=13, color="#b00020",
                                        visible=False, bbox={"facecolor": "white", "edgecolor": "#b00020"})
        self.panel = panels.Panel(self.figure, {"text": self.text, "left": self.left, "right": self.right},
                                  self._update, name="08-alignment", columns=3)
        self.widget = self.panel.widget

    def _update(self, text, left, right):
        try:
            source = dates.check_source(text)
        except (TypeError, ValueError) as exc:
            return self._refuse(str(exc).removeprefix("text: "))
        self._dim(False)
        self._last = source
        lines = []
        for ax, name in zip(self.axes, (left, right)):
            output, w = alignment(self.models[name], source)
            update_alignment(ax, w, source, output, title=f"{name}: {source} → {output}")
            lines.append(f"{name}, largest weight per output character:\n  {argmax_line(w, source, output)}")
        return "\n".join(lines)

    def _refuse(self, reason):
        self._dim(True)
        self.message.set_text("This input is not accepted:\n" + textwrap.fill(reason, 60)
                              + (f"\n(the dimmed heatmaps still show {self._last})" if self._last else ""))
        return f"⚠ Input not accepted: {reason}"

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
        self.panel.refresh()

    def current_source(self, default="17 mar 1994"):
        """The typed date if it is valid, else ``default``."""
        try:
            return dates.check_source(self.text.value)
        except (TypeError, ValueError):
            return default

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = f"Live panel 'alignment explorer': date text box, left and right model menus ({', '.join(self.models)})"
        return bundle


class Trainer:
    """Train a fresh DateTranslator behind a button, with a progress bar, a live loss curve and the
    live alignment of the model being trained (for the explorer's date); then add it to the explorer.

    Each click starts from the same initial weights (torch.manual_seed(0)) and the same data (seed),
    so the same settings give the same model.
    """

    def __init__(self, explorer, *, steps=80, seed=5, redraws=16):
        self.explorer, self.seed, self.redraws = explorer, seed, redraws
        self.model, self.losses, self.total = None, [], steps
        self.steps = widgets.IntSlider(value=steps, min=10, max=200, step=10, description="steps",
                                       continuous_update=False)
        self.kind = widgets.ToggleButtons(options=["additive", "dot"], value="additive", description="scoring",
                                          style={"button_width": "80px"})
        self.button = widgets.Button(description="Train a fresh model", button_style="primary", icon="play",
                                     layout=widgets.Layout(width="auto"))
        self.progress = widgets.IntProgress(value=0, min=0, max=steps, description="progress")
        self.status = widgets.HTML("Not trained yet.")
        fig, (self.ax_loss, self.ax_align) = panels.new_figure(1, 2, figsize=(12, 3.9),
                                                               gridspec_kw={"width_ratios": [1, 1.15]})
        self.line, = self.ax_loss.plot([], [], color="C1", linewidth=2)
        self.ax_loss.set(yscale="log", xlim=(0, steps), ylim=(1e-3, 5), xlabel="training step",
                         ylabel="loss (cross-entropy, log scale)", title="training loss")
        self.ax_loss.grid(True, which="major", alpha=0.3)
        source = explorer.current_source()
        alignment_heatmap(torch.zeros(ROWS, len(source)), source, "?" * dates.TARGET_LEN, ax=self.ax_align,
                          title="no model yet: press “Train a fresh model”")
        self.panel = panels.Panel(fig, {}, self._draw, name="08-training")
        self.button.on_click(self._train)
        self.steps.observe(self._steps_changed, names="value")
        self.widget = widgets.VBox([widgets.HBox([self.steps, self.kind, self.button]),
                                    widgets.HBox([self.progress, self.status]), self.panel.widget])

    def _steps_changed(self, change):
        self.status.value = f"{change['new']} steps: about {max(1, round(change['new'] / 25))} s on a laptop CPU. Press the button."

    def _draw(self):
        self.line.set_data(range(1, len(self.losses) + 1), self.losses)
        self.ax_loss.set_xlim(0, self.total)
        if self.model is None:
            return None
        source = self.explorer.current_source()
        was_training = self.model.training
        output, w = alignment(self.model, source)
        self.model.train(was_training)
        update_alignment(self.ax_align, w, source, output,
                         title=f"your model after {len(self.losses)} steps: {source} → {output}")
        return f"step {len(self.losses)} of {self.total}, loss {self.losses[-1]:.4f}"

    def _train(self, _button=None):
        """Train a fresh model (the button's callback; also callable from code)."""
        self.button.disabled = True
        steps, kind = self.steps.value, self.kind.value
        try:
            torch.manual_seed(0)
            self.model, self.losses, self.total = seq2seq.DateTranslator(kind), [], steps
            self.progress.max, self.progress.value = steps, 0
            every = max(1, steps // self.redraws)
            self.status.value = f"training {kind} for {steps} steps..."
            t0 = time.perf_counter()

            def callback(step, loss):
                self.losses.append(loss)
                self.progress.value = step + 1
                if (step + 1) % every == 0 or step + 1 == steps:
                    self.panel.refresh()

            seq2seq.train(self.model, steps, seed=self.seed, callback=callback)
            seconds = time.perf_counter() - t0
            acc = seq2seq.accuracy(self.model, n=200)
            name = f"yours: {kind}, {steps} steps"
            self.explorer.add_model(name, self.model)
            self.status.value = (f"Done in {seconds:.1f} s. Exact-match accuracy on 200 fresh dates: <b>{acc:.2f}</b>. "
                                 f"The explorer above now shows “{html.escape(name)}” on the right.")
        except Exception as exc:  # shown to the learner, not lost in a log
            self.status.value = f"<span style='color:#b00020'>{html.escape(type(exc).__name__)}: {html.escape(str(exc))}</span>"
        finally:
            self.button.disabled = False

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = "Live panel 'trainer': steps slider, scoring (additive or dot), train button, progress bar, live loss curve"
        return bundle
