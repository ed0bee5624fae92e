"""What a Voila 0.5 dashboard page's JavaScript says to the server, in Python, for the load generator
(bench/load/locustfile.py). Read from Voila 0.5.13's front end and the attnlab template, not guessed:

1. the page (GET /voila/render/<notebook>) carries its kernel's id in ``<script id="jupyter-config-data">``
   (``kernelId``; ``progressiveRendering`` says whether the cells are still to run);
2. its widget manager (@voila-dashboards/widgets-manager8) asks ``GET api/kernels/<id>`` and opens the
   kernel's channels websocket ``api/kernels/<id>/channels?session_id=<uuid>`` with JupyterLab's
   ``v1.kernel.websocket.jupyter.org`` framing (``frame``/``unframe`` below), sends ``kernel_info_request``,
   then loads the widgets as ipywidgets 8's manager does: a ``comm_open`` of target
   ``jupyter.widget.control`` and a ``comm_msg`` ``{"method": "request_states"}``, answered by
   ``{"method": "update_states", "states": ..., "buffer_paths": ...}``;
3. with progressive rendering (Binder, the hub's servers) the page then opens
   ``voila/execution/<id>`` and sends ``{"action": "execute", "payload": {"kernel_id": <id>}}``: the server
   runs the notebook, and each widget the cells make reaches the page as a ``comm_open`` on the channels;
4. a slider moved: a ``comm_msg`` ``{"method": "update", "state": {"value": v}, "buffer_paths": []}`` on the
   shell channel for the slider's model; the panel's new figure comes back as a ``comm_msg`` ``update`` of
   its Image model whose ``buffer_paths`` hold ``["value"]`` (the PNG), with our message as parent;
5. the page closes: ``navigator.sendBeacon(voila/api/shutdown/<id>)`` with the ``_xsrf`` cookie's value as a
   form field (the template's fix of voila#1458), and the websockets close.

Only the framing and the bookkeeping live here (no network), so tests/serving/test_load_protocol.py checks them
against jupyter_server's own framing and a widget state of ipywidgets' own making.
"""
import json
import math
import re
import uuid
from datetime import datetime, timezone

PROTOCOL = "v1.kernel.websocket.jupyter.org"
CONTROL_TARGET = "jupyter.widget.control"
WIDGET_TARGET = "jupyter.widget"
SLIDERS = ("IntSliderModel", "FloatSliderModel", "FloatLogSliderModel", "SelectionSliderModel")
CONFIG = re.compile(r'<script id="jupyter-config-data" type="application/json">\s*(\{.*?\})\s*</script>', re.S)
ASSET = re.compile(r'<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+)"')


def page_config(html):
    """The page's configuration (``kernelId``, ``baseUrl``, ``progressiveRendering`` ...), or None when the
    page has none (a "full" page, a login page)."""
    m = CONFIG.search(html)
    return json.loads(m.group(1)) if m else None


def page_assets(html):
    """The scripts and style sheets a page names by a path of the same server (what a browser with an empty
    cache fetches before its scripts run), in page order, each once."""
    seen = []
    for ref in ASSET.findall(html):
        if ref.startswith("/") and not ref.startswith("//") and ref not in seen:
            seen.append(ref)
    return seen


def frame(channel, parts):
    """A kernel message as the v1 websocket protocol frames it: the count of offsets, the offsets, the
    channel's name, then each part (header, parent header, metadata, content, buffers)."""
    channel = channel.encode()
    offsets = [8 * (1 + 1 + len(parts) + 1)]
    offsets.append(offsets[-1] + len(channel))
    for part in parts:
        offsets.append(offsets[-1] + len(part))
    return b"".join([len(offsets).to_bytes(8, "little"), *(o.to_bytes(8, "little") for o in offsets), channel, *parts])


def unframe(data):
    """(channel, message dict with header, parent_header, metadata, content, buffers) of a v1 frame."""
    n = int.from_bytes(data[:8], "little")
    offsets = [int.from_bytes(data[8 * (i + 1): 8 * (i + 2)], "little") for i in range(n)]
    channel = data[offsets[0]:offsets[1]].decode()
    parts = [data[offsets[i]:offsets[i + 1]] for i in range(1, n - 1)]
    header, parent, metadata, content = (json.loads(p) for p in parts[:4])
    return channel, {"header": header, "parent_header": parent, "metadata": metadata, "content": content,
                     "buffers": parts[4:], "msg_type": header.get("msg_type")}


def request(msg_type, content, session, channel="shell", buffers=(), metadata=None):
    """(msg_id, frame) of a message from the page."""
    msg_id = uuid.uuid4().hex
    header = {"msg_id": msg_id, "msg_type": msg_type, "username": "", "session": session,
              "date": datetime.now(timezone.utc).isoformat(), "version": "5.3"}
    parts = [json.dumps(header).encode(), b"{}", json.dumps(metadata or {}).encode(), json.dumps(content).encode(),
             *buffers]
    return msg_id, frame(channel, parts)


class Widgets:
    """The widget models a page holds, as its manager would: ``states`` (model id -> model name and state)
    from ``update_states``, ``comm_open`` and ``update`` messages. ``figures`` are the Image models whose
    ``value`` (the PNG) arrived."""

    def __init__(self):
        self.states = {}
        self.figures = set()

    def _set(self, model_id, model_name, state, buffer_paths, buffers):
        model = self.states.setdefault(model_id, {"model_name": model_name, "state": {}})
        if model_name:
            model["model_name"] = model_name
        model["state"].update(state)
        for path, buf in zip(buffer_paths or [], buffers or []):
            if path and path[0] == "value" and model["model_name"] == "ImageModel" and len(buf) > 0:
                self.figures.add(model_id)

    def take(self, msg):
        """Read one message from the kernel. Returns the model id of an Image whose new figure it carried,
        else None."""
        kind, content = msg["msg_type"], msg["content"]
        data = content.get("data") or {}
        if kind == "comm_open" and content.get("target_name") == WIDGET_TARGET:
            state = data.get("state", {})
            self._set(content["comm_id"], state.get("_model_name"), state, data.get("buffer_paths"), msg["buffers"])
            return content["comm_id"] if content["comm_id"] in self.figures else None
        if kind != "comm_msg":
            return None
        if data.get("method") == "update_states":
            # the buffers of every model in one list; buffer_paths: [model id, "state", attribute, ...] per buffer
            for model_id, model in data.get("states", {}).items():
                self._set(model_id, model.get("model_name"), model.get("state", {}), None, None)
            for path, buf in zip(data.get("buffer_paths") or [], msg["buffers"]):
                if len(path) >= 3 and path[1] == "state":
                    self._set(path[0], None, {}, [path[2:]], [buf])
            return next(iter(self.figures), None)
        comm = content.get("comm_id")
        if data.get("method") in ("update", "echo_update") and comm in self.states:
            picture = len(msg["buffers"]) > 0 and any(p and p[0] == "value" for p in data.get("buffer_paths") or [])
            self._set(comm, None, data.get("state", {}), data.get("buffer_paths"), msg["buffers"])
            if picture and self.states[comm]["model_name"] == "ImageModel":
                return comm
        return None

    def sliders(self):
        """The sliders that share a top-level box with a figure (a live panel's controls), as (model id,
        model name, state); every slider when no box holds both."""
        children = {mid: [c.removeprefix("IPY_MODEL_") for c in m["state"].get("children", [])
                          if isinstance(c, str)] for mid, m in self.states.items()}
        inside = {c for cs in children.values() for c in cs}

        def below(mid, seen=()):
            yield mid
            for c in children.get(mid, []):
                if c not in seen:
                    yield from below(c, (*seen, mid))
        found = []
        for top in (m for m in self.states if m not in inside and children.get(m)):
            tree = set(below(top))
            if any(self.states.get(m, {}).get("model_name") == "ImageModel" for m in tree):
                found += [m for m in tree if self.states.get(m, {}).get("model_name") in SLIDERS]
        if not found:
            found = [m for m, s in self.states.items() if s["model_name"] in SLIDERS]
        return [(m, self.states[m]["model_name"], self.states[m]["state"]) for m in sorted(set(found))]


def next_value(model_name, state, direction):
    """(attribute, new value) one step along a slider from where it is (``direction`` +1 or -1), turned back
    at its ends, as a learner's arrow key moves it."""
    if model_name == "SelectionSliderModel":
        n = len(state.get("_options_labels", [])) or 1
        index = state.get("index", 0) + direction
        if not 0 <= index < n:
            index = state.get("index", 0) - direction
        return "index", max(0, min(n - 1, index))
    low, high, step = state.get("min", 0), state.get("max", 100), state.get("step") or 1
    if model_name == "FloatLogSliderModel":       # min, max and step are exponents of base
        base = state.get("base", 10)
        exponent = math.log(state.get("value", base ** low), base) + direction * step
        if not low - 1e-9 <= exponent <= high + 1e-9:
            exponent -= 2 * direction * step
        return "value", base ** max(low, min(high, exponent))
    value = state.get("value", low) + direction * step
    if not low <= value <= high:
        value = state.get("value", low) - direction * step
    value = max(low, min(high, value))
    return "value", (int(round(value)) if model_name == "IntSliderModel" else round(value, 10))
