"""plotting.py: helpers draw what they say, on the Axes given, and update in place."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import attnlab as al  # noqa: E402
from attnlab import data, plotting  # noqa: E402


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
    with pytest.raises(ValueError, match=r"ax: expected an Axes drawn by attnlab.plotting.heatmap, got"):
        plotting.heatmap_state(plt.figure().add_subplot())
    plt.close("all")
