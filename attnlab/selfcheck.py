"""Self-checks: predict, then reveal. Each builds a small widget that checks the learner's answer,
says why a wrong answer is wrong, and keeps the solution one click away.

    selfcheck.multiple_choice("T -> 0 gives ...", {"uniform weights": "No: that is T -> ∞", ...}, answer="one-hot")
    selfcheck.numeric("Var(q·k) for d_k = 64?", answer=64, tolerance=0.5, solution="...")
    selfcheck.check_function(my_softmax, reference=torch.softmax, cases=[...])   # prints a report
"""
import html
import math

import ipywidgets as widgets

_OK = "<span style='color:#1b7f3b'><b>✓ Right.</b> {}</span>"
_NO = "<span style='color:#b00020'><b>✗ Not quite.</b> {}</span>"


class _Check:
    """Common parts: a question, an answer control, a Check button, feedback and a solution toggle."""

    def __init__(self, question, control, solution):
        self.question = question
        self.feedback = widgets.HTML()
        self.check_button = widgets.Button(description="Check", button_style="primary",
                                           layout=widgets.Layout(width="auto"))
        self.check_button.on_click(lambda _: self.check())
        self.solution = widgets.HTML(f"<div style='margin:4px 0'>{solution}</div>")
        self.solution.layout.display = "none"
        self.reveal = widgets.ToggleButton(description="Show solution", layout=widgets.Layout(width="auto"))
        self.reveal.observe(self._toggle, names="value")
        self.control = control
        self.widget = widgets.VBox([
            widgets.HTML(f"<b>Self-check.</b> {question}"), control,
            widgets.HBox([self.check_button, self.reveal]), self.feedback, self.solution])
        self.widget.add_class("attnlab-selfcheck")

    def _toggle(self, change):
        self.solution.layout.display = "" if change["new"] else "none"
        self.reveal.description = "Hide solution" if change["new"] else "Show solution"

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = f"Self-check: {html.unescape(self.question)}"
        return bundle


class MultipleChoice(_Check):
    def __init__(self, question, options, answer, solution=""):
        if answer not in options:
            raise ValueError(f"answer: expected one of the options {list(options)}, got {answer!r}")
        self.options, self.answer = dict(options), answer
        control = widgets.RadioButtons(options=list(self.options), value=None,
                                       layout=widgets.Layout(width="max-content"))
        super().__init__(question, control, solution or self.options[answer])

    def check(self, choice=None):
        """Check ``choice`` (default: the selected option); returns True when right."""
        if choice is not None:
            self.control.value = choice
        choice = self.control.value
        if choice is None:
            self.feedback.value = "Pick an answer first."
            return False
        right = choice == self.answer
        self.feedback.value = (_OK if right else _NO).format(self.options[choice])
        return right


class Numeric(_Check):
    def __init__(self, question, answer, *, tolerance=1e-6, solution="", hint=""):
        self.answer, self.tolerance, self.hint = float(answer), float(tolerance), hint
        super().__init__(question, widgets.FloatText(value=0.0, description="answer:"), solution)

    def check(self, value=None):
        """Check ``value`` (default: the typed number); returns True when within the tolerance."""
        if value is not None:
            self.control.value = value
        value = self.control.value
        right = math.isfinite(value) and abs(value - self.answer) <= self.tolerance
        if right:
            self.feedback.value = _OK.format(f"{self.answer:g}.")
        elif not math.isfinite(value):
            self.feedback.value = _NO.format(f"Type a finite number. {self.hint}")
        else:
            direction = "too large" if value > self.answer else "too small"
            self.feedback.value = _NO.format(f"{value:g} is {direction}. {self.hint}")
        return right


def multiple_choice(question, options, answer, solution=""):
    """A question with options. ``options`` maps each option to the feedback shown when it is picked."""
    return MultipleChoice(question, options, answer, solution)


def numeric(question, answer, *, tolerance=1e-6, solution="", hint=""):
    """A question whose answer is a number, checked within ``tolerance``."""
    return Numeric(question, answer, tolerance=tolerance, solution=solution, hint=hint)


def check_function(fn, reference, cases, *, name=None, atol=1e-6):
    """Run the learner's ``fn`` and a ``reference`` on each case (a tuple of arguments) and print a
    report: ✓ per matching case, what differs otherwise. Exceptions are reported, not raised.
    Returns True when every case matches."""
    import torch

    name = name or getattr(fn, "__name__", "your function")
    ok = True
    for i, args in enumerate(cases, 1):
        want = reference(*args)
        try:
            got = fn(*args)
        except NotImplementedError:
            print(f"case {i}: {name} is not written yet (it raises NotImplementedError). Fill it in and run again.")
            return False
        except Exception as exc:  # reported to the learner
            print(f"case {i}: ✗ {name} raised {type(exc).__name__}: {exc}")
            ok = False
            continue
        got_t, want_t = torch.as_tensor(got), torch.as_tensor(want)
        if got_t.shape != want_t.shape:
            print(f"case {i}: ✗ shape {tuple(got_t.shape)}, expected {tuple(want_t.shape)}")
            ok = False
        elif not torch.allclose(got_t.double(), want_t.double(), atol=atol, rtol=1e-5, equal_nan=False):
            err = (got_t.double() - want_t.double()).abs().max().item()
            print(f"case {i}: ✗ values differ from the reference by up to {err:.3g}")
            ok = False
        else:
            print(f"case {i}: ✓")
    print(f"{name}: all {len(cases)} cases match." if ok else f"{name}: not yet, see above.")
    return ok
