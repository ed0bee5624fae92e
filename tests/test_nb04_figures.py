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
    ax = wtp.draw_step_table(wt.step_table(s, d["words"], step=2), d["words"], title="steps")
    texts = list(ax.texts)
    cells = [t.get_text() for t in texts]
    assert "Thinking" in cells and "Machines" in cells and "?" in cells and ax.get_title() == "steps"
    wtp.update_step_table(ax, wt.step_table(s, d["words"], step=6), title="all steps")
    assert list(ax.texts) == texts                                     # same artists, new text
    assert "?" not in [t.get_text() for t in ax.texts] and ax.get_title() == "all steps"
    bold = [t for t in ax.texts if t.get_fontweight() == "bold" and t.get_color() == "C1"]
    assert bold and bold[0].get_text().startswith("6")                 # the current step is highlighted
    fig, ax2 = plt.subplots()
    assert wtp.draw_step_table(wt.step_table(s, d["words"]), d["words"], ax=ax2, current=-1) is ax2


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
