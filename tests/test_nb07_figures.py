"""figures.py of notebook 07: each figure returns named handles whose data are the lesson's numbers,
and the two Play panels move exactly those artists."""
import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from matplotlib import pyplot as plt  # noqa: E402

import attnlab as al  # noqa: E402
from attnlab.lessons import nb07_masks_and_efficient_attention as lesson  # noqa: E402


def test_mask_gallery_draws_each_mask_by_name():
    masks = {"local": al.local_mask(16, 16, 1), "block": lesson.block_mask(16, 16, 4)}
    g = lesson.mask_gallery(masks, ncols=3)
    assert list(g.axes) == ["local", "block"]
    np.testing.assert_array_equal(np.asarray(g.axes["block"].images[0].get_array()), masks["block"].float().numpy())
    assert "4.0 keys per query (of 16)" in g.axes["block"].get_title()
    assert sum(ax.get_visible() for ax in g.figure.axes) == 2                     # the spare panel is hidden
    plt.close(g.figure)
    with pytest.raises(ValueError, match="masks: expected at least one"):
        lesson.mask_gallery({})


def test_every_mask_figure_has_a_key_saying_black_may_attend():
    g = lesson.mask_gallery({"local": al.local_mask(8, 8, 1)}, ncols=1)
    labels = [t.get_text() for t in g.key.get_texts()]
    assert labels == ["black = may attend (True)", "white = masked (False)"]
    colours = [tuple(h.get_facecolor()[:3]) for h in g.key.legend_handles]
    assert colours == [(0.0, 0.0, 0.0), (1.0, 1.0, 1.0)]
    assert plt.get_cmap(lesson.MASK_CMAP)(1.0)[:3] == (0.0, 0.0, 0.0)        # True (1.0) is drawn black
    plt.close(g.figure)


def test_error_plot_lines_hold_the_errors():
    data = lesson.structured_qkv(16, 8, 2)
    errors = {"toy": lesson.approximation_errors(*data, windows=(0, 1, 2), blocks=(1, 2, 4))}
    p = lesson.error_plot(errors, num_keys=16)
    x, y = p.lines["toy", "local"].get_data()
    np.testing.assert_array_equal(x, [1, 3, 5])
    np.testing.assert_allclose(y, [r for _, r, _ in errors["toy"]["local"]])
    np.testing.assert_array_equal(p.lines["toy", "block"].get_xdata(), [1, 2, 4])
    plt.close(p.figure)


def test_weights_so_far_figure_and_memory_plot():
    q, k, v = lesson.toy_problem()
    states = list(lesson.tiled_attention_steps(q, k, v, block_size=2))
    f = lesson.weights_so_far_figure(states, 8, tiles=4, queries=2)
    last = np.asarray(f.axes[-1].images[0].get_array())
    _, exact = al.scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(last, exact[:2].numpy(), atol=1e-12)               # after tile 4: the softmax
    assert f.colorbar.mappable.get_clim() == (0, 1)
    plt.close(f.figure)
    m = lesson.memory_plot([128, 1024], d=64)
    np.testing.assert_array_equal(m.lines["dense"].get_ydata(),
                                  [lesson.memory_bytes("dense", n, 64) for n in (128, 1024)])
    assert m.ax.get_xlabel() == "sequence length n"
    plt.close(m.figure)


def test_mask_explorer_shows_the_mask_and_its_weights():
    e = lesson.MaskExplorer()
    text = e.update("causal bottom-right", 3, 12, 0)
    mask, start = e.mask("causal bottom-right", 3, 12, 0)
    assert start == 9 and torch.equal(mask, lesson.causal_mask_bottom_right(3, 12))
    shown = e.ax_mask.images[0].get_array()                                      # the fixed 12 x 12 grid
    np.testing.assert_array_equal(shown[9:].data, mask.float().numpy())
    assert "keys seen per query: [10, 11, 12]" in text
    text = e.update("causal bottom-right", 12, 5, 0)                              # Tq > Tk: empty rows
    assert "7 row(s) with no visible key: weights all 0" in text
    w = e.ax_weights.images[0].get_array()
    assert not np.isnan(w.data).any() and (w.data[:7, :5] == 0).all()
    mask, start = e.mask("local", 4, 12, 1)                                      # windows follow the positions
    assert torch.equal(mask, al.local_mask(12, 12, 1)[8:])
    plt.close(e.figure)


def outside_block(max_len, start, Tq, Tk):
    """Cells of the max_len x max_len grid that are not (query position, key position) now, by loops."""
    return np.array([[not (start <= i < start + Tq and j < Tk) for j in range(max_len)] for i in range(max_len)])


@pytest.mark.parametrize("Tq, Tk", [(12, 12), (3, 12), (1, 12), (1, 2), (12, 5), (7, 2), (5, 9)])
@pytest.mark.parametrize("kind", lesson.MASK_KINDS)
def test_mask_explorer_greys_exactly_the_cells_outside_the_active_block(kind, Tq, Tk):
    e = lesson.MaskExplorer()
    e.controls["kind"].value, e.controls["Tq"].value, e.controls["Tk"].value = kind, Tq, Tk
    w = e.controls["w"].value
    mask, start = e.mask(kind, Tq, Tk, w)
    assert start == max(Tk - Tq, 0)                                              # the last Tq of Tk positions
    _, weights = al.scaled_dot_product_attention(e.q_all[start:start + Tq], e.k_all[:Tk], e.k_all[:Tk], mask)
    outside = outside_block(12, start, Tq, Tk)
    for ax, block in ((e.ax_mask, mask.double()), (e.ax_weights, weights)):
        shown = ax.images[0].get_array()
        assert shown.shape == (12, 12)                                           # the grid never changes shape
        np.testing.assert_array_equal(np.ma.getmaskarray(shown), outside)
        np.testing.assert_array_equal(shown.data[~outside].reshape(Tq, Tk), block.numpy())
        assert np.isfinite(shown.data).all() and (shown.data[outside] == 0).all()  # nothing NaN, even hidden
        assert (ax.get_xlim(), ax.get_ylim()) == ((-0.5, 11.5), (11.5, -0.5))
        assert [t.get_text() for t in ax.get_xticklabels()] == [str(j) for j in range(12)]
        assert [t.get_text() for t in ax.get_yticklabels()] == [str(i) for i in range(12)]
    plt.close(e.figure)


def test_mask_explorer_draws_masked_cells_in_the_colour_its_key_names():
    e = lesson.MaskExplorer(kind="causal top-left", num_queries=3, num_keys=12)
    labels = [t.get_text() for t in e.key.get_texts()]
    assert labels == ["black = may attend (True)", "white = masked (False)",
                      "grey = not in this sequence (no query or no key there)"]
    grey = matplotlib.colors.to_rgba(lesson.OUTSIDE_COLOUR)
    assert tuple(e.key.legend_handles[2].get_facecolor()) == grey
    for ax in (e.ax_mask, e.ax_weights):
        image = ax.images[0]
        rgba = image.to_rgba(image.get_array())                                  # the colours drawn, per cell
        assert (rgba[:9] == grey).all()                                          # rows 0-8: no query there
        assert not (rgba[9:] == grey).all(axis=-1).any()                         # the active rows: none grey
    assert e.mask_title.get_text() == "causal top-left mask"
    assert e.ax_weights.get_title() == "weights it allows"
    plt.close(e.figure)


def test_mask_explorer_summary_is_the_same_as_before_the_fixed_grid():
    """The text under the figure, as the panel printed it before the grid was fixed (copied from there)."""
    e = lesson.MaskExplorer()
    assert e.update("causal top-left", 3, 12, 2) == (
        "keys seen per query: [1, 2, 3]\nlargest weight, query→key: 9→0 1.00  10→1 0.80  11→1 0.77")
    assert e.update("padding", 2, 5, 5) == (
        "keys seen per query: [0, 0]   ·   2 row(s) with no visible key: weights all 0\n"
        "largest weight, query→key: 3: none  4: none")
    assert e.update("local", 12, 12, 2) == (
        "keys seen per query: [3, 4, 5, 5, 5, 5, 5, 5, 5, 5, 4, 3]\nlargest weight, query→key: 0→1 0.52  1→1 0.53  "
        "2→1 0.35  3→3 0.48  4→4 0.44  5→5 0.66\n    6→5 0.51  7→8 0.28  8→8 0.35  9→10 0.51  10→10 0.82  11→10 0.68")
    plt.close(e.figure)


def test_step_figure_and_tile_explorer_move_named_artists():
    q, k, v = lesson.toy_problem()
    t = lesson.TileExplorer(q, k, v)
    text = t.update(tile=2, block=2, causal=False)
    assert t.steps.tile_box.get_x() == 1.5 and t.steps.tile_box.get_y() == -0.5   # tile 2: queries 0-1, keys 2-3
    shown = np.asarray(t.steps.scores_image.get_array())
    assert np.isfinite(shown[:2, :4]).all() and np.isnan(shown[:, 4:]).all()
    states = list(lesson.tiled_attention_steps(q, k, v, block_size=2))
    np.testing.assert_allclose(t.steps.partial.get_xdata(), states[1]["out"][:, 0].numpy())
    assert "tile 2 of 16" in text and "rescale" in text
    t.update(tile=16, block=2, causal=True)
    assert t.controls["tile"].max == 10                                           # 4 + 3 + 2 + 1 tiles
    exact = al.scaled_dot_product_attention(q, k, v, causal=True)[0][:, 0]
    np.testing.assert_allclose(t.steps.exact.get_xdata(), exact.numpy())
    np.testing.assert_allclose(t.steps.partial.get_xdata(), exact.numpy(), atol=1e-12)


def test_step_figure_keeps_every_exact_output_in_view():
    q, k, v = lesson.toy_problem()
    t = lesson.TileExplorer(q, k, v)
    for causal in (False, True):
        t.update(tile=1, block=2, causal=causal)
        lo, hi = t.steps.ax_out.get_xlim()
        x = t.steps.exact.get_xdata()
        assert lo < x.min() and x.max() < hi


def test_mask_explorer_blits_every_control_with_its_titles_right():
    """On the fixed grid nothing structural changes: every move of every control (the menu too) blits,
    and the mask's title names the kind shown."""
    e = lesson.MaskExplorer()
    moves = [("kind", "causal top-left"), ("Tq", 3), ("Tk", 7), ("w", 0), ("kind", "padding"), ("Tq", 9), ("w", 3)]
    for name, value in moves:
        e.controls[name].value = value
        assert e.panel.blitter.why == "", (name, value, e.panel.blitter.why)
        assert e.mask_title.get_text() == f"{e.controls['kind'].value} mask"
    assert e.ax_weights.get_title() == "weights it allows"
    plt.close(e.figure)
