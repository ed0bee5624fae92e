"""walkthrough.py's figures: step table drawn once and updated in place; cost and path plots."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from attnlab.lessons.nb04_self_attention_walkthrough import steps as wt  # noqa: E402
from attnlab.lessons.nb04_self_attention_walkthrough import figures as wtp  # noqa: E402
from attnlab.data import thinking_machines  # noqa: E402


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
    bold = [t for t in ax.texts if t.get_fontweight() == "bold" and t.get_color() == "C1"]
    assert bold and bold[0].get_text().startswith("6")                 # the current step is highlighted
    fig, ax2 = plt.subplots()
    assert wtp.draw_step_table(wt.step_table(s, d["words"]), d["words"], ax=ax2, current=-1).ax is ax2
    with pytest.raises(ValueError, match="table: expected 9 rows of 2 cells as when drawn, got 3 rows"):
        table.update(wt.step_table(s, d["words"])[:3])


def test_play_panel_updates_in_place_without_the_global_rng():
    import ipywidgets as widgets
    import torch
    from matplotlib.text import Text

    from attnlab.lessons import nb04_self_attention_walkthrough as lesson
    from attnlab.masking import causal_mask

    controls = {"step": widgets.IntSlider(value=4, min=1, max=6),
                "d_k": widgets.SelectionSlider(options=[4, 16, 64, 256, 1024], value=64),
                "causal": widgets.Checkbox(value=False), "padding": widgets.IntSlider(value=2, min=0, max=5)}
    panel = lesson.play(controls)
    view = panel.update.__self__
    texts = list(view.figure.findobj(Text))
    assert panel.error.value == "" and "Step 4: softmax" in panel.text.value
    assert "▶ 4  softmax" in panel.summary and list(view.marker.get_ydata()) == [4]
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
    assert "Thinking 1.000" in panel.text.value                         # causal: Thinking sees only itself
    with pytest.raises(ValueError, match="controls: expected the names"):
        lesson.play({"step": controls["step"]})
    with pytest.raises(ValueError, match="step: expected 1 to 6, got 7"):
        view.update(7, 64, False, 0)


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
    assert lines[2 + 6].startswith("▶ 4  softmax") and "÷ √d_k = 8" in lines[2 + 5]
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
