"""A training widget for any small model: a Train button, a steps slider, a progress bar, a status
line and live curves (loss, accuracy, ...), with an optional picture of the model being trained.

It trains nothing itself. The lesson gives it ``run(steps, **values)``, a generator that takes one
training step per ``next()`` and yields a dict: a float for each name in ``curves`` (e.g.
``{"loss": 0.3, "accuracy": 0.9}``) and anything else the lesson's ``extra`` drawing needs (e.g.
``"model"``). Its return value is the result (usually the trained model)::

    def run(steps, scoring):
        model = make_model(scoring)
        for step in range(steps):
            loss = train_one_step(model)
            yield {"loss": loss, "model": model}
        return model

    trainer = Trainer(run, controls={"scoring": widgets.ToggleButtons(options=["additive", "dot"])})
    trainer            # displays; trainer.train() runs it from code; trainer.result is the model

A Trainer is a live ``Panel`` (attnlab/ui/panels/panel.py): its figure holds the curves (and the lesson's
``extra`` picture), its ``controls`` are the lesson's settings, its ``update`` draws the history so far; above
it sit the steps slider, the Train and Stop buttons, the progress bar and the status line. A lesson's
``play_trainer`` returns one, as every ``play*`` returns a Panel.

In a kernel (JupyterLab, Voila) a press trains in steps on the kernel's event loop, so the **Stop**
button is heard between two steps: training ends there and ``result`` is the model as it is (the
``"model"`` of the last step's dict), what was learnt so far kept. ``train()`` called from code runs to
the end.

Loss-like curves are drawn on a log scale, curves whose name contains "accuracy" on a fixed 0-1
scale. Each press starts from scratch with the same seeds (the lesson's ``run`` owns them), so the
same settings give the same model. Errors show in the status line, never as a traceback.
"""
import asyncio
import collections.abc
import contextlib
import html
import re
import time

import ipywidgets as widgets
import torch

from ..core import checks
from ..i18n import N_, gettext as _, language, listed, pgettext
from . import panels
from .panels.panel import label_of
from .plotting import SERIES_COLORS

TRAIN = N_("Train a fresh model")          # the button's default label
STEPS_PER_YIELD = 1                         # steps between two looks at the kernel's messages (a Stop press)
# The curve names lessons commonly use, shown translated (a lesson marks any other name it uses with N_)
CURVES = (N_("loss"), N_("accuracy"), N_("error"))


@contextlib.contextmanager
def one_thread():
    """Run the block with torch on one thread, then give back the thread count it had (also when
    the block raises). Lessons train tiny models: one thread is several times faster than threads
    fighting over tiny matrices, and gives the same bits whatever the machine's thread count."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)



def run_to_end(steps):
    """Drain a lesson's training generator (it yields rows {name: float, ..., "model": module} and returns
    the trained model): (model, history {name: [floats]}, {"wall": seconds, "cpu": seconds}).

    CPU seconds (this process) are what an idle core would take; wall seconds grow when other programs
    share the machine."""
    checks.instance(steps, "steps", collections.abc.Generator, "a generator (a lesson's run(steps, ...))")
    history = {}
    t0, c0 = time.perf_counter(), time.process_time()
    while True:
        try:
            row = next(steps)
        except StopIteration as stop:
            return stop.value, history, {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}
        for k, v in row.items():
            if k != "model":
                history.setdefault(k, []).append(v)


class Trainer(panels.Panel):
    """Train behind a button, with live curves (see the module docstring): a Panel whose controls are the
    lesson's settings, with the steps slider, the Train and Stop buttons, a progress bar and a status line above.

    Args:
        run: generator function ``run(steps, **values)`` (values of ``controls``), see above.
        steps: the steps slider's start value; ``min_steps``, ``max_steps``, ``step`` its range.
        controls: {name: widget with .value} passed to ``run`` (and to ``extra``) by name.
        curves: the names of the floats ``run`` yields that are drawn, in one axes each; shown through
            the catalog (``_(name)``: CURVES are marked here, a lesson marks any other name with ``N_``).
        extra: optional ``extra(ax, latest, **values)`` drawing the model being trained into one
            more axes; ``latest`` is the last dict ``run`` yielded (None before training). It must
            return None or a line of text for the status.
        done: optional ``done(result, history, **values)`` -> str (HTML) shown when training ends.
        seconds_per_step: rough cost on a laptop CPU, for the hint under the slider.
        redraws: how many times the figure is redrawn during one training run.
        figsize, name: the figure's size and the download's file name.
        button: the button's label, shown as ``_(button)`` (pass it marked with ``N_`` or translated).
    The trainer remembers the language it was built in: its callbacks and texts stay in it.
    """

    def __init__(self, run, *, steps=80, min_steps=10, max_steps=200, step=10, controls=None, curves=("loss",),
                 extra=None, done=None, seconds_per_step=None, redraws=16, figsize=(12, 3.6), name="training",
                 button=TRAIN):
        checks.function(run, "run", "a generator function run(steps, **values)")
        checks.Items(checks.Text(), min_len=1)(curves, "curves")
        for arg, value in (("steps", steps), ("min_steps", min_steps), ("max_steps", max_steps), ("step", step),
                           ("redraws", redraws)):
            checks.count(value, arg, low=1)
        if not min_steps <= steps <= max_steps:
            raise checks.error("steps", f"a value in [{min_steps}, {max_steps}]", steps)
        self.run, self.extra, self.done = run, extra, done
        self.curves, self.redraws, self.seconds_per_step = tuple(curves), redraws, seconds_per_step
        controls = dict(controls or {})
        self.history = {c: [] for c in self.curves}
        self.latest, self.result, self.total = None, None, steps
        self._extra_text = None                 # the text of the lesson's extra picture, at the last draw
        self.steps = widgets.IntSlider(value=steps, min=min_steps, max=max_steps, step=step, description=_("steps"),
                                       continuous_update=False)
        self.button = widgets.Button(description=_(button), button_style="primary", icon="play",
                                     layout=widgets.Layout(width="auto"))
        self.stop = widgets.Button(description=_("Stop"), icon="stop", disabled=True, layout=widgets.Layout(width="auto"),
                                   tooltip=_("Stop training here and keep what the model has learnt"))
        self._stop_requested = False
        self._task = None                   # the running training task (a press in a kernel), or None
        self.progress = widgets.IntProgress(value=0, min=0, max=steps, description=_("progress"))
        self.status = widgets.HTML(_("Not trained yet."))
        n_axes = len(self.curves) + (extra is not None)
        fig, axes = panels.new_figure(1, n_axes, figsize=figsize, squeeze=False)
        self.axes = dict(zip(self.curves, axes[0]))                 # curve name -> its Axes
        self.extra_ax = axes[0][-1] if extra is not None else None
        self.lines = {}
        for i, (curve, ax) in enumerate(self.axes.items()):
            self.lines[curve], = ax.plot([], [], color=SERIES_COLORS[(i + 1) % len(SERIES_COLORS)], linewidth=2)
            if "accuracy" in curve:
                ax.set(ylim=(0, 1.02), ylabel=_(curve))
            else:
                ax.set(yscale="log", ylim=(1e-3, 5), ylabel=_("{curve} (log scale)").format(curve=_(curve)))
            ax.set(xlim=(0, steps), xlabel=_("training step"), title=_(curve))
            ax.grid(True, which="major", alpha=0.3)
        # What a redraw changes: the curves (their axes keep their limits while a run lasts) and the
        # lesson's extra picture, whatever it draws there (that axes is redrawn whole).
        moving = list(self.lines.values()) + ([self.extra_ax] if self.extra_ax is not None else [])
        super().__init__(fig, controls, self.update, moving=moving, name=name, describe=self._describe)
        self.button.on_click(self._pressed)
        self.stop.on_click(self._stop_pressed)
        self.steps.observe(self._steps_changed, names="value")
        # the figure's box (its controls, picture, text and downloads) under the training controls
        self.widget = widgets.VBox([widgets.HBox([self.steps, self.button, self.stop]),
                                    widgets.HBox([self.progress, self.status]), self.widget])

    def _steps_changed(self, change):
        with language(self.language):
            if self.seconds_per_step:
                self.status.value = _("{steps} steps: about {seconds} s on a laptop CPU. Press the button.").format(
                    steps=change["new"], seconds=max(1, round(change["new"] * self.seconds_per_step)))
            else:
                self.status.value = _("{steps} steps. Press the button.").format(steps=change["new"])

    def update(self, **values):
        """The panel's callback: curves from the history, then the lesson's extra picture."""
        for curve, line in self.lines.items():
            ys = self.history[curve]
            line.set_data(range(1, len(ys) + 1), ys)
            if self.axes[curve].get_xlim() != (0, self.total):   # set once per run: a new limit redraws all
                self.axes[curve].set_xlim(0, self.total)
        text = self.extra(self.extra_ax, self.latest, **values) if self.extra is not None else None
        self._extra_text = text
        if self.latest is None:
            return text
        numbers = pgettext("list separator", ", ").join(_("{curve} {value:.4f}").format(curve=_(c), value=self.history[c][-1])
                            for c in self.curves if self.history[c])
        line = _("step {step} of {total}: {numbers}").format(step=len(self.history[self.curves[0]]), total=self.total,
                                                             numbers=numbers)
        return line + (f"\n{text}" if text else "")

    def _describe(self, **values):
        """The figure's accessible name before any training: its curves, empty, with the settings that
        shape them (the controls' values), and the lesson's extra picture's text if it has one; after
        training, None: the panel's text."""
        if self.latest is not None:
            return None
        settings = pgettext("list separator", ", ").join(f"{(c.description or name).rstrip(':： ')} = {getattr(c, 'label', None) or c.value}"
                             for name, c in self.controls.items())
        name = _("{curves}: Not trained yet.").format(curves=pgettext("clause separator", "; ").join(_(c) for c in self.curves))
        if settings:
            name = _("{text} ({settings})").format(text=name, settings=settings)
        return name + (f"\n{self._extra_text}" if self._extra_text else "")

    def train(self, _button=None):
        """Train from scratch with the current settings, to the end (callable from code; the button trains
        on the kernel's event loop, stoppable).

        Returns the result of ``run`` (None if training failed; the error is in the status line)."""
        with language(self.language):
            stepper = self._steps()
            for _pause in stepper:
                pass
            return self.result

    def _pressed(self, _button=None):
        """The Train button: in a kernel with a running event loop, train as a task that lets the kernel
        hear the Stop button between steps; otherwise (a script) train to the end."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return self.train()
        if self._task is not None and not self._task.done():
            return None
        self._task = loop.create_task(self._train_async())
        return self._task

    async def _train_async(self):
        with language(self.language):
            stepper = self._steps()
        while True:
            with language(self.language):
                if next(stepper, None) is None:
                    return self.result
            await asyncio.sleep(0)                     # the kernel reads its messages: a Stop press lands here

    def _stop_pressed(self, _button=None):
        self._stop_requested = True

    def _steps(self):
        """Train, one step per ``next()`` (yielding True), until the end, an error or a Stop press; then
        set ``result``, the status line and the buttons."""
        self.button.disabled, self.stop.disabled, self._stop_requested = True, False, False
        steps, values = self.steps.value, self.values()
        self.history = {c: [] for c in self.curves}
        self.latest, self.result, self.total = None, None, steps
        self._extra_text = None                 # the text of the lesson's extra picture, at the last draw
        self.progress.max, self.progress.value = steps, 0
        every = max(1, steps // self.redraws)
        self.status.value = _("training for {steps} steps...").format(steps=steps)
        t0 = time.perf_counter()
        gen = None
        try:
            gen = self.run(steps, **values)
            done = 0
            while True:
                if self._stop_requested:
                    self.result = self.latest.get("model") if isinstance(self.latest, dict) else None
                    gen.close()
                    break
                try:
                    item = next(gen)
                except StopIteration as stop:
                    self.result = stop.value
                    break
                self._record(item)
                done += 1
                self.progress.value = done
                if done % every == 0 or done == steps:
                    self.refresh()
                if done % STEPS_PER_YIELD == 0:
                    yield True
            if self._stop_requested and done < steps:
                self.refresh()
            seconds = time.perf_counter() - t0
            message = self.done(self.result, self.history, **values) if self.done is not None else ""
            if self._stop_requested and done < steps:
                self.status.value = _("Stopped after {done} of {steps} steps ({seconds:.1f} s): the model keeps what it "
                                      "learnt. {message}").format(done=done, steps=steps, seconds=seconds,
                                                                  message=message).strip()
            else:
                self.status.value = _("Done: {steps} steps in {seconds:.1f} s. {message}").format(
                    steps=done, seconds=seconds, message=message).strip()
        except Exception as exc:  # shown to the learner, not lost in a log
            self.status.value = (f"<span style='color:#b00020'>{html.escape(type(exc).__name__)}: "
                                 f"{html.escape(str(exc))}</span>")
        finally:
            self.button.disabled, self.stop.disabled = False, True

    def _record(self, item):
        if not isinstance(item, dict):
            raise checks.error("run", f"each step to yield a dict with {list(self.curves)}",
                               type(item).__name__, kind=TypeError)
        for curve in self.curves:
            if curve not in item:
                raise checks.error("run", f"each step's dict to hold {curve!r}", f"keys {sorted(item)}")
            self.history[curve].append(float(item[curve]))
        self.latest = item

    def _repr_mimebundle_(self, **kwargs):
        """The widget view, and for viewers without widgets the current figure and a text form: the
        controls by their labels and the curves, in the trainer's language."""
        with language(self.language):
            names = listed([label_of(self.steps, "steps")] + [label_of(c, k) for k, c in self.controls.items()])
            text = _("Live panel '{name}': train button ({controls}), progress bar, live curves: {curves}").format(
                name=self.name, controls=names, curves=listed(_(c) for c in self.curves))
        status = html.unescape(re.sub(r"<[^>]*>", "", self.status.value)).strip()
        for line in (status, self.summary):
            if line:
                text += "\n" + line
        return panels.widget_bundle(self.widget, text, bytes(self.image.value) or None, alt=self.accessible_name)
