"""panels.py: a Panel calls update on construction and on every control change, renders PNG,
shows callback errors (keeping the last good image) and offers PNG/SVG downloads."""
import base64
import io
import re

import ipywidgets as widgets
import numpy as np
import pytest
from PIL import Image

from attnlab import panels, plotting

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _heatmap_panel(calls):
    fig, ax = panels.new_figure(figsize=(3, 2))
    plotting.heatmap(np.full((2, 2), 0.5), ax=ax)
    size = widgets.IntSlider(value=2, min=1, max=4, description="size")
    level = widgets.FloatSlider(value=0.5, min=0.0, max=1.0, description="level")

    def update(size, level):
        calls.append((size, level))
        if level > 0.95:
            raise RuntimeError("level too high for this demo")
        plotting.update_heatmap(ax, np.full((size, size), level))
        return f"size {size}, level {level:.2f}"

    return panels.Panel(fig, {"size": size, "level": level}, update, name="demo"), ax


def test_new_figure_is_outside_pyplot():
    import matplotlib.pyplot as plt
    before = plt.get_fignums()
    fig, axes = panels.new_figure(1, 2)
    assert len(axes) == 2 and plt.get_fignums() == before
    assert fig.get_layout_engine() is not None


def test_update_runs_on_construction_and_on_change():
    calls = []
    panel, ax = _heatmap_panel(calls)
    assert calls == [(2, 0.5)]
    assert bytes(panel.image.value).startswith(PNG_SIGNATURE)
    assert "size 2, level 0.50" in panel.text.value and panel.error.value == ""
    first = bytes(panel.image.value)
    panel.controls["level"].value = 0.9
    assert calls[-1] == (2, 0.9)
    assert bytes(panel.image.value).startswith(PNG_SIGNATURE) and bytes(panel.image.value) != first
    np.testing.assert_allclose(ax.images[0].get_array(), 0.9)
    panel.controls["size"].value = 3                                   # shape change
    assert ax.images[0].get_array().shape == (3, 3)
    assert panel.values() == {"size": 3, "level": 0.9}
    from matplotlib.layout_engine import ConstrainedLayoutEngine
    assert not isinstance(panel.figure.get_layout_engine(), ConstrainedLayoutEngine)  # frozen after 1st draw
    assert len(panel.timings) == 3


def test_exception_in_update_is_shown_and_previous_image_kept():
    calls = []
    panel, _ = _heatmap_panel(calls)
    good = bytes(panel.image.value)
    panel.controls["level"].value = 1.0
    assert "RuntimeError" in panel.error.value and "level too high for this demo" in panel.error.value
    assert bytes(panel.image.value) == good
    panel.controls["level"].value = 0.2
    assert panel.error.value == "" and bytes(panel.image.value) != good


def test_exports_and_download_links():
    panel, _ = _heatmap_panel([])
    assert panel.export("png").startswith(PNG_SIGNATURE)
    assert panel.export("svg").startswith(b"<?xml")
    with pytest.raises(ValueError, match=r"fmt: expected 'png' or 'svg', got 'gif'"):
        panel.export("gif")
    assert panel.download.value == ""
    button_row = panel.widget.children[-1]
    png_button, svg_button = button_row.children[:2]
    svg_button.click()
    html = panel.download.value
    assert 'download="demo.svg"' in html and "data:image/svg+xml;base64," in html
    payload = re.search(r"base64,([^\"]+)\"", html).group(1)
    assert base64.b64decode(payload).startswith(b"<?xml")
    png_button.click()
    assert 'download="demo.png"' in panel.download.value and "data:image/png;base64," in panel.download.value


def test_stable_text_repr_for_nbval():
    panel, _ = _heatmap_panel([])
    bundle = panel._repr_mimebundle_()
    assert bundle["text/plain"] == "Live panel 'demo' with controls: size, level"
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_a_plain_figure_without_agg_canvas_and_text_free_update():
    from matplotlib.figure import Figure
    fig = Figure(figsize=(2, 1.5))
    line, = fig.subplots().plot([0, 1], [0, 1])
    slider = widgets.FloatSlider(value=1.0, min=0.0, max=2.0)
    panel = panels.Panel(fig, {"slope": slider}, lambda slope: line.set_ydata([0, slope]), freeze_layout=False)
    assert bytes(panel.image.value).startswith(PNG_SIGNATURE) and panel.text.value == ""
    slider.value = 2.0
    assert list(line.get_ydata()) == [0, 2.0]


# --- blitting: after a move, the picture must equal what a full matplotlib draw gives -----------

def _pixels(panel):
    return np.asarray(panel.figure.canvas.buffer_rgba()).copy()


def _full_draw_pixels(panel):
    """The reference: matplotlib's own full draw of the same figure, with nothing hidden."""
    with panel.blitter.everything_shown():
        panel.figure.canvas.draw()
    return _pixels(panel)


def _assert_same_as_full_draw(panel):
    shown = _pixels(panel)
    reference = _full_draw_pixels(panel)
    differing = (np.abs(shown.astype(int) - reference).max(axis=-1) > 40).mean()
    assert differing == 0.0, f"{differing:.2%} of pixels differ from a full draw ({panel.blitter.why!r})"


def _lines_and_heatmap_panel(**panel_kw):
    """A heatmap whose values follow `level`, and a line plot whose y range follows `scale`."""
    fig, (ax_map, ax_line) = panels.new_figure(1, 2, figsize=(6, 2.5))
    plotting.heatmap(np.full((3, 3), 0.5), ax=ax_map, x_labels=list("abc"), y_labels=list("xyz"))
    x = np.linspace(0, 1, 50)
    line, = ax_line.plot(x, x)
    ax_line.set_title("fixed title")
    level = widgets.FloatSlider(value=0.5, min=0.0, max=1.0, description="level")
    scale = widgets.FloatSlider(value=1.0, min=0.5, max=5.0, description="scale")

    def update(level, scale):
        plotting.update_heatmap(ax_map, np.linspace(0, level, 9).reshape(3, 3))
        line.set_ydata(scale * x ** 2)
        ax_line.set_ylim(0, scale)                     # set on every move, changed only by `scale`

    return panels.Panel(fig, {"level": level, "scale": scale}, update, **panel_kw)


def test_repeated_moves_of_one_control_are_blitted_and_match_a_full_draw():
    panel = _lines_and_heatmap_panel()
    blitter = panel.blitter
    for value in (0.1, 0.3, 0.7, 0.9):
        panel.controls["level"].value = value
        _assert_same_as_full_draw(panel)
    assert blitter.blits >= 2 and blitter.why == ""
    drawn = {type(a).__name__ for a in blitter.on_top}
    assert "AxesImage" in drawn and "XAxis" not in drawn and "YAxis" not in drawn   # ticks stay saved


def test_a_control_that_changes_axis_limits_redraws_that_axes_whole():
    panel = _lines_and_heatmap_panel()
    for value in (2.0, 3.0, 4.5, 1.5):
        panel.controls["scale"].value = value
        _assert_same_as_full_draw(panel)
    ax_map, ax_line = panel.figure.axes[:2]
    assert panel.blitter.blits >= 2
    assert id(ax_line) in panel.blitter.whole and ax_line.yaxis in panel.blitter.on_top
    assert ax_map.xaxis not in panel.blitter.on_top and id(ax_map) not in panel.blitter.whole


def test_switching_controls_saves_a_new_background():
    panel = _lines_and_heatmap_panel()
    panel.controls["level"].value = 0.2
    panel.controls["level"].value = 0.4
    assert panel.blitter.why == ""
    panel.controls["scale"].value = 2.0
    assert panel.blitter.why == "the background was saved for 'level'"
    _assert_same_as_full_draw(panel)


def _line_panel(extra=lambda ax, k: None):
    """One line whose end follows slider `k`; `extra(ax, k)` does more on each move."""
    fig, ax = panels.new_figure(figsize=(3, 2))
    line, = ax.plot([0, 1], [0, 1])

    def update(k):
        line.set_ydata([0, k])
        extra(ax, k)

    k = widgets.FloatSlider(value=0.5, min=0.0, max=1.0, description="k")
    return panels.Panel(fig, {"k": k}, update), ax


def test_added_artists_force_a_full_draw():
    panel, ax = _line_panel(lambda ax, k: ax.axvline(k) if k > 0.55 else None)   # a new artist
    for value in (0.2, 0.3, 0.4):
        panel.controls["k"].value = value
    assert panel.blitter.why == ""
    panel.controls["k"].value = 0.6
    assert panel.blitter.why == "axes moved or artists added/removed"
    _assert_same_as_full_draw(panel)


def test_setting_the_same_limits_again_does_not_force_a_full_draw():
    def same_limits_and_ticks(ax, k):
        ax.set_ylim(0, 1)
        ax.set_xticks([0, 0.5, 1])

    panel, ax = _line_panel(same_limits_and_ticks)
    for value in (0.2, 0.4, 0.6, 0.8):
        panel.controls["k"].value = value
        _assert_same_as_full_draw(panel)
    assert panel.blitter.blits >= 2 and ax.yaxis not in panel.blitter.on_top


def test_overlapping_axes_are_always_drawn_in_full():
    panel, ax = _line_panel()
    inset = panel.figure.add_axes([0.5, 0.5, 0.3, 0.3])
    for value in (0.2, 0.4, 0.6):
        panel.controls["k"].value = value
        _assert_same_as_full_draw(panel)
    assert panel.blitter.blits == 0 and panel.blitter.why == "no background" and inset in panel.figure.axes


def test_blit_false_draws_everything_every_time():
    panel = _lines_and_heatmap_panel(blit=False)
    assert panel.blitter is None
    first = bytes(panel.image.value)
    panel.controls["level"].value = 0.9
    assert bytes(panel.image.value) != first


def test_exports_include_the_artists_drawn_on_top():
    panel = _lines_and_heatmap_panel()
    for value in (0.11, 0.33, 0.77):
        panel.controls["level"].value = value
    assert panel.blitter.why == "" and all(a.get_animated() for a in panel.blitter.on_top)
    reference = _lines_and_heatmap_panel(blit=False)
    reference.controls["level"].value = 0.77
    svg, svg_reference = panel.export("svg").decode(), reference.export("svg").decode()
    for tag in ("<image", "<use", "<path"):                          # images, glyphs, lines: all there
        assert svg.count(tag) == svg_reference.count(tag) > 0
    png = panel.export("png")
    exported = np.asarray(Image.open(io.BytesIO(png)).convert("RGB").resize(panel.figure.canvas.get_width_height()))
    assert all(a.get_animated() for a in panel.blitter.on_top)                 # hidden again afterwards
    shown = np.asarray(Image.open(io.BytesIO(bytes(panel.image.value))).convert("RGB"))
    assert np.abs(exported.astype(int) - shown).mean() < 12                   # same picture, 150 dpi


def test_an_update_error_keeps_blitting_consistent():
    calls = []
    panel, _ = _heatmap_panel(calls)
    for value in (0.2, 0.4, 1.0, 0.6, 0.7):                 # 1.0 raises inside update
        panel.controls["level"].value = value
    _assert_same_as_full_draw(panel)


def test_moves_after_an_export_still_match_a_full_draw():
    panel = _lines_and_heatmap_panel()
    for value in (0.2, 0.4):
        panel.controls["level"].value = value
    panel.export("png")                                     # draws at 150 dpi on a renderer of its own
    for value in (0.6, 0.8):
        panel.controls["level"].value = value
        _assert_same_as_full_draw(panel)
    assert panel.blitter.why == ""


# Holes a reviewer found by trying to make a blitted picture differ from a full draw; each test
# moves a control several times in a row and compares every picture with matplotlib's own.

def _drag(panel, name, values):
    for value in values:
        panel.controls[name].value = value
        _assert_same_as_full_draw(panel)


def test_highlighted_tick_label_is_redrawn():
    fig, ax = panels.new_figure(figsize=(4, 3))
    plotting.heatmap(np.full((4, 4), 0.5), ax=ax, x_labels=list("abcd"), y_labels=list("wxyz"))

    def update(k):
        w = np.full((4, 4), 0.1)
        w[:, k] = 0.7
        plotting.update_heatmap(ax, w)
        for i, t in enumerate(ax.get_xticklabels()):
            t.set_color("red" if i == k else "black")
            t.set_fontweight("bold" if i == k else "normal")

    panel = panels.Panel(fig, {"k": widgets.IntSlider(value=0, min=0, max=3)}, update)
    _drag(panel, "k", [1, 2, 3, 0, 1])


@pytest.mark.parametrize("change", ["bbox pad", "transform", "linespacing", "rotation mode"])
def test_text_changes_beyond_words_and_colour_are_redrawn(change):
    from matplotlib.transforms import offset_copy

    def note_change(note, k, ax):
        if change == "bbox pad":
            note.set_bbox(dict(boxstyle="square", pad=0.2 + 0.6 * k, fc="yellow"))
        elif change == "transform":
            note.set_transform(offset_copy(ax.transData, fig=ax.figure, x=15 * k, y=0, units="dots"))
        elif change == "linespacing":
            note.set_linespacing(1 + k)
        else:
            note.set_rotation_mode("anchor" if k % 2 else "default")

    fig, ax = panels.new_figure(figsize=(4, 3))
    line, = ax.plot([0, 1], [0, 1])
    note = ax.text(0.1, 0.8, "two\nlines", rotation=30, bbox=dict(boxstyle="square", pad=0.2, fc="yellow"),
                   zorder=1)                            # below the line: in the saved background

    def update(k):
        line.set_ydata([0, 1 - 0.1 * k])
        note_change(note, k, ax)

    panel = panels.Panel(fig, {"k": widgets.IntSlider(value=0, min=0, max=3)}, update)
    _drag(panel, "k", [1, 2, 3, 1])


def test_a_new_stacking_order_is_drawn():
    fig, ax = panels.new_figure(figsize=(4, 3))
    lines = [ax.plot([0, 1], [i, 1 - i], lw=12)[0] for i in (0.2, 0.5, 0.8)]

    def update(k):
        for i, line in enumerate(lines):
            line.set_zorder(3 if i == k else 2)

    panel = panels.Panel(fig, {"k": widgets.IntSlider(value=0, min=0, max=2)}, update)
    _drag(panel, "k", [1, 2, 0, 1, 2])


def test_figure_text_over_a_redrawn_heatmap_stays_on_top():
    fig, ax = panels.new_figure(figsize=(4, 3))
    plotting.heatmap(np.full((4, 4), 0.5), ax=ax)
    fig.text(0.4, 0.5, "FIGURE TEXT", fontsize=20, color="red")

    def update(level):
        plotting.update_heatmap(ax, np.full((4, 4), level))

    panel = panels.Panel(fig, {"level": widgets.FloatSlider(value=0.5, min=0, max=1)}, update)
    _drag(panel, "level", [0.1, 0.9, 0.3])


def test_a_connection_between_axes_follows_a_zoom():
    from matplotlib.patches import ConnectionPatch
    fig, (ax1, ax2) = panels.new_figure(1, 2, figsize=(6, 3))
    ax1.plot([0, 1], [0, 1])
    ax2.plot([0, 1], [1, 0])
    fig.add_artist(ConnectionPatch(xyA=(0.5, 0.5), coordsA=ax1.transData, xyB=(0.5, 0.5),
                                   coordsB=ax2.transData, color="red", lw=3))

    def update(zoom):
        ax1.set_xlim(0, zoom)
        ax1.set_ylim(0, zoom)

    panel = panels.Panel(fig, {"zoom": widgets.FloatSlider(value=1.0, min=0.2, max=2.0)}, update)
    _drag(panel, "zoom", [0.8, 0.7, 0.6, 1.5])


def test_panning_limits_far_from_zero_is_seen():
    t0 = 1.7e9                                          # unix time: float32 steps are 128 s here
    fig, ax = panels.new_figure(figsize=(5, 3))
    t = t0 + np.arange(0, 600, 1.0)
    ax.plot(t, np.sin(t / 7))
    ax.axvspan(t0 + 30, t0 + 40, color="orange")
    ax.ticklabel_format(useOffset=False)
    panel = panels.Panel(fig, {"start": widgets.IntSlider(value=0, min=0, max=500)},
                         lambda start: ax.set_xlim(t0 + start, t0 + start + 60))
    _drag(panel, "start", [5, 10, 15, 20])


def test_a_failing_draw_is_shown_and_the_next_move_draws_again():
    fig, ax = panels.new_figure(figsize=(4, 3))
    line, = ax.plot([0, 1], [0, 1])
    title = widgets.Text(value="cost", description="title")

    def update(title):
        ax.set_title(title)
        line.set_ydata([0, len(title) / 10])

    panel = panels.Panel(fig, {"title": title}, update)
    good = bytes(panel.image.value)
    title.value = r"cost $\frac{1}$"                    # bad mathtext: fails while drawing
    assert "ValueError" in panel.error.value and bytes(panel.image.value) == good
    title.value = "cost again"
    assert panel.error.value == "" and bytes(panel.image.value) != good
    _assert_same_as_full_draw(panel)
