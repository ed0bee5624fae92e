"""plotting.py: helpers draw what they say, on the Axes given, and update in place."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from attnlab.ui import plotting


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _cell_texts(ax):
    return [t.get_text() for t in plotting.heatmap_state(ax).cells]


def test_heatmap_fixed_scale_labels_and_annotations():
    w = torch.tensor([[0.1, 0.9], [0.5, 0.5], [1.0, 0.0]])
    ax = plotting.heatmap(w, x_labels=["a", "b"], y_labels=["x", "y", "z"], title="weights")
    im = ax.images[0]
    assert im.get_clim() == (0.0, 1.0) and im.get_cmap().name == "viridis"
    np.testing.assert_allclose(im.get_array(), w.numpy(), atol=1e-7)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["x", "y", "z"]
    assert _cell_texts(ax) == ["0.10", "0.90", "0.50", "0.50", "1.00", "0.00"]
    assert ax.get_title() == "weights" and ax.get_xlabel() == "keys" and ax.get_ylabel() == "queries"
    assert len(ax.figure.axes) == 2                                    # with a colour bar


def test_heatmap_on_a_given_axes_without_annotation_for_big_matrices():
    fig, ax = plt.subplots()
    out = plotting.heatmap(np.full((11, 10), 0.3), ax=ax, colorbar=False)
    assert out is ax and _cell_texts(ax) == [] and len(fig.axes) == 1


def test_update_heatmap_changes_data_in_place_and_handles_shape_change():
    ax = plotting.heatmap(torch.full((2, 3), 0.2), x_labels=list("abc"))
    im = ax.images[0]
    plotting.update_heatmap(ax, torch.full((2, 3), 0.7), title="new")
    assert ax.images[0] is im
    np.testing.assert_allclose(im.get_array(), 0.7)
    assert _cell_texts(ax) == ["0.70"] * 6 and ax.get_title() == "new"
    plotting.update_heatmap(ax, np.eye(4), x_labels=list("wxyz"), y_labels=list("WXYZ"))
    assert im.get_array().shape == (4, 4)
    assert im.get_extent() == [-0.5, 3.5, 3.5, -0.5]
    assert tuple(ax.get_xlim()) == (-0.5, 3.5) and tuple(ax.get_ylim()) == (3.5, -0.5)   # whole matrix in view
    assert [t.get_text() for t in ax.get_xticklabels()] == list("wxyz")
    assert len(_cell_texts(ax)) == 16 and _cell_texts(ax)[0] == "1.00"


def test_heads_grid_one_panel_per_head_on_a_shared_scale():
    w = torch.softmax(torch.randn(3, 4, 5, generator=torch.Generator().manual_seed(0)), -1)
    axes = plotting.heads_grid(w, titles=["h1", "h2", "h3"])
    assert len(axes) == 3 and [ax.get_title() for ax in axes] == ["h1", "h2", "h3"]
    assert all(ax.images[0].get_clim() == (0.0, 1.0) for ax in axes)
    fig, grid = plt.subplots(2, 2)
    axes = plotting.heads_grid(w, axes=grid)
    assert not axes[3].get_visible() and axes[0].get_title() == "head 1"


def test_weights_summary_text():
    w = torch.tensor([[0.7, 0.2, 0.1], [0.0, 0.0, 0.0]])
    text = plotting.weights_summary(w, ["cat", "milk", "it"], ["q1", "q2"])
    assert text == "q1: cat 0.70, milk 0.20\nq2: no visible key (all weights 0)"
    assert plotting.weights_summary(w[:1], top=3) == "0: 0 0.70, 1 0.20, 2 0.10"


@pytest.mark.parametrize("call,match", [
    (lambda: plotting.heatmap(np.ones(3)), r"weights: expected a 2-D \(Tq, Tk\) matrix, got shape \(3,\)"),
    (lambda: plotting.heads_grid(np.ones((3, 3))), r"weights: expected \(H, Tq, Tk\), got shape \(3, 3\)"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_heatmap_state_lives_in_one_registry_not_on_the_axes():
    ax = plotting.heatmap(np.eye(2))
    state = plotting.heatmap_state(ax)
    assert state.image is ax.images[0] and len(state.cells) == 4
    assert not [k for k in vars(ax) if k.startswith("_attnlab")]
    plotting.update_heatmap(ax, np.ones((3, 3)) / 3)
    assert len(plotting.heatmap_state(ax).cells) == 9
    with pytest.raises(ValueError, match=r"ax: expected an Axes drawn by attnlab.ui.plotting.heatmap, got"):
        plotting.heatmap_state(plt.figure().add_subplot())
    plt.close("all")


# ---- issue 15: bounded work
def _pixels(fig):
    return tuple(fig.get_size_inches() * fig.dpi)


def test_heatmap_without_ax_caps_the_figure_size():
    ax = plotting.heatmap(np.full((300, 300), 0.5))
    w, h = _pixels(ax.figure)
    assert w <= 100 * plotting.MAX_FIGSIZE[0] + 1e-6 and h <= 100 * plotting.MAX_FIGSIZE[1] + 1e-6
    small = plotting.heatmap(np.full((2, 3), 0.5))                      # small matrices keep their size
    np.testing.assert_allclose(small.figure.get_size_inches(), (1.2 + 0.55 * 3, 1.0 + 0.45 * 2))


def test_heatmap_switches_annotation_off_past_the_limit_with_a_warning():
    with pytest.warns(UserWarning, match=r"annotate: 31 x 30 = 930 cells is more than the 900 that can be written "
                                         r"out legibly; annotation switched off"):
        ax = plotting.heatmap(np.full((31, 30), 0.5), annotate=True)
    assert _cell_texts(ax) == []
    ax = plotting.heatmap(np.full((30, 30), 0.5), annotate=True)        # at the limit: written out
    assert len(_cell_texts(ax)) == 900


def test_heatmap_of_a_wide_matrix_gets_a_few_ticks_not_one_per_cell():
    ax = plotting.heatmap(np.full((5, 500), 0.5))
    ax.figure.canvas.draw()
    assert len(ax.get_xticks()) <= 12 and len(ax.get_yticks()) == 5
    plotting.update_heatmap(ax, np.full((5, 6), 0.5))                   # back to one tick per cell
    assert list(ax.get_xticks()) == list(range(6))


def test_heads_grid_with_many_heads_fits_the_cap():
    axes = plotting.heads_grid(np.full((64, 2, 2), 0.5))
    w, h = _pixels(axes[0].figure)
    assert len(axes) == 64 and w <= 1400 + 1e-6 and h <= 1200 + 1e-6


@pytest.mark.parametrize("text", ["weights, σ = 0.3", "two lines\nof title"])
def test_live_title_sits_where_set_title_writes(text):
    from attnlab.ui import panels
    fig, ax = panels.new_figure()
    ax.set_title(text)
    fig.canvas.draw()
    reference = ax.title.get_window_extent(fig.canvas.get_renderer())
    ax.set_title("")
    t = plotting.live_title(ax, text)
    fig.canvas.draw()
    assert t.get_text() == text and t.get_window_extent(fig.canvas.get_renderer()).bounds == reference.bounds
    assert plotting.live_title(ax, "x", fontsize=10).get_fontsize() == 10


def test_live_title_bad_arguments():
    for bad in ("ax", None):
        with pytest.raises(TypeError, match=f"ax: expected a matplotlib Axes, got {type(bad).__name__}"):
            plotting.live_title(bad, "t")
    _, ax = plt.subplots()
    with pytest.raises(TypeError, match="text: expected a str, got int"):
        plotting.live_title(ax, 3)


def test_heatmap_leaves_nan_cells_blank_when_annotated():
    """A NaN cell gets no text (it was "nan", invisible on white but not over a hatched background)."""
    w = torch.tensor([[0.25, float("nan")], [float("nan"), 0.75]])
    ax = plotting.heatmap(w, annotate=True)
    texts = [t.get_text() for t in plotting.heatmap_state(ax).cells]
    assert texts == ["0.25", "", "", "0.75"]
    plotting.update_heatmap(ax, torch.tensor([[float("nan"), 0.5], [0.5, float("nan")]]))
    assert [t.get_text() for t in plotting.heatmap_state(ax).cells] == ["", "0.50", "0.50", ""]
    plt.close(ax.figure)
