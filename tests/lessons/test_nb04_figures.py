"""walkthrough.py's figures: step table drawn once and updated in place; cost and path plots."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest

from attnlab.lessons.nb04_self_attention_walkthrough import (
    figures as wtp,
    live,
    steps as wt,
)
from attnlab.lessons.nb04_self_attention_walkthrough.data import thinking_machines
from attnlab.ui import plotting


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_step_table_drawn_then_updated_in_place():
    d = thinking_machines()
    s = wt.self_attention_steps(d["X"], d["W_Q"], d["W_K"], d["W_V"])
    table = wtp.draw_step_table(wt.step_table(s, d["words"], step=2), d["words"], title="steps")
    ax = table.ax
    assert isinstance(table, wtp.StepTable) and not hasattr(ax, "_steps")   # state in the handle, not the Axes
    texts = list(ax.texts)
    cells = [t.get_text() for t in texts]
    assert "Thinking" in cells and "Machines" in cells and "?" in cells and ax.get_title() == "steps"
    assert table.update(wt.step_table(s, d["words"], step=6), title="all steps") is table
    assert list(ax.texts) == texts                                     # same artists, new text
    assert "?" not in [t.get_text() for t in ax.texts] and ax.get_title() == "all steps"
    orange = plotting.text_color(plotting.SERIES_COLORS[1])            # the series' orange, darkened for text
    bold = [t for t in ax.texts if t.get_fontweight() == "bold" and t.get_color() == orange]
    assert bold and bold[0].get_text().startswith("6")                 # the current step is highlighted
    fig, ax2 = plt.subplots()
    assert wtp.draw_step_table(wt.step_table(s, d["words"]), d["words"], ax=ax2, current=-1).ax is ax2
    with pytest.raises(ValueError, match="table: expected 9 rows of 2 cells as when drawn, got 3 rows"):
        table.update(wt.step_table(s, d["words"])[:3])


def test_play_panel_updates_in_place_without_the_global_rng():
    import torch
    from matplotlib.text import Text

    from attnlab.core.masking import causal_mask
    from attnlab.lessons import nb04_self_attention_walkthrough as lesson

    panel = lesson.play(step=4, d_k=64, causal=False, padding=2)
    controls = panel.controls
    view = panel.update.__self__
    texts = list(view.figure.findobj(Text))
    assert panel.error.value == "" and "Step 4: softmax" in panel.text.value
    assert "▶ 4  weight aⱼ (softmax)" in panel.summary and list(view.marker.get_ydata()) == [4]
    assert [t.get_text() for t in view.word_labels[0]] == ["The", "cat", "sat", "on", "<pad>", "<pad>"]
    state = torch.random.get_rng_state()
    controls["d_k"].value = 1024
    controls["causal"].value = True
    controls["padding"].value = 5
    controls["step"].value = 3
    assert torch.equal(state, torch.random.get_rng_state())
    assert panel.error.value == "" and list(view.figure.findobj(Text)) == texts     # same artists, new text
    assert list(view.marker.get_ydata()) == [3]                                     # the marker at step 3
    for labels in view.word_labels:                                                # pads as keys and queries
        assert [t.get_text() for t in labels] == ["The"] + ["<pad>"] * 5
    assert "right (causal + padding 5)" in panel.summary
    # The numbers the figure does not show are in the text under it: every cell of steps 1-3 for
    # d_k = 1024 with the causal mask, computed here from the steps, and "?" after step 3.
    d = thinking_machines(d_k=1024)
    s = wt.self_attention_steps(d["X"], d["W_Q"], d["W_K"], d["W_V"], causal_mask(2, 2))
    assert f"{s['scores'][0, 0]:.2f}" == "-34.75" and f"{s['scaled'][0, 0]:.3f}" == "-1.086"
    lines = panel.summary.splitlines()
    assert lines[0] == "query Thinking, d_k = 1024, step 3 of 6, causal mask"
    for n, label, row in wt.step_table(s, d["words"], step=3)[1:]:
        line = next(ln for ln in lines if ln[2:].startswith(f"{n}  {label.split('$')[0]}"))
        for cell in row:
            assert cell in line
        assert ("?" in line) == (n > 3)
    assert "−∞ (masked)" in panel.summary and "÷ √d_k = 32" in panel.summary
    shown = " ".join(t.get_text() for t in view.figure.findobj(Text))
    assert "-34.75" not in shown and "32" not in shown                          # not in the figure
    controls["step"].value = 4
    assert "a₁ (Thinking) = 1.000" in panel.text.value                  # causal: Thinking sees only itself
    with pytest.raises(TypeError, match="too many positional arguments"):
        lesson.play({"step": controls["step"]})
    with pytest.raises(ValueError, match=r"step: expected an int <= 6 \(the six steps\), got 7"):
        lesson.play(step=7)
    with pytest.raises(ValueError, match=r"d_k: expected one of \[4, 16, 64, 256, 1024\], got 32"):
        lesson.play(d_k=32)
    with pytest.raises(ValueError, match=r"padding: expected an int <= 5 \(the padding slider's range: one word "
                                         r"stays\), got 6"):
        lesson.play(padding=6)
    with pytest.raises(TypeError, match=r"causal: expected True or False, got str 'no'"):
        lesson.play(causal="no")


def test_play_declares_the_notebooks_controls_and_the_package_exports_what_the_notebook_uses():
    from attnlab.lessons import nb04_self_attention_walkthrough as lesson

    panel = lesson.play(step=2, d_k=16, causal=True, padding=1)
    assert list(panel.controls) == ["step", "d_k", "causal", "padding"]
    assert [c.value for c in panel.controls.values()] == [2, 16, True, 1]
    assert list(panel.controls["d_k"].options) == [4, 16, 64, 256, 1024]
    assert not any(c.continuous_update for n, c in panel.controls.items() if n != "causal")
    assert lesson.__all__ == ["check_attention", "check_masked_softmax", "complexity_table", "cost_plot",
                              "divisor_mistakes", "draw_step_table", "layer_cost", "path_plot", "play",
                              "self_attention_steps", "sentence_attention", "short", "softmax_weight_mistakes",
                              "step_table", "thinking_machines", "thumbnail", "translation_pair"]


def test_step_table_text_lays_out_the_table_in_columns():
    d = thinking_machines()
    s = wt.self_attention_steps(d["X"], d["W_Q"], d["W_K"], d["W_V"])
    table = wt.step_table(s, d["words"], step=4)
    text = wt.step_table_text(table, d["words"], title="steps")
    lines = text.splitlines()
    assert lines[0] == "steps" and len(lines) == 2 + len(table) and "$" not in text
    header = lines[1]
    col = header.index("Machines")
    assert header.index("Thinking") < col
    for (n, _, row), line in zip(table, lines[2:]):
        assert line[col:].split("  ")[0].strip() == row[1] or (row[1] == "" and len(line) <= col)
        assert line.startswith("▶ ") == (n == 4)                           # the last step shown
    assert lines[2 + 6].startswith("▶ 4  weight aⱼ (softmax)") and "÷ √d_k = 8" in lines[2 + 5]
    assert lines[-1].split()[-1] == "?" and f"{s['weights'][0, 1]:.3f}" in lines[2 + 6]
    assert "▶" not in wt.step_table_text(table, d["words"], current=0)
    assert wt.step_table_text(table, d["words"], current=2).count("▶") == 1   # row 2: score
    with pytest.raises(ValueError, match=r"table: expected rows of 3 cells, one per word, got \[2\]"):
        wt.step_table_text(table, ("a", "b", "c"))
    with pytest.raises(TypeError, match="title"):
        wt.step_table_text(table, d["words"], title=3)


def test_cost_and_path_plots():
    ax = wtp.cost_plot(d=64, k=3)
    assert len(ax.get_legend().get_texts()) == 3 and ax.get_xscale() == "log"
    line = ax.lines[0]
    np.testing.assert_allclose(line.get_ydata(), wt.layer_cost("self-attention", line.get_xdata(), 64))
    fig, ax2 = plt.subplots()
    assert wtp.cost_plot(n=[1, 10, 100], ax=ax2) is ax2
    ax = wtp.path_plot(k=2)
    assert len(ax.lines) == 4 and ax.get_yscale() == "log"
    np.testing.assert_allclose(ax.lines[1].get_ydata(), ax.lines[1].get_xdata())   # RNN: path n
    assert wtp.path_plot(n=[1, 8], ax=ax2) is ax2


# ---- one notation for one thing: the prose's symbols in the figure, the text table and the line under it ----

PROSE_SYMBOLS = ("q₁·kⱼ", "aⱼ", "aⱼ vⱼ", "z₁")      # the notebook's prose (cells 15, 19, 23) writes these


def test_step_table_text_uses_the_prose_symbols():
    """The text under the Play figure writes the weights aⱼ (as the figure's step list and the prose do),
    never "softmax × v_j", and subscripts as the prose does (z₁, not z1)."""
    d = thinking_machines()
    s = wt.self_attention_steps(d["X"], d["W_Q"], d["W_K"], d["W_V"])
    text = wt.step_table_text(wt.step_table(s, d["words"], step=6), d["words"])
    labels = {line[2:].split("  ")[0]: line for line in text.splitlines()[1:]}
    assert "2  score q₁·kⱼ" in text and "4  weight aⱼ (softmax)" in text
    assert "5  aⱼ vⱼ" in text and "6  sum z₁" in text
    for wrong in ("softmax ×", "z1", "q1", "v_j", "k_j", "a_j", "$"):
        assert wrong not in text, (wrong, labels)
    assert "÷ √d_k = 8" in text                                       # d_k stays as the prose writes it
    assert wt.step_table(s, d["words"], query=1)[-1][1] == "sum z$_{2}$"     # another query, its own z
    assert "sum z₂" in wt.step_table_text(wt.step_table(s, d["words"], query=1), d["words"])


def test_the_lines_under_the_table_use_the_prose_symbols():
    d = thinking_machines()
    s = wt.self_attention_steps(d["X"], d["W_Q"], d["W_K"], d["W_V"])
    lines = [wt.describe_step(s, d["words"], step) for step in range(1, 7)]
    assert "q₁ = [" in lines[0] and "q₁·k₂ (Machines) = 2.57" in lines[1]
    assert f"a₁ (Thinking) = {s['weights'][0, 0]:.3f}, a₂ (Machines) = {s['weights'][0, 1]:.3f}" in lines[3]
    assert lines[4].startswith(f"Step 5: a₁ v₁ = {s['weights'][0, 0]:.3f} × v₁ = ")
    assert lines[5].startswith("Step 6: z₁ = a₁ v₁ + a₂ v₂ = ")
    for line in lines:
        assert not any(f"{c}{n}" in line for c in "qkvz" for n in "12"), line   # no q1, v2, z1


def test_the_figure_step_list_and_the_table_write_the_same_symbols():
    """Each symbol the Play figure's step list writes (mathtext) is in the text table (plain)."""
    from attnlab.lessons import nb04_self_attention_walkthrough as lesson

    view = lesson.play(step=6, d_k=64, causal=False, padding=0).update.__self__
    ladder = " ".join(t.get_text() for t in view.ax_steps.texts)
    for mathtext, plain in (("q$_1$·k$_j$", "q₁·kⱼ"), ("$a_j$ v$_j$", "aⱼ vⱼ"), ("z$_1$", "z₁")):
        assert mathtext in ladder
        assert plain in view.update(6, 64, False, 0)


@pytest.mark.parametrize("padding, title", [
    (0, '"The cat sat on the mat" (no padding)'),
    (2, '"The cat sat on" + 2 <pad> (valid length 4)'),
    (5, '"The" + 5 <pad> (valid length 1)')])
def test_play_heatmap_title_says_which_words_are_padding(padding, title):
    from attnlab.lessons import nb04_self_attention_walkthrough as lesson

    panel = lesson.play(step=4, d_k=64, causal=False, padding=3)
    controls = panel.controls
    view = panel.update.__self__
    controls["padding"].value = padding
    assert view.heatmap_title.get_text() == title == live.sentence_title(padding)
    words = [t.get_text() for t in view.word_labels[0]]
    assert words.count("<pad>") == padding and title.startswith('"' + " ".join(words[:6 - padding]) + '"')
    assert view.ax_mask.get_title() == ""                              # one title, the live one
    assert panel.blitter.why == ""                                     # the title blits with the move
    with pytest.raises(ValueError, match="padding: expected at most 6, got 7"):
        live.sentence_title(7)


def test_step_table_text_lines_up_in_chinese_in_any_font():
    """In Chinese the step labels hold CJK characters ("权重 aⱼ（softmax）"): padded by str.ljust, the
    words' columns started after different numbers of wide characters on different lines, and since a
    browser draws a CJK character about 1.7 (not 2) monospaced columns wide, zh 04's table was ragged
    on every screen. Every column must start after as many wide and as many narrow characters on
    every line."""
    import re

    import attnlab as al
    from attnlab.ui import text
    d = thinking_machines()
    s = wt.self_attention_steps(d["X"], d["W_Q"], d["W_K"], d["W_V"])
    previous = al.set_language("zh")
    try:
        table = wt.step_table(s, d["words"], step=5)        # every cell filled ("?" for step 6's)
        lines = wt.step_table_text(table, d["words"]).splitlines()
        layers = wt.complexity_table().splitlines()
    finally:
        al.set_language(previous)
    assert any(text.room([line])[0] for line in lines), "the Chinese labels hold wide characters"
    n = len(d["words"])
    starts = [[text.room([line[:m.end()]]) for m in re.finditer(r"[ \u3000]{2,}", line)][-n:] for line in lines]
    assert all(len(s) == n for s in starts) and all(s == starts[0] for s in starts), starts
    cols = [[text.room([line[:m.end()]]) for m in re.finditer(r"[ \u3000]{2,}", line)][:3] for line in layers]
    assert all(c == cols[0] for c in cols), cols
