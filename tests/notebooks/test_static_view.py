"""The stored notebooks as a static viewer shows them: nbviewer renders with nbconvert's HTML exporter
(the default "lab" template), executing nothing. Every live panel output must show there as its
picture (an <img> of the output's own PNG) with its text summary, not as a widget that needs a
widget manager from a CDN, and not as the bare "Live panel ... with controls" line.

If this fails after re-executing a notebook: `python tools/static_panels.py notebooks/NN_x.ipynb`
(executing stores every widget's state, and nbconvert then draws the panel as a widget).
"""
import html
import json
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import static_panels

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "notebooks" / "zh").glob("*.ipynb"))
VIEW = "application/vnd.jupyter.widget-view+json"


class Page(HTMLParser):
    """The <img> sources, the <pre> texts and the widget-view scripts of an HTML page."""

    def __init__(self, text):
        super().__init__()
        self.imgs, self.pres, self.views, self._in = [], [], [], None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.imgs.append(attrs.get("src", ""))
        elif tag == "pre":
            self._in = ("pre", [])
        elif tag == "script" and attrs.get("type") == VIEW:
            self._in = ("view", [])

    def handle_data(self, data):
        if self._in:
            self._in[1].append(data)

    def handle_endtag(self, tag):
        if self._in and tag in ("pre", "script"):
            kind, parts = self._in
            (self.pres if kind == "pre" else self.views).append("".join(parts))
            self._in = None


# How a panel's text form begins, in each language (attnlab.ui.panels.Panel and ui.trainer.Trainer's
# _repr_mimebundle_, through the catalog): a zh notebook's panels say 交互面板.
PANEL_TEXT = ("Live panel", "交互面板")

def text_of(value):
    return value if isinstance(value, str) else "".join(value)


def live_outputs(nb):
    """(text/plain, PNG base64 or None, model id) of each output that is a live panel."""
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if text_of(data.get("text/plain", "")).startswith(PANEL_TEXT):
                found.append((text_of(data["text/plain"]), data.get("image/png"), data.get(VIEW, {}).get("model_id")))
    return found


def render(nb):
    body, _ = HTMLExporter().from_notebook_node(nb)
    page = Page(body)
    return page, {json.loads(v)["model_id"] for v in page.views if v.strip()}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[("zh-" if p.parent.name == "zh" else "") + p.stem for p in NOTEBOOKS])
def test_every_live_panel_shows_its_picture_and_summary_in_nbconvert_html(path):
    nb = nbformat.read(path, as_version=4)
    panels = live_outputs(nb)
    if not panels:
        pytest.skip("no live panel")
    page, drawn_as_widgets = render(nb)
    for text, png, model_id in panels:
        name = text.split("\n", 1)[0]
        assert png, f"{name}: the stored output has no image/png"
        assert model_id not in drawn_as_widgets, \
            f"{name}: drawn as a widget (its state is stored); run tools/static_panels.py {path.name}"
        assert f"data:image/png;base64,{text_of(png)}" in page.imgs, f"{name}: no <img> of its picture"
        assert any(html.unescape(p).strip() == text.strip() for p in page.pres), \
            f"{name}: its text and summary are not shown under the picture"
        assert "\n" in text.strip(), f"{name}: the stored output has no text summary, only {text!r}"


def test_the_stored_notebooks_keep_no_panel_view_in_their_widget_state():
    assert static_panels.main(["--check", *map(str, NOTEBOOKS)]) == 0


def test_a_panel_view_in_the_stored_state_is_drawn_as_a_widget_until_dropped():
    """The mechanism the tests above rely on: nbconvert draws a view whose model is stored as a widget
    (no picture), and the output's picture and text once static_panels dropped that model."""
    path = next(p for p in NOTEBOOKS if live_outputs(nbformat.read(p, as_version=4)))
    nb = nbformat.read(path, as_version=4)
    text, png, model_id = live_outputs(nb)[0]
    state = nb.metadata.setdefault("widgets", {}).setdefault(static_panels.WIDGET_STATE, {"version_major": 2,
                                                                                           "version_minor": 0,
                                                                                           "state": {}})
    state["state"][model_id] = {"model_name": "VBoxModel", "model_module": "@jupyter-widgets/controls",
                                "model_module_version": "2.0.0", "state": {}}
    page, drawn = render(nb)
    assert model_id in drawn and f"data:image/png;base64,{text_of(png)}" not in page.imgs
    assert static_panels.stored_panel_views(nb) == [model_id]
    assert static_panels.drop_panel_views(nb) == 1 and static_panels.stored_panel_views(nb) == []
    page, drawn = render(nb)
    assert model_id not in drawn and f"data:image/png;base64,{text_of(png)}" in page.imgs


def test_the_stored_notebooks_keep_no_model_that_no_output_reaches():
    """A panel's picture is stored once, in its output: the Image model (and the sliders, layouts and
    styles) that only the dropped panel view used are gone from the stored widget state too."""
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        assert static_panels.unreachable_models(nb) == [], path.name
        for _, png, _ in live_outputs(nb):
            assert text_of(png)[:2000] not in json.dumps(nb.metadata.get("widgets", {})), path.name


def _model(name, **state):
    return {"model_name": name, "model_module": "@jupyter-widgets/controls", "model_module_version": "2.0.0",
            "state": state}


def test_dropping_a_panel_view_drops_what_only_it_used_and_keeps_what_others_use():
    nb = nbformat.v4.new_notebook()
    panel = {VIEW: {"model_id": "panel", "version_major": 2, "version_minor": 0}, "image/png": "iVBOR",
             "text/plain": "Live panel 'p' with controls: x"}
    check = {VIEW: {"model_id": "check", "version_major": 2, "version_minor": 0}, "text/plain": "check"}
    nb.cells = [nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output("display_data", data=panel),
                                                   nbformat.v4.new_output("display_data", data=check)])]
    nb.metadata["widgets"] = {static_panels.WIDGET_STATE: {"version_major": 2, "version_minor": 0, "state": {
        "panel": _model("VBoxModel", children=["IPY_MODEL_image", "IPY_MODEL_slider"], layout="IPY_MODEL_lay1"),
        "image": _model("ImageModel", value="iVBOR", layout="IPY_MODEL_lay2"),
        "slider": _model("FloatSliderModel", style="IPY_MODEL_shared"),
        "lay1": _model("LayoutModel"), "lay2": _model("LayoutModel"),
        "check": _model("VBoxModel", children=["IPY_MODEL_out"]),
        "out": _model("OutputModel", outputs=[{"output_type": "display_data", "data": {VIEW: {"model_id": "button"}}}]),
        "button": _model("ButtonModel", style="IPY_MODEL_shared"),
        "shared": _model("ButtonStyleModel"),
        "stray": _model("HTMLModel", value="made, never shown"),
    }}}
    assert sorted(static_panels.unreachable_models(nb)) == ["stray"]
    assert static_panels.drop_panel_views(nb) == 1
    assert sorted(nb.metadata["widgets"][static_panels.WIDGET_STATE]["state"]) == ["button", "check", "out", "shared"]
    assert static_panels.unreachable_models(nb) == [] and static_panels.stored_panel_views(nb) == []
