"""panels.py: a Panel calls update on construction and on every control change, renders PNG,
shows callback errors (keeping the last good image) and offers PNG/SVG downloads."""
import base64
import re

import ipywidgets as widgets
import numpy as np
import pytest

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
