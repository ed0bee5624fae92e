"""Notebook 06's symbols: the width of P is the model width, written D (docs/api.md's shape letters,
notebook 00's notation table: d is the query/key size); in the Play, i is the chosen position and m
runs over every position. Checked on what a learner reads: the figures' texts (read from the
lesson's named handles), the sliders, the text under the Play figure, the lesson's strings and
docstrings, and the notebook's cells."""
import inspect
import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import pytest
import torch
from matplotlib import pyplot as plt
from matplotlib.text import Text

import attnlab as al
from attnlab.lessons import nb06_positional_encoding as lesson
from attnlab.lessons.nb06_positional_encoding import encoding, exercises, figures, live

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "06_positional_encoding.ipynb"
# the symbol d on its own: "d = 32", "2j/d", "d/2", "(n, d)", "$d$"; not d_k, d2l, dv, "I'd", \delta
LONE_D = re.compile(r"(?<![\w'’\\])d(?![\w'’])")


def lone_d(text, *, query_key=False):
    """The places where ``text`` writes the symbol d; with ``query_key``, not those within 30
    characters of "query/key size" (the d of a query or key, which RoPE turns)."""
    hits = [text[max(0, m.start() - 30):m.end() + 30] for m in LONE_D.finditer(text)]
    return [h for h in hits if not (query_key and "query/key size" in h)]


def test_lone_d_finds_the_symbol_and_nothing_else():
    for text in ("d = 32", "base^(−2j/d)", "d/2 = 16", "(n, d) matrix", "$d$ numbers", "Change **d**"):
        assert lone_d(text), text
    for text in ("D = 32", "d_k", "d2l", "dv", "I'd", r"\delta", "dimension", "2j/D"):
        assert not lone_d(text), text
    assert lone_d("a vector of size d") and not lone_d("a vector of size d, the query/key size", query_key=True)


def figure_texts(fig):
    """Every text drawn in ``fig`` (titles, axis and colour-bar labels, legends, annotations)."""
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def test_explorer_sliders_and_text_write_the_width_as_D():
    e = lesson.play(n=60)
    try:
        assert e.controls["width"].description == "D"
        assert [c.description for c in e.controls.values()] == ["position i", "pair j", "D", "base"]
        text = e.summary
        assert "P: n = 60 positions, D = 32 columns, base = 10000" in text
        assert "ω_j = base^(−2j/D) = " in text and "peak P_i·P_i = D/2 = 16" in text
        assert not lone_d(text), lone_d(text)
        e.controls["width"].value = 20
        assert "D = 20 columns" in e.summary and "D/2 = 10" in e.summary
        assert not lone_d(e.summary)
    finally:
        plt.close(e.figure)


def test_explorer_figure_names_no_d():
    e = lesson.play(n=60)
    try:
        texts = figure_texts(e.figure)
        assert "sin column 2j" in texts and "position m" in texts          # the texts are found
        assert not [t for t in texts if lone_d(t)], [t for t in texts if lone_d(t)]
    finally:
        plt.close(e.figure)


def test_explorer_axes_over_every_position_say_m_and_i_is_the_chosen_one():
    e = lesson.play(n=60)
    view = e.update.__self__
    try:
        assert view.ax_pair.get_xlabel() == "position m"
        assert view.ax_pair.get_ylabel() == "P[m, column]"
        assert view.trail_colorbar.ax.get_ylabel() == "position m"
        assert view.ax_P.get_ylabel() == "position m (row of P)"
        assert view.ax_sim.get_xlabel() == "position m"
        # "position i" is said only of the chosen position (black box, black marker)
        with_i = sorted(t for t in figure_texts(e.figure) if "position i" in t)
        assert with_i == ["P: position i (black box), pair j (green box)", "similarity P_i · P_m to position i",
                          "similarity of position i to every position m"]
    finally:
        plt.close(e.figure)


def test_the_other_figures_name_no_d():
    P = al.sinusoidal_encoding(60, 32, dtype=torch.float64)
    figures = [lesson.counter_vs_columns_figure(60, 32).figure, lesson.similarity_figure(P).figure,
               lesson.rotation_circle_figure(P).figure, lesson.encoding_heatmap(P).figure,
               lesson.encoding_columns_plot(P).figure]
    for fig in figures:
        texts = figure_texts(fig)
        assert texts
        assert not [t for t in texts if lone_d(t)], [t for t in texts if lone_d(t)]
        plt.close(fig)


# RoPE turns queries and keys: there d is the query/key size, as docs/api.md says, and stays d.
ROPE_NAMES = {"rope", "check_rope", "ROPE_MISTAKES"}


def test_lesson_docstrings_write_the_width_of_P_as_D():
    docs = {"package": lesson.__doc__, "encoding": encoding.__doc__, "figures": figures.__doc__,
            "exercises": exercises.__doc__, "live": live.__doc__}
    for module in (encoding, figures, exercises, live):
        for name, obj in vars(module).items():
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module.__name__ \
                    and name not in ROPE_NAMES:
                docs[name] = inspect.getdoc(obj) or ""
    # counter_vs_columns_figure's argument is named d (tests/lessons/test_lesson_bad_inputs.py calls it by name);
    # its docstring says that d is the width D
    docs["counter_vs_columns_figure"] = docs["counter_vs_columns_figure"].replace("``d``: the width D of P", "")
    bad = {name: lone_d(doc, query_key=True) for name, doc in docs.items() if lone_d(doc, query_key=True)}
    assert not bad, bad
    assert "(D, D)" in lesson.rotation_matrix.__doc__ and "D/2" in lesson.offset_similarity.__doc__
    assert "query/key size" in lesson.rope.__doc__


def test_exercise_and_self_check_messages_write_the_width_as_D():
    messages = [h.message for h in exercises.SINUSOIDAL_MISTAKES] + [m for _, m in lesson.wavelength_mistakes(8, 32)]
    assert not [m for m in messages if lone_d(m)], [m for m in messages if lone_d(m)]
    assert any("2j/D" in m for m in messages)


def test_error_messages_write_the_width_as_D():
    P = al.sinusoidal_encoding(60, 32, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"pair: expected 0 <= pair < D/2 = 16, got 16"):
        lesson.rotation_circle_figure(P, pair=16)
    with pytest.raises(ValueError, match=r"j: expected a pair index below D/2 = 16, got 16"):
        lesson.wavelength_mistakes(16, 32)
    with pytest.raises(ValueError, match=r"P: expected a 2-D \(n, D\) matrix, got shape \(2, 3, 4\)"):
        lesson.encoding_heatmap(torch.zeros(2, 3, 4))
    with pytest.raises(ValueError, match=r"P: expected a 2-D \(n, D\) matrix, got shape \(2, 10, 4\)"):
        lesson.similarity_by_offset(torch.zeros(2, 10, 4), 1)
    with pytest.raises(ValueError, match=r"width: expected an int <= 64 \(the D slider's range\), got 66"):
        lesson.play(n=60, width=66)


@pytest.mark.parametrize("values,message", [
    ({"position": 60}, "position, pair, width: expected position < n = 60, an even width and pair < width/2, "
                       "got position 60, pair 3, width 32"),
    ({"width": 31}, "got position 10, pair 3, width 31"),
    ({"pair": 16}, "got position 10, pair 16, width 32"),
    ({"n": 1}, "n: expected an int >= 2"),
    ({"base": 5.0}, "base: expected"),
    ({"position": 2.5}, "position: expected an int, got float"),
])
def test_play_checks_its_starting_values_once(values, message):
    with pytest.raises((ValueError, TypeError), match=re.escape(message)):
        lesson.play(**values)


class _NoChecks:
    def __getattr__(self, name):
        raise AssertionError(f"checks.{name} called on a slider's way down")


def test_play_takes_keywords_only_and_a_slider_value_is_not_checked_again(monkeypatch):
    with pytest.raises(TypeError, match="positional"):
        lesson.play(60)
    e = lesson.play(n=20)
    view = e.update.__self__
    for module in (encoding, figures, live):                        # the lesson's checks, none on the update path
        monkeypatch.setattr(module, "checks", _NoChecks())
    text = e.update(position=3, pair=2, width=8, base=100.0)
    assert view.sim_ylim == (-0.5 * 4 - 0.5, 5) and "D = 8" in text
    with pytest.raises(AssertionError, match="checks.count"):      # the guard can fail
        lesson.frequencies(8)


def notebook_cells():
    return json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]


def test_notebook_writes_the_width_as_D():
    """Every cell and every stored text output; only exercise 2 (RoPE turns a query or key: its size
    is d) and a sentence saying that d is the query/key size may write d."""
    bad = []
    for k, cell in enumerate(notebook_cells()):
        source = "".join(cell["source"])
        texts = [source] if "my_rope" not in source else []
        for out in cell.get("outputs", []):
            texts.append("".join(out.get("text", "")))
            texts.append("".join(out.get("data", {}).get("text/plain", "")))
        bad += [(k, hit) for text in texts for hit in lone_d(text, query_key=True)]
    assert not bad, bad


def test_notebook_play_says_D_and_defines_i_and_m():
    cells = ["".join(c["source"]) for c in notebook_cells()]
    play = next(s for s in cells if s.startswith("## Play"))
    assert "Change **D** (the width)" in play
    assert "chosen position $i$" in play and "every position $m$" in play
    assert any("lesson.play(n=60)" in s and "D, base" in s for s in cells)


def test_notebook_writes_positions_as_i_and_m_and_j_only_numbers_pairs():
    """"Positions are written i and m; j numbers the column pairs of P": no sum over positions j,
    no P_j or x_j for the token at position j."""
    text = "\n".join("".join(c["source"]) for c in notebook_cells())
    for old in (r"\sum_j \alpha_{ij} v_j", r"(x_j + P_j)", r"x_i\cdot P_j", r"P_i\cdot P_j"):
        assert old not in text, old
    assert r"\sum_m \alpha_{im} v_m" in text and r"(x_i + P_i)\cdot(x_m + P_m)" in text
    assert "d_k = D here (one head)" in text                 # section 7's query and key have the width D
