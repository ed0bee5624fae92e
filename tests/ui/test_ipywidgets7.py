"""Panels under ipywidgets 7.7 (what Colab ships): display, update and export, kernel side.

Runs only where ipywidgets 7 is installed: `make test-ipywidgets7` builds a venv with the pins of
requirements.txt but ipywidgets 7.7 and runs this module (and tests/ui/test_panels.py,
tests/ui/test_widget_bundles.py) there. Under
ipywidgets 8 (the main suite) it is skipped. It checks the Python side only: that a panel builds,
gives a display bundle a widget front end can show (protocol 2 model id, PNG, text), redraws on a
control change and exports. What a browser shows with ipywidgets 7's JavaScript is not tested here.
"""
import base64
import importlib.metadata
import io

import pytest

ipywidgets = pytest.importorskip("ipywidgets")
pytestmark = pytest.mark.skipif(int(ipywidgets.__version__.split(".")[0]) != 7,
                                reason="ipywidgets 7 only (make test-ipywidgets7)")

PNG = b"\x89PNG\r\n\x1a\n"


def _panel():
    import numpy as np

    from attnlab.ui import panels, plotting
    fig, ax = panels.new_figure(figsize=(3, 2))
    plotting.heatmap(np.full((3, 3), 0.5), ax=ax)
    level = ipywidgets.FloatSlider(value=0.5, min=0.0, max=1.0, description="level")
    choice = ipywidgets.Dropdown(options=["flat", "ramp"], value="flat", description="shape")

    def update(level, shape):
        w = np.full((3, 3), level) if shape == "flat" else np.linspace(0, level, 9).reshape(3, 3)
        plotting.update_heatmap(ax, w)
        return f"{shape}, level {level:.2f}"

    return panels.Panel(fig, {"level": level, "shape": choice}, update, moving=lambda: ax.images + ax.texts,
                        name="w7")


def test_installed_versions_are_the_ones_meant():
    assert ipywidgets.__version__.startswith("7.7.")
    requires = importlib.metadata.requires("attnlab") or []
    from packaging.requirements import Requirement  # (matplotlib's dependency)
    floors = [str(s) for r in map(Requirement, requires) if r.name == "ipywidgets" and not r.marker
              for s in r.specifier if s.operator == ">="]
    assert floors == [">=7.7"], requires        # the floor this venv installs (with the upper bound beside it)


def test_a_panel_displays_updates_and_exports_under_ipywidgets_7():
    from IPython.core.formatters import DisplayFormatter
    panel = _panel()
    data, _ = DisplayFormatter().format(panel)
    view = data["application/vnd.jupyter.widget-view+json"]
    assert view["version_major"] == 2 and view["model_id"] == panel.widget.model_id
    assert base64.b64decode(data["image/png"]).startswith(PNG)
    assert data["text/plain"] == "Live panel 'w7' with controls: level, shape\nflat, level 0.50"
    first = bytes(panel.image.value)
    panel.controls["level"].value = 0.9
    panel.controls["shape"].value = "ramp"
    assert bytes(panel.image.value).startswith(PNG) and bytes(panel.image.value) != first
    assert "ramp, level 0.90" in panel.text.value and panel.error.value == ""
    assert panel.blitter.blits >= 1 and panel.blitter.exact
    data, _ = DisplayFormatter().format(panel)
    assert base64.b64decode(data["image/png"]) == bytes(panel.image.value)
    assert panel.export("png").startswith(PNG) and panel.export("svg").startswith(b"<?xml")
    panel.widget.children[-1].children[0].click()                     # the PNG download button
    assert "data:image/png;base64," in panel.download.value


def test_the_picture_equals_a_full_draw_under_ipywidgets_7():
    import numpy as np
    from PIL import Image

    from test_panels import full_draw
    panel = _panel()
    for value in (0.1, 0.3, 0.7):
        panel.controls["level"].value = value
        shown = np.asarray(Image.open(io.BytesIO(bytes(panel.image.value))).convert("RGBA"))
        assert np.abs(shown.astype(int) - full_draw(panel.figure)).max() == 0


def test_a_numeric_self_check_names_a_known_mistake_under_ipywidgets_7():
    from IPython.core.formatters import DisplayFormatter

    from attnlab.ui import selfcheck
    q = selfcheck.numeric("√128? Two decimals.", 11.31, tolerance=0.01, hint="The square root of d_k.",
                          mistakes={128 / 8: "You divided 128 by 8: 8 is √64, not √128."})
    data, _ = DisplayFormatter().format(q)
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == q.widget.model_id
    assert data["text/plain"] == "Self-check: √128? Two decimals."
    q.control.value = 16.0                                            # typed in the FloatText, then Check
    q.check_button.click()
    assert "16: You divided 128 by 8" in q.feedback.value and "square root" not in q.feedback.value
    q.control.value = 20.0
    q.check_button.click()
    assert "20 is too large. The square root of d_k." in q.feedback.value
    q.control.value = 11.31
    q.check_button.click()
    assert "Right" in q.feedback.value
    q.reveal.value = True
    assert q.solution.layout.display == ""
    mc = selfcheck.multiple_choice("T -> 0 gives ...", {"uniform": "No.", "one-hot": "Yes."}, "one-hot")
    data, _ = DisplayFormatter().format(mc)
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == mc.widget.model_id
    assert mc.check("uniform") is False and "No." in mc.feedback.value


def test_a_trainer_displays_under_ipywidgets_7():
    from IPython.core.formatters import DisplayFormatter

    from attnlab.ui.trainer import Trainer
    t = Trainer(lambda steps: iter([{"loss": 1.0}]), steps=10)
    data, _ = DisplayFormatter().format(t)
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == t.widget.model_id
    assert data["text/plain"].startswith("Live panel") and "live curves: loss" in data["text/plain"]


def _lesson(name):
    import importlib
    return importlib.import_module(f"attnlab.lessons.{name}")


def _nb01_training():
    lesson = _lesson("nb01_kernel_regression")
    return lesson.play_trainer(explorer=lesson.play())


def _nb08_explorer():
    lesson = _lesson("nb08_bahdanau_attention")
    return lesson.play(models={"additive": lesson.pretrained("additive")})


def _nb09_explorer():
    return _lesson("nb09_transformer_block").play()


@pytest.mark.parametrize("build,text", [(_nb01_training, "Live panel 'kernel-regression-training'"),
                                        (_nb08_explorer, "Live panel '08-alignment'"),
                                        (_nb09_explorer, "Live panel '09-it-explorer'")])
def test_the_lessons_composite_widgets_display_under_ipywidgets_7(build, text):
    from IPython.core.formatters import DisplayFormatter
    view = build()
    data, _ = DisplayFormatter().format(view)
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == view.widget.model_id
    assert data["text/plain"].startswith(text)
