"""bench/load/voila_protocol.py, what the load generator's simulated learners say and read, checked against
references it did not write: jupyter_server's own v1 websocket framing, and a widget state made by
ipywidgets' own code (the states its control comm sends a page). The load generator itself runs against a
real server in tests/browser/test_load.py."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "load"))
import voila_protocol as vp

connection = pytest.importorskip("jupyter_server.services.kernels.connection.base")


@pytest.mark.parametrize("parts", [[b"{}", b"{}", b"{}", b"{}"], [b'{"a": 1}', b"{}", b"{}", b'{"x": "\xc3\xa9"}', b"\x89PNG\x00" * 50]])
def test_frames_are_jupyter_servers_own(parts):
    ours = vp.frame("shell", parts)
    assert ours == connection.serialize_msg_to_ws_v1(parts, "shell")
    channel, theirs = connection.deserialize_msg_from_ws_v1(ours)
    assert channel == "shell" and theirs == parts


def test_a_request_unframes_to_what_was_sent():
    msg_id, data = vp.request("comm_msg", {"comm_id": "c", "data": {"method": "update"}}, "session-1",
                              metadata={"version": "1.0.0"})
    channel, msg = vp.unframe(data)
    assert channel == "shell" and msg["header"]["msg_id"] == msg_id and msg["header"]["session"] == "session-1"
    assert msg["msg_type"] == "comm_msg" and msg["content"]["data"] == {"method": "update"}
    assert msg["metadata"] == {"version": "1.0.0"} and msg["buffers"] == []


def _update_states(widgets):
    """The message ipywidgets 8's control comm sends for request_states (ipywidgets/widgets/widget.py)."""
    from ipywidgets.widgets.widget import _remove_buffers
    full = {w.model_id: {"model_name": w._model_name, "model_module": w._model_module,
                         "model_module_version": w._model_module_version, "state": w.get_state(drop_defaults=False)}
            for w in widgets}
    full, paths, buffers = _remove_buffers(full)
    return {"msg_type": "comm_msg", "content": {"comm_id": "control", "data": {"method": "update_states", "states": full,
                                                                                "buffer_paths": paths}},
            "buffers": [bytes(b) for b in buffers], "parent_header": {}}


def test_the_widget_states_give_the_figure_and_the_sliders_beside_it():
    ipywidgets = pytest.importorskip("ipywidgets")
    image = ipywidgets.Image(value=b"\x89PNG-figure", format="png")
    sliders = [ipywidgets.IntSlider(value=3, min=0, max=5), ipywidgets.FloatLogSlider(value=10, min=-1, max=2, step=0.5)]
    elsewhere = ipywidgets.FloatSlider()                           # a slider in no box with a figure
    panel = ipywidgets.VBox([ipywidgets.HBox(sliders), image])
    everything = [image, *sliders, elsewhere, panel, panel.children[0]]
    w = vp.Widgets()
    assert w.take(_update_states(everything)) == image.model_id
    assert w.figures == {image.model_id}
    assert sorted(m for m, _, _ in w.sliders()) == sorted(s.model_id for s in sliders)
    # a move's reply: the Image's update with the new PNG as a buffer, our message as parent
    reply = {"msg_type": "comm_msg", "buffers": [b"\x89PNG-new"], "parent_header": {"msg_id": "m1"},
             "content": {"comm_id": image.model_id, "data": {"method": "update", "state": {}, "buffer_paths": [["value"]]}}}
    assert w.take(reply) == image.model_id
    text = {"msg_type": "comm_msg", "buffers": [], "parent_header": {},
            "content": {"comm_id": sliders[0].model_id, "data": {"method": "echo_update", "state": {"value": 4},
                                                                  "buffer_paths": []}}}
    assert w.take(text) is None and w.states[sliders[0].model_id]["state"]["value"] == 4


def test_a_widget_made_while_the_page_watches_comes_as_comm_open():
    w = vp.Widgets()
    opened = {"msg_type": "comm_open", "buffers": [b"png"], "parent_header": {},
              "content": {"comm_id": "img", "target_name": "jupyter.widget",
                          "data": {"state": {"_model_name": "ImageModel"}, "buffer_paths": [["value"]]}}}
    assert w.take(opened) == "img"


@pytest.mark.parametrize("name, state, direction, expected", [
    ("IntSliderModel", {"value": 5, "min": 0, "max": 5, "step": 1}, 1, ("value", 4)),          # turned back at its end
    ("IntSliderModel", {"value": 2, "min": 0, "max": 5, "step": 1}, -1, ("value", 1)),
    ("FloatSliderModel", {"value": 0.5, "min": 0.0, "max": 1.0, "step": 0.25}, 1, ("value", 0.75)),
    ("SelectionSliderModel", {"index": 0, "_options_labels": ["a", "b"]}, -1, ("index", 1)),
])
def test_a_move_is_one_step_as_an_arrow_key_makes_it(name, state, direction, expected):
    assert vp.next_value(name, state, direction) == expected


def test_a_log_slider_moves_by_its_exponent():
    attribute, value = vp.next_value("FloatLogSliderModel", {"value": 10.0, "min": -1, "max": 2, "step": 0.5, "base": 10}, 1)
    assert attribute == "value" and value == pytest.approx(10 ** 1.5)


def test_the_page_config_and_assets_are_read_from_the_html():
    html = ('<link href="/voila/static/a.css" rel="stylesheet"><script src="/voila/static/voila.js"></script>'
            '<script src="https://cdn.example/x.js"></script><script src="/voila/static/voila.js"></script>'
            '<script id="jupyter-config-data" type="application/json">{"kernelId": "k1", "progressiveRendering": false}</script>')
    assert vp.page_config(html) == {"kernelId": "k1", "progressiveRendering": False}
    assert vp.page_assets(html) == ["/voila/static/a.css", "/voila/static/voila.js"]
    assert vp.page_config("<html>This lesson is full</html>") is None
    assert json.loads(json.dumps(vp.page_config(html)))["kernelId"] == "k1"
