"""Every live panel in every notebook: after each move of a seeded random sequence over all its
controls (switching between them), the panel's picture is exactly (max difference 0 on every pixel)
matplotlib's own full draw of the same state, and a panel that declares moving artists blits; and
every slider's drag blits every move, except the sliders FULL_DRAW_SLIDERS names (with the reason).

No notebook is executed: each notebook's panels are built by calling its lesson's Play functions with
each Play cell's own arguments (tests/_notebook_panels.play_panels: only the earlier cells those
arguments need run, e.g. 08's pretrained models), once per notebook: the drag test runs first on the
fresh panels (every drag ends where it began, so every control is back at its first value), then the
random moves on the same panels.
"""
import io
import pickle
import zlib
from pathlib import Path

import nbformat
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from PIL import Image

from _notebook_panels import expected_panel_cells, last_plan, play_panels

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MOVES = 14                                      # per panel


def random_value(control, rng):
    """A value the control can take, other than its current one where it can."""
    if hasattr(control, "options"):
        options = control.options
        values = list(options.values()) if isinstance(options, dict) else [
            o[1] if isinstance(o, tuple) else o for o in options]
        others = [v for v in values if v != control.value] or values
        return others[rng.integers(len(others))]
    if isinstance(control.value, bool):
        return not control.value
    if type(control).__name__ == "FloatLogSlider":
        exponent = rng.uniform(control.min, control.max)
        return float(control.base ** (round(exponent / control.step) * control.step))
    if hasattr(control, "max") and control.max is not None:
        lo, hi = control.min, control.max
        if isinstance(control.value, int):
            return int(rng.integers(lo, hi + 1))
        step = control.step or (hi - lo) / 100
        return float(lo + step * rng.integers(0, round((hi - lo) / step) + 1))
    if isinstance(control.value, str):
        words = control.value.split() or ["a"]
        return " ".join(rng.permutation(words)[: rng.integers(1, len(words) + 1)])
    if isinstance(control.value, float):
        return float(np.round(control.value * rng.uniform(0.5, 1.5), 2))
    return None


def full_draw(figure):
    copy = pickle.loads(pickle.dumps(figure))
    FigureCanvasAgg(copy).draw()
    return np.asarray(copy.canvas.buffer_rgba())


def max_difference(panel):
    shown = np.asarray(Image.open(io.BytesIO(bytes(panel.image.value))).convert("RGBA"))
    return int(np.abs(shown.astype(int) - full_draw(panel.figure)).max())


# Panels where a random jump of almost any control changes the figure's structure, and why (their
# drags blit: test_every_slider_move_blits_unless_named).
JUMPS_DRAW_IN_FULL = {
    "kernel-regression-explorer": "a jump of σ or of the query moves the weight bars' y axis to another step",
}


# Sliders whose moves may draw the whole figure, and why; every other slider of every panel blits.
FULL_DRAW_SLIDERS = {
    ("kernel-regression-explorer", "n_train"): "the number of key columns: the heatmap's limits and ticks",
    ("02-scoring-functions", "n"): "the number of key columns: the heatmap's limits and ticks",
    ("03-multi-head", "heads"): "shows, hides, moves and retitles heatmaps",
    ("06_positional_encoding", "width"): "P's shape (limits, ticks) and the similarity's y range",
    ("11-circuit", "length"): "the repeat length sets the size of all eight patterns (extent, ticks, the copies' lines)",
}


def drag(control, moves=4):
    """Values one step apart, back and forth, as dragging a slider by keys gives."""
    if not hasattr(control, "step") or control.step is None:                  # a SelectionSlider
        values = list(control.options)
        i = values.index(control.value)
        return [values[i + 1 if i + 1 < len(values) else i - 1], control.value] * (moves // 2)
    v, step = control.value, control.step
    if type(control).__name__ == "FloatLogSlider":                           # the step is in the exponent
        e = np.log(v) / np.log(control.base)
        return [float(control.base ** (e + step if e + step <= control.max else e - step)), v] * (moves // 2)
    return [v + step if v + step <= control.max else v - step, v] * (moves // 2)


def is_slider(control):
    return "Slider" in type(control).__name__


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=lambda p: p.stem)
def executed(request):
    """The notebook's Play panels, built once, shared by the tests below (pytest runs them for one
    notebook, then the next: one notebook's panels alive at a time)."""
    made = play_panels(request.param)
    return request.param, made, dict(last_plan)


def test_the_panels_are_the_play_cells_and_no_notebook_ran(executed):
    """Every live panel the stored notebook shows is built, by its own Play cell's call, and the notebook
    as a whole did not run (only the Play cells and the cells their arguments need)."""
    notebook, made, plan = executed
    cells = expected_panel_cells(notebook)
    assert len(made) == len(cells), (plan, [p.name for p in made])
    assert set(cells) <= set(plan["plays"]) and plan["calls"], plan
    code_cells = sum(c["cell_type"] == "code" for c in nbformat.read(notebook, as_version=4).cells)
    assert len(plan["cells"]) < code_cells, plan


def test_every_slider_move_blits_unless_named(executed):
    """Dragging any slider of any Play panel blits every move after the first (which may follow another
    control's full draw), and stays exact, except the sliders FULL_DRAW_SLIDERS names."""
    notebook, made, _plan = executed
    named = set()
    for panel in made:
        for name, control in panel.controls.items():
            if not is_slider(control):
                continue
            if (panel.name, name) in FULL_DRAW_SLIDERS:
                named.add((panel.name, name))
                continue
            assert panel.blitter is not None, (panel.name, "blit=False")
            for i, value in enumerate(drag(control)):
                control.value = value
                assert not panel.error.value, (panel.name, name, value, panel.error.value)
                if i > 0:
                    assert panel.blitter.why == "", (panel.name, name, value, panel.blitter.why)
            assert max_difference(panel) == 0, (panel.name, name)


def test_panels_equal_full_draws_after_random_moves(executed):
    notebook, made, _plan = executed
    rng = np.random.default_rng(zlib.crc32(notebook.stem.encode()))
    for panel in made:
        assert max_difference(panel) == 0, (panel.name, "first draw")
        blits = panel.blitter.blits if panel.blitter else 0     # the drag test's blits are not these moves'
        names = [n for n, c in panel.controls.items() if random_value(c, rng) is not None]
        for _ in range(MOVES if names else 0):
            name = names[rng.integers(len(names))]
            value = random_value(panel.controls[name], rng)
            panel.controls[name].value = value
            if panel.error.value:                   # the callback refused: the last image stays
                continue
            why = panel.blitter.why if panel.blitter else "no blitter"
            assert max_difference(panel) == 0, (panel.name, name, value, why)
        if panel.blitter is not None and panel.blitter.moving and names:
            assert panel.blitter.blits > blits or panel.name in JUMPS_DRAW_IN_FULL, (panel.name, panel.blitter.why)
            assert panel.blitter.exact, (panel.name, panel.blitter.why)
