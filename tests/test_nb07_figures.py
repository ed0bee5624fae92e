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
    np.testing.assert_array_equal(np.asarray(e.ax_mask.images[0].get_array()), mask.float().numpy())
    assert "keys seen per query: [10, 11, 12]" in text
    text = e.update("causal bottom-right", 12, 5, 0)                              # Tq > Tk: empty rows
    assert "7 row(s) with no visible key: weights all 0" in text
    w = np.asarray(e.ax_weights.images[0].get_array())
    assert not np.isnan(w).any() and (w[:7] == 0).all()
    mask, start = e.mask("local", 4, 12, 1)                                      # windows follow the positions
    assert torch.equal(mask, al.local_mask(12, 12, 1)[8:])


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
