"""A slider move validates nothing twice: each Play panel of each notebook, built from its Play cell's own
arguments (tests/_notebook_panels.play_panels, no notebook runs), has each control moved once while every
call of attnlab.core.checks' functions is counted by (function, argument name) (a profile hook on their
code, so the specs of ``checks.arguments``, which hold the functions themselves, are counted too).

The rule (docs/architecture.md: arguments are "checked once, at the public boundary"; "internal calls use the unchecked kernels"):
ideally a move runs no check of a value its widget already bounds (the update receives the widget's
value and calls unchecked internals: ``*_unchecked`` twins beside the checked public functions, which
keep their checks and messages for learners); at most, each argument is validated once per move, where
an update passes a value it computed (a tensor, a mask) to a checked function. Every panel of every
notebook keeps to it, with no exceptions. ``batch_shape`` (no argument name: it compares shapes already
checked) is not counted.

``PYTHONPATH=tests python tests/lessons/test_checks_per_move.py`` prints the counts, panel by panel. On f753b9e nine panels still
validated an argument more than once per move (08's alignment 22 times: 11 decoding steps x 2 models
through the attention module's checked forward; 02's n slider 16; 04's step table 12); on 63b4900 07's
mask panel checked num_queries and num_keys twice per move. 07's tile panel, whose block and causal moves
clamp the tile slider, runs its update once per move (``Panel.quietly``; tests/lessons/test_nb07_figures.py).
"""
import sys
from pathlib import Path

import numpy as np
import pytest

from _notebook_panels import play_panels
from attnlab.core import checks

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9][0-9]_*.ipynb"))
CHECKS = {getattr(checks, n).__code__: n for n in dir(checks)
          if not n.startswith("_") and n[0].islower() and callable(getattr(checks, n))
          and getattr(getattr(checks, n), "__module__", None) == checks.__name__ and n not in ("arguments",)}


class Counter:
    """Counts calls of the checks functions by (function, argument name) while active."""

    def __init__(self):
        self.seen = {}

    def _hook(self, frame, event, _arg):
        if event == "call" and frame.f_code in CHECKS:
            key = (CHECKS[frame.f_code], str(frame.f_locals.get("name", frame.f_locals.get("ref_name"))))
            self.seen[key] = self.seen.get(key, 0) + 1

    def __enter__(self):
        self.seen = {}
        self._old = sys.getprofile()
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc):
        sys.setprofile(self._old)


def another_value(control):
    """A value the control can take other than its current one (None for a control we leave alone)."""
    if hasattr(control, "options"):                            # a menu or selection slider: the next entry
        n = len(control.options)
        return ("index", (control.index + 1) % n) if n > 1 else None
    if isinstance(control.value, bool):
        return not control.value
    if hasattr(control, "max") and control.max is not None and control.min is not None:
        lo, hi = control.min, control.max
        if type(control).__name__ == "FloatLogSlider":
            return float(control.base ** ((lo + hi) / 2))
        mid = (lo + hi) / 2
        value = int(round(mid)) if isinstance(control.value, int) else float(mid)
        if value == control.value:
            value = hi
        return value
    return None


def moves(notebook):
    """{(panel, control): {(function, argument): calls}} for one move of every control of every panel."""
    out = {}
    for panel in play_panels(notebook):
        for name, control in panel.controls.items():
            value = another_value(control)
            if value is None:
                continue
            attribute, value = value if isinstance(value, tuple) else ("value", value)
            with Counter() as c:
                setattr(control, attribute, value)
            assert not panel.error.value, (panel.name, name, panel.error.value)
            out[(panel.name, name)] = c.seen
    return out


def twice(seen):
    return {k: n for k, n in seen.items() if n > 1 and k[1] != "None"}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_move_validates_each_argument_at_most_once(notebook):
    found = moves(notebook)
    assert found, "no control moved"
    over = {key: twice(seen) for key, seen in found.items() if twice(seen)}
    assert over == {}


def test_the_counter_can_fail():
    import torch

    import attnlab as al
    with Counter() as c:
        al.masked_softmax(al.masked_softmax(torch.ones(2, 3)))              # a checked call inside a checked call
    assert c.seen[("tensor", "scores")] == 2 and twice(c.seen)
    with Counter() as c:
        checks.Int(1)(3, "n")                                               # a spec counts as its function
    assert c.seen == {("count", "n"): 1}


if __name__ == "__main__":                   # PYTHONPATH=tests python tests/lessons/test_checks_per_move.py: the counts, notebook by notebook
    for nb in NOTEBOOKS[int(sys.argv[1]) if len(sys.argv) > 1 else 0:]:
        for key, seen in moves(nb).items():
            print(nb.stem[:2], key, sum(seen.values()), "twice:", twice(seen) or "-", flush=True)
    np.seterr()
