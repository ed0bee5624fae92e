"""A slider move validates nothing twice: each Play panel of each notebook, built from its Play cell's own
arguments (tests/_notebook_panels.play_panels, no notebook runs), has each control moved once while every
call of attnlab.core.checks' functions is counted by (function, argument name) (a profile hook on their
code, so the specs of ``checks.arguments``, which hold the functions themselves, are counted too).

The rule: on the way down from one move, each argument is validated at most once. Not zero: a panel's
update receives the widget's value, which the widget bounds, but an update may still pass a value it
computed (a tensor, a mask) to a checked public function where the lesson has no unchecked kernel; once
is the contract (DESIGN.md: "checked once, at the public boundary; internal calls use the unchecked
kernels"). ``batch_shape`` (no argument name: it compares shapes already checked) is not counted.

``python tests/test_checks_per_move.py`` prints the counts, panel by panel. On 63b4900 07's mask panel
checked num_queries and num_keys twice per move (19 checks a move; 4 now) and its tile panel validated
queries, keys and values twice (the update called the checked scaled_dot_product_attention); those are
unchecked internals now. NOT_YET lists the panels still above once, with the most validations of one
argument in one move as measured, and why; the test fails if any panel checks more than that, or if a
panel not listed checks anything twice.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

from _notebook_panels import play_panels
from attnlab.core import checks

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9][0-9]_*.ipynb"))
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


NOT_YET = {
    "kernel-regression-explorer": (2, "01: the update calls the checked nadaraya_watson and the plot's checked "
                                      "helpers on the same x"),
    "kernel-regression-training": (4, "01: leave_one_out retrains through the checked train_bandwidth"),
    "02-scoring-functions": (16, "02: the n slider redraws 15 samples, each through the checked score functions"),
    "03-multi-head": (6, "03: each of 6 head panels is drawn through the checked plotting helpers"),
    "04-self-attention": (12, "04: the step table formats each of 12 vectors with the checked formatter"),
    "cat-milk-it": (2, "05: the vectors are checked by the update and again by the checked attend"),
    "07-tiled-steps": (4, "07: a block or causal move clamps the tile slider, which runs the update a second time"),
    "08-alignment": (22, "08: 11 decoding steps × 2 models each call the core attention module's checked forward "
                         "(needs an unchecked step in attnlab.core)"),
    "11-circuit": (3, "11: the circuit's update calls the checked ablate and scores"),
}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_move_validates_each_argument_at_most_once(notebook):
    found = moves(notebook)
    assert found, "no control moved"
    over = {}
    for (panel, control), seen in found.items():
        most = max(twice(seen).values(), default=1)
        if most > NOT_YET.get(panel, (1, ""))[0]:
            over[(panel, control)] = twice(seen)
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


if __name__ == "__main__":                   # python tests/test_checks_per_move.py: the counts, notebook by notebook
    for nb in NOTEBOOKS[int(sys.argv[1]) if len(sys.argv) > 1 else 0:]:
        for key, seen in moves(nb).items():
            print(nb.stem[:2], key, sum(seen.values()), "twice:", twice(seen) or "-", flush=True)
    np.seterr()
