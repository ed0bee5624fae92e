"""Every live panel in every notebook: after each move, the blitted picture equals matplotlib's own
full draw of the figure, and dragging one control is blitted (not drawn in full) where it can be.

The notebooks run in this process (tests/_notebook_panels.py); each control is moved three times in
a row, as a drag would, through values spread over its range or options.
"""
import pickle
from pathlib import Path

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from _notebook_panels import notebook_panels

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _moves(control):
    """Three values for a control, none equal to its current one where the control allows."""
    if hasattr(control, "options"):
        options = control.options
        values = list(options.values()) if isinstance(options, dict) else [
            o[1] if isinstance(o, tuple) else o for o in options]
        others = [v for v in values if v != control.value] or values
        return (others * 3)[:3]
    if isinstance(control.value, bool):
        return [not control.value, control.value, not control.value]
    if hasattr(control, "max"):
        lo, hi = control.min, control.max
        values = [lo + (hi - lo) * f for f in (0.8, 0.5, 0.2)]
        return [type(control.value)(round(v) if isinstance(control.value, int) else v) for v in values]
    return []


def _differing(panel):
    """Share of pixels differing from a full draw of a copy of the figure (drawing the panel's own
    figure would move titles and ticks behind the blitter's back, as no live panel does)."""
    shown = np.asarray(panel.figure.canvas.buffer_rgba()).copy()
    with panel.blitter.everything_shown():
        copy = pickle.loads(pickle.dumps(panel.figure))
    FigureCanvasAgg(copy).draw()
    reference = np.asarray(copy.canvas.buffer_rgba())
    return (np.abs(shown.astype(int) - reference).max(axis=-1) > 40).mean()


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_blitted_panels_match_full_draws(notebook):
    for panel in notebook_panels(notebook):
        if panel.blitter is None:
            continue
        for name, control in panel.controls.items():
            for value in _moves(control):
                control.value = value
                if panel.error.value:                   # the callback refused: the last image stays
                    continue
                assert _differing(panel) == 0.0, (panel.name, name, value, panel.blitter.why)
        sliders = [c for c in panel.controls.values() if hasattr(c, "max")]
        if sliders:
            assert panel.blitter.blits > 0, (panel.name, panel.blitter.why)
