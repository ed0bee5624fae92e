"""Self-checks: predict, then reveal. Each builds a small widget that checks the learner's answer,
says why a wrong answer is wrong, and keeps the solution one click away.

    selfcheck.multiple_choice("T -> 0 gives ...", {"uniform weights": "No: that is T -> ∞", ...}, answer="one-hot")
    selfcheck.numeric("Var(q·k) for d_k = 64?", answer=64, tolerance=0.5, solution="...",
                      mistakes={8: "that is the standard deviation √64; the variance is its square."})
    selfcheck.check_function(my_softmax, reference=torch.softmax, cases=[...])   # prints a report

Questions check what the notebook's author gives them when they are made (a ValueError/TypeError
naming the argument); what the learner types or writes never raises: it gets feedback in words.
"""
import copy
import html
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

import ipywidgets as widgets

from ..core import checks
from ..i18n import N_, get_language, gettext as _, language
from . import panels

_OK = "<span style='color:#1b7f3b'><b>✓ {right}</b> {}</span>"
_NO = "<span style='color:#b00020'><b>✗ {wrong}</b> {}</span>"
RIGHT, WRONG = N_("Right."), N_("Not quite.")


def _ok(text):
    return _OK.format(text, right=_(RIGHT))


def _no(text):
    return _NO.format(text, wrong=_(WRONG))


class _Check:
    """Common parts: a question, an answer control, a Check button, feedback and a solution toggle."""

    def __init__(self, question, control, solution):
        checks.instance(question, "question", str, "a str (HTML allowed)")
        checks.instance(solution, "solution", str, "a str (HTML allowed)")
        self.question = question
        self.language = get_language()     # its feedback stays in the language it was built in
        self.feedback = widgets.HTML()
        self.check_button = widgets.Button(description=_("Check"), button_style="primary",
                                           layout=widgets.Layout(width="auto"))
        self.check_button.on_click(lambda _button: self.check())
        self.solution = widgets.HTML(f"<div style='margin:4px 0'>{solution}</div>")
        self.solution.layout.display = "none"
        self.reveal = widgets.ToggleButton(description=_("Show solution"), layout=widgets.Layout(width="auto"))
        self.reveal.observe(self._toggle, names="value")
        self.control = control
        self.widget = widgets.VBox([
            widgets.HTML(_("<b>Self-check.</b> {question}").format(question=question)), control,
            widgets.HBox([self.check_button, self.reveal]), self.feedback, self.solution])
        self.widget.add_class("attnlab-selfcheck")

    def _toggle(self, change):
        self.solution.layout.display = "" if change["new"] else "none"
        with language(self.language):
            self.reveal.description = _("Hide solution") if change["new"] else _("Show solution")

    def _repr_mimebundle_(self, **kwargs):
        with language(self.language):
            text = _("Self-check: {question}").format(question=html.unescape(self.question))
        return panels.widget_bundle(self.widget, text)


class MultipleChoice(_Check):
    def __init__(self, question, options, answer, solution=""):
        if not isinstance(options, Mapping):
            raise checks.error("options", "a non-empty dict {option: feedback}",
                               f"{type(options).__name__} {options!r}", kind=TypeError)
        if not options:
            raise checks.error("options", "a non-empty dict {option: feedback}", "{}")
        if not all(isinstance(o, str) and isinstance(f, str) for o, f in options.items()):
            raise checks.error("options", "str options mapped to str feedback",
                               [(type(o).__name__, type(f).__name__) for o, f in options.items()], kind=TypeError)
        checks.choice(answer, "answer", options, expected=f"one of the options {list(options)}")
        self.options, self.answer = dict(options), answer
        control = widgets.RadioButtons(options=list(self.options), value=None,
                                       layout=widgets.Layout(width="max-content"))
        super().__init__(question, control, solution or self.options[answer])

    def check(self, choice=None):
        """Check ``choice`` (default: the selected option); returns True when right."""
        with language(self.language):
            return self._judge(choice)

    def _judge(self, choice):
        if choice is not None:
            if choice not in self.options:
                self.feedback.value = _no(_("{choice} is not one of the options: pick one of them.").format(
                    choice=html.escape(str(choice), quote=False)))
                return False
            self.control.value = choice
        choice = self.control.value
        if choice is None:
            self.feedback.value = _("Pick an answer first.")
            return False
        right = choice == self.answer
        self.feedback.value = (_ok if right else _no)(self.options[choice])
        return right


class Numeric(_Check):
    def __init__(self, question, answer, *, tolerance=1e-6, solution="", hint="", mistakes=None):
        self.answer = checks.real(answer, "answer")
        self.tolerance = checks.real(tolerance, "tolerance", low=0)
        self.hint = checks.string(hint, "hint")
        self.mistakes = _mistakes(mistakes, self.answer, self.tolerance)
        super().__init__(question, widgets.FloatText(value=0.0, description=_("answer:")), solution)

    def check(self, value=None):
        """Check ``value`` (default: the typed number); returns True when within the tolerance.
        A value that is not a number gets feedback saying so (never an exception). A wrong value
        within the tolerance of a known mistake gets that mistake's message instead of the hint."""
        with language(self.language):
            return self._judge(value)

    def _judge(self, value):
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                self.feedback.value = _no(_("{value} is not a number: type a number. {hint}").format(
                    value=html.escape(repr(value), quote=False), hint=self.hint))
                return False
            value = float(value)
            if math.isfinite(value):
                self.control.value = value
        else:
            value = self.control.value
        right = math.isfinite(value) and abs(value - self.answer) <= self.tolerance
        if right:
            self.feedback.value = _ok(_("{answer:g}.").format(answer=self.answer))
        elif not math.isfinite(value):
            self.feedback.value = _no(_("Type a finite number. {hint}").format(hint=self.hint))
        elif (message := self.mistake(value)) is not None:
            self.feedback.value = _no(_("{value}: {message}").format(value=f"{value:g}", message=message))
        elif value > self.answer:
            self.feedback.value = _no(_("{value} is too large. {hint}").format(value=f"{value:g}", hint=self.hint))
        else:
            self.feedback.value = _no(_("{value} is too small. {hint}").format(value=f"{value:g}", hint=self.hint))
        return right

    def mistake(self, value):
        """The message of the known mistake within the tolerance of ``value`` (the nearest), or None."""
        near = [(abs(value - wrong), message) for wrong, message in self.mistakes
                if abs(value - wrong) <= self.tolerance]
        return min(near, key=lambda pair: pair[0])[1] if near else None


def _mistakes(mistakes, answer, tolerance):
    """``mistakes`` checked, as a list of (wrong value, message): finite numbers apart from the answer
    and from each other, each with a non-empty message."""
    if mistakes is None:
        return []
    if isinstance(mistakes, Mapping):
        pairs = list(mistakes.items())
    elif isinstance(mistakes, (list, tuple)):
        pairs = list(mistakes)
        for pair in pairs:
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise checks.error("mistakes", "(wrong value, message) pairs", repr(pair), kind=TypeError)
    else:
        raise checks.error("mistakes", "a dict {wrong value: message} or a list of (value, message) pairs",
                           type(mistakes).__name__, kind=TypeError)
    checked = []
    for wrong, message in pairs:
        wrong = checks.real(wrong, "mistakes: a wrong value")
        checks.string(message, f"mistakes: the message for {wrong:g}", non_empty=True)
        if abs(wrong - answer) <= tolerance:
            raise ValueError(f"mistakes: {wrong:g} is within the tolerance {tolerance:g} of the answer {answer:g}, "
                             f"so it would count as right; expected a wrong value")
        for other, _message in checked:
            if abs(wrong - other) <= tolerance:
                raise ValueError(f"mistakes: {other:g} and {wrong:g} are within the tolerance {tolerance:g} of each "
                                 f"other, so a typed number could be either; give them one message")
        checked.append((float(wrong), message))
    return checked


def multiple_choice(question, options, answer, solution=""):
    """A question with options. ``options`` maps each option to the feedback shown when it is picked."""
    return MultipleChoice(question, options, answer, solution)


def numeric(question, answer, *, tolerance=1e-6, solution="", hint="", mistakes=None):
    """A question whose answer is a number, checked within ``tolerance``.

    hint: said under any wrong number that is not a known mistake (HTML allowed).
    mistakes: the wrong numbers a learner really produces, a dict {wrong value: message} (or a list
        of (wrong value, message) pairs, which keeps two mistakes that give the same number apart so
        that the check can refuse them), each checked with the same tolerance. A wrong answer that
        matches one gets its message (why it is wrong, what they probably did) instead of the hint:
            selfcheck.numeric("√d_k for d_k = 128? Two decimals.", answer=11.31, tolerance=0.01,
                              hint="The square root of d_k.",
                              mistakes={128 / 8: "you divided 128 by 8: 8 is √64, not √128.",
                                        128: "that is d_k itself: take its square root."})
        Compute the values where a computation says what the mistake is (``128 / 8``, not ``16``).
        Each must be a finite number farther than ``tolerance`` from the answer and from the other
        mistakes, each message a non-empty str (HTML allowed), shown after the typed number
        ("16: you divided ..."); if two are within the tolerance of a typed number, the nearer wins.
    """
    return Numeric(question, answer, tolerance=tolerance, solution=solution, hint=hint, mistakes=mistakes)


HINT = N_("Hint")          # the label a Hint is printed under by default


class Hint:
    """A common mistake that ``check_function`` recognises in a wrong answer, and what to say.

    Build one with ``mistake`` (the learner's output equals a typical wrong function's; printed as
    "Recognised mistake: ...") or ``symptom`` (a predicate on the learner's output is True; printed
    as "Hint: ...").
    """

    def __init__(self, matches, message, *, label=HINT):
        checks.function(matches, "hint")
        checks.string(message, "message", non_empty=True)
        checks.string(label, "label", non_empty=True)
        self.matches, self.message, self.label = matches, message, label


def mistake(wrong, message, *, atol=1e-6, rtol=1e-5):
    """A Hint shown as "Recognised mistake: <message>" when the learner's output equals
    ``wrong(*case)`` (a typical mistake written out, e.g. a softmax over the wrong dim), within
    atol/rtol, NaN matching NaN. A ``wrong`` that raises on a case (say, on its shapes) is skipped there."""
    import torch

    checks.function(wrong, "wrong", "a function with the reference's arguments")
    _tolerances(atol, rtol)

    def matches(got, args):
        want = wrong(*args)
        got, want = torch.as_tensor(got).double(), torch.as_tensor(want).double()
        return got.shape == want.shape and bool(torch.allclose(got, want, atol=atol, rtol=rtol, equal_nan=True))
    return Hint(matches, message, label=N_("Recognised mistake"))


def symptom(predicate, message):
    """A Hint shown as "Hint: <message>" when ``predicate(output, *case)`` is True (e.g. rows that
    do not sum to 1)."""
    checks.function(predicate, "predicate", "a function (output, *case) -> bool")
    return Hint(lambda got, args: bool(predicate(got, *args)), message)


def _copy(args):
    """The case's arguments copied, so an in-place edit by the learner changes no shared tensor.
    What cannot be copied (a model holding non-leaf tensors) is passed as it is."""
    import torch

    def one(a):
        if isinstance(a, torch.Tensor):
            c = a.detach().clone()
            return c.requires_grad_() if a.requires_grad and c.is_floating_point() else c
        try:
            return copy.deepcopy(a)
        except Exception:  # e.g. a module whose buffers are not graph leaves
            return a
    return tuple(one(a) for a in args)


def _as_tensor(x):
    """(tensor, None) for a tensor, number or rectangular list; (None, words) for anything else."""
    import numpy as np
    import torch

    if x is None:
        return None, _("returned None: did you forget the `return` line?")
    if isinstance(x, torch.Tensor):
        return x.detach(), None
    if isinstance(x, (bool, numbers.Number, np.ndarray, list, tuple)) and not isinstance(x, complex):
        try:
            t = torch.as_tensor(np.asarray(x, dtype=float) if not isinstance(x, np.ndarray) else x)
        except (TypeError, ValueError, RuntimeError):
            kind = _("a ragged list (rows of different lengths)") if isinstance(x, (list, tuple)) else type(x).__name__
            return None, _("returned {kind}, not a tensor of numbers").format(kind=kind)
        return t, None
    return None, _("returned a {type} ({value}), expected a tensor").format(type=type(x).__name__, value=repr(x)[:60])


class _Stub(Exception):
    """The learner's function is not written yet (it raises NotImplementedError)."""


@dataclass
class _Failure:
    """Why one case failed, in words for the learner, and the learner's output (None when there is
    nothing to show a hint: it raised, or returned something that is not numbers)."""
    lines: list
    output: object = None


def check_function(fn, reference, cases, *, name=None, atol=1e-6, rtol=1e-5, hints=()):
    """Run the learner's ``fn`` and a ``reference`` on each case (a tuple of arguments) and print a
    report: ✓ per matching case, what differs otherwise. Returns True when every case matches.

    Whatever ``fn`` does is reported in words, never raised: an exception, a missing ``return``
    (None), a str, dict or ragged list, a wrong shape, NaN or inf where the reference has none,
    and values off by more than atol + rtol * |reference|: how many entries, the greatest absolute
    and relative differences and where, and the two values where they differ most. NaN where the
    reference has NaN too counts as equal. ``fn`` and ``reference`` each run on their own copies of
    the case's tensors, so an in-place edit (``x.mul_(2)``) cannot change the cases.

    hints: common mistakes to recognise, each a ``Hint`` (see ``mistake`` and ``symptom``) or a
        pair (wrong_function, message) meaning ``mistake(wrong_function, message)``. When a case
        fails and a hint matches the learner's output, its message is printed under the case (the
        first time in full; under a later case "as under case N"):
            check_function(my_softmax, ref, cases, hints=[
                (lambda x: torch.softmax(x, 0), "Softmax over the keys: that is dim=-1, not dim=0."),
                symptom(lambda out, x: (out < 0).any(), "Weights are never negative: exponentiate.")])
        prints, for a learner who wrote dim=0:
            case 1: ✗ values differ from the reference by up to 0.47 ...
                Recognised mistake: Softmax over the keys: that is dim=-1, not dim=0.
        A hint that raises is skipped.
    The reference, cases, tolerances and hints are the notebook author's: bad ones raise a
    ValueError/TypeError naming the argument.
    """
    hints = _author_arguments(reference, cases, atol, rtol, hints)
    wants = _reference_outputs(reference, cases)
    name = name or getattr(fn, "__name__", None) or _("your function")
    if not callable(fn):
        print(_("{name} is not a function (it is a {type}): define it with def and run again.").format(
            name=name, type=type(fn).__name__))
        return False
    shown, failed = {}, 0                                          # hint -> the case it was first shown under
    for i, (args, want) in enumerate(zip(cases, wants), 1):
        try:
            failure = _run_case(fn, args, want, name, atol, rtol)
        except _Stub:
            print(_("case {i}: {name} is not written yet (it raises NotImplementedError). Fill it in and run again.")
                  .format(i=i, name=name))
            return False
        if failure is None:
            print(_("case {i}: ✓").format(i=i))
            continue
        failed += 1
        print(_("case {i}: ✗ {problem}").format(i=i, problem="\n    ".join(failure.lines)))
        _print_hints(hints, failure.output, args, i, shown)
    print(_("{name}: not yet, see above.").format(name=name) if failed
          else _("{name}: all {n} cases match.").format(name=name, n=len(cases)))
    return not failed


def _author_arguments(reference, cases, atol, rtol, hints):
    """The notebook author's arguments checked (a TypeError/ValueError naming one); the hints as Hints."""
    checks.function(reference, "reference")
    checks.Items(min_len=1)(cases, "cases")
    for i, args in enumerate(cases, 1):
        if not isinstance(args, tuple):
            raise checks.error("cases", "each case to be a tuple of arguments",
                               f"{type(args).__name__} for case {i} (write ({args!r},) for one argument)", kind=TypeError)
    _tolerances(atol, rtol)
    checks.Items()(hints, "hints")
    return [_as_hint(h) for h in hints]


def _as_hint(h):
    if isinstance(h, Hint):
        return h
    if isinstance(h, tuple) and len(h) == 2 and callable(h[0]) and isinstance(h[1], str):
        return mistake(*h)
    raise checks.error("hints", "a Hint or a (function, message) pair", repr(h), kind=TypeError)


def _reference_outputs(reference, cases):
    """The reference's output on each case (the author's: its errors raise), each checked to be numbers."""
    wants = [reference(*_copy(args)) for args in cases]
    for i, want in enumerate(wants, 1):
        if _as_tensor(want)[0] is None:
            raise checks.error("reference", "a tensor (or numbers) for every case",
                               f"{type(want).__name__} for case {i}", kind=TypeError)
    return wants


def _tolerances(atol, rtol):
    checks.real(atol, "atol", low=0)
    checks.real(rtol, "rtol", low=0)


def _run_case(fn, args, want, name, atol, rtol):
    """None when fn(*args) matches ``want``, else a _Failure; raises _Stub for a stub."""
    try:
        got = fn(*_copy(args))
    except NotImplementedError:
        raise _Stub from None
    except Exception as exc:  # reported to the learner
        return _Failure([_("{name} raised {error}: {message}").format(name=name, error=type(exc).__name__,
                                                                      message=exc)])
    return _compare(got, want, name, atol, rtol)


def _compare(got, want, name, atol, rtol):
    """None when ``got`` matches ``want`` within the tolerances, else a _Failure saying the first
    thing that differs: the kind of result, its shape, NaN/inf, then the values."""
    got_t, problem = _as_tensor(got)
    if problem:
        return _Failure([_("{name} {problem}").format(name=name, problem=problem)])
    if got_t.is_complex():
        return _Failure([_("{name} returned complex numbers ({dtype}), expected real ones").format(
            name=name, dtype=got_t.dtype)], got)
    got_t, want_t = got_t.double(), _as_tensor(want)[0].double()
    for differences in (_shape_differs, _non_finite, _values_differ):
        lines = differences(got_t, want_t, atol, rtol)
        if lines:
            return _Failure(lines, got)
    return None


def _shape_differs(got, want, atol, rtol):
    if got.shape != want.shape:
        return [_("shape {got}, expected {want}").format(got=tuple(got.shape), want=tuple(want.shape))]
    return None


def _non_finite(got, want, atol, rtol):
    """NaN (or inf) in the learner's values where the reference has a number."""
    import torch

    for bad, word in ((torch.isnan, "NaN"), (torch.isinf, "inf")):
        extra = bad(got) & ~bad(want)
        if extra.any():
            return [_("{count} of {total} values are {word} where the reference has numbers (first at index {first}): "
                      "look for a division by zero or an exp of a large number").format(
                count=int(extra.sum()), total=got.numel(), word=word, first=_index(extra.flatten().nonzero()[0], got))]
    return None


def _values_differ(got, want, atol, rtol):
    """The report on the values outside atol + rtol * |want| (same shapes, float64), or None."""
    import torch

    off = ~_close(got, want, atol, rtol)
    if not off.any():
        return None
    absolute = torch.where(off, (got - want).abs(), 0.0).nan_to_num(nan=0.0, posinf=math.inf)
    relative = torch.where(off, absolute / want.abs(), 0.0).nan_to_num(nan=0.0, posinf=math.inf)
    worst = int(absolute.flatten().argmax())
    lines = [_("values differ from the reference by up to {err:.3g}").format(err=float(absolute.flatten()[worst]))]
    if got.numel() == 1:
        return lines + _scalar_lines(got, want, absolute, relative, atol, rtol)
    return lines + _tensor_lines(got, want, off, absolute, relative, atol, rtol)


def _close(got, want, atol, rtol):
    """Entry by entry: within atol + rtol * |want|, or equal (the same inf), or NaN in both."""
    import torch

    return ((got - want).abs() <= atol + rtol * want.abs()) | (got == want) | (torch.isnan(got) & torch.isnan(want))


def _scalar_lines(got, want, absolute, relative, atol, rtol):
    return [_("Expected {want} but got {got}.").format(want=_number(want.item()), got=_number(got.item())),
            _("Absolute difference: {diff} (up to {tol} allowed)").format(diff=_number(absolute.item()),
                                                                          tol=_number(atol)),
            _("Relative difference: {diff} (up to {tol} allowed)").format(diff=_number(relative.item()),
                                                                          tol=_number(rtol))]


def _tensor_lines(got, want, off, absolute, relative, atol, rtol):
    count, total = int(off.sum()), off.numel()
    a, r = int(absolute.flatten().argmax()), int(relative.flatten().argmax())
    return [_("Mismatched elements: {count} / {total} ({percent})").format(
                count=count, total=total, percent=f"{count / total:.1%}"),
            _("Greatest absolute difference: {diff} at index {index} (up to {tol} allowed)").format(
                diff=_number(absolute.flatten()[a].item()), index=_index(a, got), tol=_number(atol)),
            _("Greatest relative difference: {diff} at index {index} (up to {tol} allowed)").format(
                diff=_number(relative.flatten()[r].item()), index=_index(r, got), tol=_number(rtol)),
            _("At index {index} your function gives {got}, the reference {want}.").format(
                index=_index(a, got), got=_number(got.flatten()[a].item()), want=_number(want.flatten()[a].item()))]


def _index(flat, t):
    """The index tuple of entry ``flat`` of ``t`` (row-major), e.g. (1, 0)."""
    import numpy as np

    return tuple(int(i) for i in np.unravel_index(int(flat), tuple(t.shape)))


def _number(x):
    """A number as the report writes it: up to 4 significant digits (0.5, 1e-06, 0.4712, inf)."""
    return f"{x:.4g}"


def _print_hints(hints, got, args, i, shown):
    """Under case ``i``, the message of each hint that matches the learner's output ``got`` (in full
    the first time, then "as under case N"); ``shown`` records where each was said first."""
    if got is None:
        return
    for hint in hints:
        if not _matches(hint, got, args):
            continue
        message = _("as under case {i}.").format(i=shown[hint]) if hint in shown else _(hint.message)
        print("    " + _("{label}: {message}").format(label=_(hint.label), message=message))
        shown.setdefault(hint, i)


def _matches(hint, got, args):
    try:
        return bool(hint.matches(got, _copy(args)))
    except Exception:  # a hint must never break the report
        return False
