"""figures.py of notebook 07: each figure returns named handles whose data are the lesson's numbers,
and the two Play panels move exactly those artists."""
import re

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pytest
import torch
from matplotlib import pyplot as plt

import attnlab as al
from attnlab.lessons import nb07_masks_and_efficient_attention as lesson
from attnlab.lessons.nb07_masks_and_efficient_attention import figures, live, masks


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
    assert plt.get_cmap(figures.MASK_CMAP)(1.0)[:3] == (0.0, 0.0, 0.0)        # True (1.0) is drawn black
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
    e = lesson.play()
    view = e.update.__self__
    text = e.update("causal bottom-right", 3, 12, 0)
    mask, start = view.mask("causal bottom-right", 3, 12, 0)
    assert start == 9 and torch.equal(mask, lesson.causal_mask_bottom_right(3, 12))
    shown = view.ax_mask.images[0].get_array()                                      # the fixed 12 x 12 grid
    np.testing.assert_array_equal(shown[9:].data, mask.float().numpy())
    assert "sees keys   0–9   0–10  0–11" in text and "how many    10    11    12" in text
    text = e.update("causal bottom-right", 12, 5, 0)                              # Tq > Tk: empty rows
    assert "7 queries see no key: weights all 0" in text
    w = view.ax_weights.images[0].get_array()
    assert not np.isnan(w.data).any() and (w.data[:7, :5] == 0).all()
    mask, start = view.mask("local", 4, 12, 1)                                      # windows follow the positions
    assert torch.equal(mask, al.local_mask(12, 12, 1)[8:])
    plt.close(e.figure)


def outside_block(max_len, start, Tq, Tk):
    """Cells of the max_len x max_len grid that are not (query position, key position) now, by loops."""
    return np.array([[not (start <= i < start + Tq and j < Tk) for j in range(max_len)] for i in range(max_len)])


@pytest.mark.parametrize("Tq, Tk", [(12, 12), (3, 12), (1, 12), (1, 2), (12, 5), (7, 2), (5, 9)])
@pytest.mark.parametrize("kind", masks.MASK_KINDS)
def test_mask_explorer_greys_exactly_the_cells_outside_the_active_block(kind, Tq, Tk):
    e = lesson.play()
    view = e.update.__self__
    e.controls["kind"].value, e.controls["Tq"].value, e.controls["Tk"].value = kind, Tq, Tk
    w = e.controls["w"].value
    mask, start = view.mask(kind, Tq, Tk, w)
    assert start == max(Tk - Tq, 0)                                              # the last Tq of Tk positions
    _, weights = al.scaled_dot_product_attention(view.q_all[start:start + Tq], view.k_all[:Tk], view.k_all[:Tk], mask)
    outside = outside_block(12, start, Tq, Tk)
    for ax, block in ((view.ax_mask, mask.double()), (view.ax_weights, weights)):
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
    e = lesson.play(kind="causal top-left", num_queries=3, num_keys=12)
    view = e.update.__self__
    labels = [t.get_text() for t in view.key.get_texts()]
    assert labels == ["black = may attend (True)", "white = masked (False)",
                      "grey = not in this sequence (no query or no key there)"]
    grey = matplotlib.colors.to_rgba(figures.OUTSIDE_COLOUR)
    assert tuple(view.key.legend_handles[2].get_facecolor()) == grey
    for ax in (view.ax_mask, view.ax_weights):
        image = ax.images[0]
        rgba = image.to_rgba(image.get_array())                                  # the colours drawn, per cell
        assert (rgba[:9] == grey).all()                                          # rows 0-8: no query there
        assert not (rgba[9:] == grey).all(axis=-1).any()                         # the active rows: none grey
    assert view.mask_title.get_text() == "causal top-left mask"
    assert view.ax_weights.get_title() == "weights it allows"
    plt.close(e.figure)


def test_mask_explorer_summary_keeps_the_numbers_of_before_the_fixed_grid():
    """The text under the figure: the counts and largest weights the panel printed before the grid was
    fixed (copied from there: 9→0 1.00, 10→1 0.80, ...), now with the keys each query sees."""
    e = lesson.play()
    assert e.update("causal top-left", 3, 12, 2) == (
        "query       9     10    11\n"
        "sees keys   0     0–1   0–2\n"
        "how many    1     2     3\n"
        "top key     0     1     1\n"
        "its weight  1.00  0.80  0.77")
    assert e.update("padding", 2, 5, 5) == (
        "query       3     4\n"
        "sees keys   none  none\n"
        "how many    0     0\n"
        "top key     –     –\n"
        "its weight  0     0\n"
        "2 queries see no key: weights all 0")
    lines = e.update("local", 12, 12, 2).splitlines()
    assert lines[2].split()[2:] == "3 4 5 5 5 5 5 5 5 5 4 3".split()
    assert lines[3].split()[2:] == "1 1 1 3 4 5 5 8 8 10 10 10".split()
    assert lines[4].split()[2:] == "0.52 0.53 0.35 0.48 0.44 0.66 0.51 0.28 0.35 0.51 0.82 0.68".split()
    plt.close(e.figure)


def positions_by_loop(row):
    """Key positions of a bool row as "a–b" runs, by a plain loop (not live.key_positions)."""
    out, j, n = [], 0, len(row)
    while j < n:
        if row[j]:
            a = j
            while j + 1 < n and row[j + 1]:
                j += 1
            out.append(str(a) if a == j else f"{a}–{j}")
        j += 1
    return ", ".join(out) or "none"


@pytest.mark.parametrize("kind, Tq, Tk, w", [("local", 12, 12, 2), ("block", 12, 12, 5), ("block", 4, 9, 3),
                                             ("causal top-left", 3, 12, 0), ("causal bottom-right", 12, 5, 0),
                                             ("padding", 6, 8, 3), ("local", 1, 2, 0)])
def test_mask_explorer_text_says_which_keys_each_query_sees(kind, Tq, Tk, w):
    """The counts line and the largest-weight line read the same way: one column per query position,
    with the key positions it sees, their number, and the top key, which is one of them."""
    e = lesson.play()
    view = e.update.__self__
    for name, value in (("kind", kind), ("Tk", Tk), ("Tq", Tq), ("w", w)):
        e.controls[name].value = value
    mask, start = view.mask(kind, Tq, Tk, w)
    rows = {line[:12].strip(): line[12:].split("  ") for line in e.summary.splitlines()[:5]}
    cells = {label: [c.strip() for c in row if c.strip()] for label, row in rows.items()}
    assert cells["query"] == [str(start + i) for i in range(Tq)]
    assert cells["sees keys"] == [positions_by_loop(r.tolist()) for r in mask]
    assert cells["how many"] == [str(int(r.sum())) for r in mask]
    for r, top in zip(mask, cells["top key"]):
        assert (top == "–") if not r.any() else r[int(top)]
    assert live.key_positions(torch.tensor([True, False, True, True, False, True])) == "0, 2–3, 5"
    plt.close(e.figure)


def test_mask_explorer_block_size_is_at_least_one():
    """w is the block size for "block": the slider starts at 1 there (w = 0 moves to 1) and at 0 for the
    other kinds; a block size of 0 is refused at play(...), not taken as 1."""
    e = lesson.play(kind="local", w=0)
    view = e.update.__self__
    w = e.controls["w"]
    assert w.min == 0 and w.value == 0
    e.controls["kind"].value = "block"
    assert w.min == 1 and w.value == 1 and not e.error.value
    mask, _ = view.mask("block", 12, 12, 1)
    assert torch.equal(mask, torch.eye(12, dtype=torch.bool))                     # blocks of 1: itself only
    assert "sees keys   0     1     2" in e.summary
    w.value = 4
    assert "sees keys   0–3   0–3" in e.summary
    e.controls["kind"].value = "local"
    assert w.min == 0 and w.value == 4
    w.value = 0
    assert e.controls["w"].value == 0
    e.controls["kind"].value = "block"                  # the slider gives no 0 for "block": play checked it once
    w.value = 0
    assert w.value == 1 and not e.error.value
    with pytest.raises(ValueError, match="w: expected a block size of at least 1 for kind 'block', got 0"):
        lesson.play(kind="block", w=0)
    assert lesson.play(kind="block", w=2).controls["w"].min == 1
    plt.close("all")


def test_grey_means_only_not_in_this_sequence():
    """One colour, one meaning: the tile panel draws a tile not visited yet hatched, over a transparent
    NaN cell, never grey (grey is the mask panel's "not in this sequence"), and its key says so."""
    q, k, v = lesson.toy_problem()
    t = lesson.play_tiles(queries=q, keys=k, values=v)
    t.update(tile=2, block=2, causal=False)
    labels = [x.get_text() for x in t.key.get_texts()]
    assert labels == ["orange box = the current tile", "hatched = not visited yet (no score computed)"]
    assert t.key.legend_handles[1].get_hatch() == figures.NOT_VISITED_HATCH
    assert not any("grey" in label for label in labels)
    grey = matplotlib.colors.to_rgba(figures.OUTSIDE_COLOUR)
    for image, background in ((t.steps.scores_image, t.steps.not_visited[0]),
                              (plotting_image(t.steps.ax_weights), t.steps.not_visited[1])):
        data = image.get_array()
        rgba = image.to_rgba(data)
        unvisited = np.isnan(np.ma.getdata(data))
        assert unvisited[2:].all() and not unvisited[:2, :4].any()
        assert (rgba[unvisited][:, 3] == 0).all()                                  # transparent: the hatch shows
        assert background.get_hatch() == figures.NOT_VISITED_HATCH and background.get_zorder() < image.get_zorder()
        assert not (rgba[..., :3] == grey[:3]).all(axis=-1).any()
    # In the rendered figure an unvisited cell shows white and the hatch's lines, and no grey of the mask panel.
    t.figure.canvas.draw()
    pixels = np.asarray(t.figure.canvas.buffer_rgba())[..., :3].astype(int)
    x, y = t.steps.ax_scores.transData.transform((5, 5))
    h = pixels.shape[0]
    patch = pixels[int(h - y) - 6:int(h - y) + 6, int(x) - 6:int(x) + 6].reshape(-1, 3)
    assert (patch == 255).all(axis=-1).any() and (patch < 200).all(axis=-1).any()
    assert not (np.abs(patch - np.array(grey[:3]) * 255) < 3).all(axis=-1).any()
    so_far = lesson.weights_so_far_figure(list(lesson.tiled_attention_steps(q, k, v, block_size=2)), 8)
    assert [x.get_text() for x in so_far.key.get_texts()] == ["hatched = not visited yet (no score computed)"]
    assert [c.get_text() for c in plotting_cells(so_far.axes[0])][2:8] == [""] * 6   # no "nan" over the hatch
    plt.close("all")


def plotting_image(ax):
    from attnlab.ui import plotting
    return plotting.heatmap_state(ax).image


def plotting_cells(ax):
    from attnlab.ui import plotting
    return plotting.heatmap_state(ax).cells


def test_step_figure_and_tile_explorer_move_named_artists():
    q, k, v = lesson.toy_problem()
    t = lesson.play_tiles(queries=q, keys=k, values=v)
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


def test_a_move_that_clamps_the_tile_slider_updates_once():
    q, k, v = lesson.toy_problem()
    t = lesson.play_tiles(queries=q, keys=k, values=v)
    t.controls["tile"].value = 16
    calls = []
    update = t.update
    t.update = lambda **values: calls.append(values) or update(**values)
    t.controls["causal"].value = True                                              # 16 tiles -> 10: tile 16 -> 10
    assert calls == [{"tile": 16, "block": 2, "causal": True}]                     # drawn once, at the clamped tile
    assert t.controls["tile"].value == 10 and "tile 10 of 10" in t.summary
    t.controls["tile"].value = 4                                                   # the slider still moves the panel
    assert len(calls) == 2 and "tile 4 of 10" in t.summary


def test_step_figure_keeps_every_exact_output_in_view():
    q, k, v = lesson.toy_problem()
    t = lesson.play_tiles(queries=q, keys=k, values=v)
    for causal in (False, True):
        t.update(tile=1, block=2, causal=causal)
        lo, hi = t.steps.ax_out.get_xlim()
        x = t.steps.exact.get_xdata()
        assert lo < x.min() and x.max() < hi


def test_mask_explorer_blits_every_control_with_its_titles_right():
    """On the fixed grid nothing structural changes: every move of every control (the menu too) blits,
    and the mask's title names the kind shown."""
    e = lesson.play()
    view = e.update.__self__
    moves = [("kind", "causal top-left"), ("Tq", 3), ("Tk", 7), ("w", 0), ("kind", "padding"), ("Tq", 9), ("w", 3)]
    for name, value in moves:
        e.controls[name].value = value
        assert e.blitter.why == "", (name, value, e.blitter.why)
        assert view.mask_title.get_text() == f"{e.controls['kind'].value} mask"
    assert view.ax_weights.get_title() == "weights it allows"
    plt.close(e.figure)


def _column_starts(line):
    """(wide, narrow) characters before each column of a table line (a column starts after two or
    more spaces, ideographic or not)."""
    import re
    import unicodedata
    counts = lambda s: (sum(unicodedata.east_asian_width(c) in "WF" for c in s),
                        sum(unicodedata.east_asian_width(c) not in "WF" for c in s))
    return [counts(line[:m.end()]) for m in re.finditer(r"[ \u3000]{2,}", line)]


@pytest.mark.parametrize("kind, Tq, Tk, w", [("local", 12, 12, 2), ("padding", 2, 5, 5), ("causal top-left", 3, 12, 2)])
def test_visible_keys_table_lines_up_in_chinese_in_any_font(kind, Tq, Tk, w):
    """In Chinese the labels are CJK: a browser draws a CJK character about 1.7 monospaced columns
    wide, not the 2 a terminal gives it (zh 07 on a phone: "最大权重的键"'s row sat left of the
    others). Each column must start after as many wide and as many narrow characters on every
    line, so it lines up whatever the two widths are."""
    previous = al.set_language("zh")
    try:
        e = lesson.play()
        text = e.update(kind, Tq, Tk, w)
        plt.close(e.figure)
    finally:
        al.set_language(previous)
    lines = text.splitlines()[:5]
    assert lines[0].startswith("查询") and lines[3].startswith("最大权重的键")
    starts = [_column_starts(line) for line in lines]
    assert len(starts[0]) == Tq
    assert all(s == starts[0] for s in starts), starts


def test_tile_explorer_text_lines_up_its_equals_signs_in_english_and_chinese():
    """The tile panel's five "name = values" lines: in English exactly as before (16 columns to the
    "="); in Chinese the "=" (and so the values) after as many wide and narrow characters on every
    line (the catalog's padding by terminal columns left "分母 l"'s "=" right of the others)."""
    q, k, v = lesson.toy_problem()
    t = lesson.play_tiles(queries=q, keys=k, values=v)
    assert t.update(tile=2, block=2, causal=False).splitlines()[1:] == [
        "running max m   =  0.828   0.718", "rescale         =  0.059   0.709", "denominator l   =  1.231   2.347",
        "output so far   =  0.724   0.183", "exact output    =  0.572   0.579"]
    previous = al.set_language("zh")
    try:
        lines = t.update(tile=2, block=2, causal=False).splitlines()[1:]
    finally:
        al.set_language(previous)
        plt.close(t.figure)
    assert [line.split()[0] for line in lines] == ["当前最大值", "重缩放因子", "分母", "目前的输出", "精确输出"]
    before = [_column_starts(line[:line.index("=")] + "  ") for line in lines]
    assert all(b == before[0] for b in before), before


def test_play_and_play_tiles_take_starting_values_by_keyword_and_check_them_once():
    with pytest.raises(TypeError, match="positional"):
        lesson.play("masks")
    with pytest.raises(ValueError, match=re.escape("num_queries, num_keys, w: expected at most max_len = 12, got 13, 12, 2")):
        lesson.play(num_queries=13)
    with pytest.raises(ValueError, match=re.escape("kind: expected")):
        lesson.play(kind="diagonal")
    q, k, v = lesson.toy_problem()
    with pytest.raises(TypeError, match="positional"):
        lesson.play_tiles(q, k, v)
    with pytest.raises(ValueError, match=re.escape("block: expected")):
        lesson.play_tiles(queries=q, keys=k, values=v, block=3)
    with pytest.raises(ValueError, match="keys"):
        lesson.play_tiles(queries=q, keys=k[:, :2], values=v)
    plt.close("all")
