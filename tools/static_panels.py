"""Keep the live panels' pictures visible in static viewers (nbviewer, GitHub, `jupyter nbconvert --to html`).

    python tools/static_panels.py notebooks/*.ipynb            (after re-executing a notebook)
    python tools/static_panels.py --check notebooks/*.ipynb    (exit 1 if a notebook needs it)

Executing a notebook with nbconvert stores every widget's state in the notebook's metadata. A viewer
built on nbconvert (nbviewer) then shows a widget output as a widget, drawn by JavaScript from a CDN
(nothing at all offline or where scripts are blocked), and never looks at the output's picture: it
falls back to the other representations only when the view's model is NOT in the stored state. So
this drops, for every output that carries a picture beside its widget view (a panel, a trainer: see
attnlab.ui.panels.widget_bundle), that view's own model from the stored state. Viewers then show the
output's text/html: the panel's picture and its text summary. Self-checks (no picture) keep their
state (the static site draws them from it). Running live (Lab, Voila) is unchanged: a live kernel
sends its widgets anew. Opened in JupyterLab WITHOUT running, such a panel reads "Error displaying
widget: model not found" until its cell runs.

Then every model no output reaches any more is dropped too: the models only those views used (the
panel's picture, stored twice before, its sliders, their layouts and styles).
"""
import argparse
import sys
from pathlib import Path

import nbformat

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def panel_views(nb):
    """Model ids of the widget views whose output also carries a picture."""
    ids = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if WIDGET_VIEW in data and "image/png" in data:
                ids.append(data[WIDGET_VIEW]["model_id"])
    return ids


def stored_panel_views(nb):
    """The panel views that are still in the stored widget state (a viewer would draw them as widgets)."""
    state = _stored_state(nb)
    return [m for m in panel_views(nb) if m in state]


def _stored_state(nb):
    return nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})


def references(value):
    """The model ids a stored widget state refers to: "IPY_MODEL_<id>" strings (children, layout,
    style, ...) and "model_id" keys (the outputs an Output widget holds)."""
    found = set()
    if isinstance(value, str):
        if value.startswith("IPY_MODEL_"):
            found.add(value[len("IPY_MODEL_"):])
    elif isinstance(value, dict):
        for key, item in value.items():
            if key == "model_id" and isinstance(item, str):
                found.add(item)
            found |= references(item)
    elif isinstance(value, list):
        for item in value:
            found |= references(item)
    return found


def unreachable_models(nb):
    """Stored models that no output of the notebook displays, directly or through other models."""
    state = _stored_state(nb)
    stack = [out["data"][WIDGET_VIEW]["model_id"] for cell in nb.cells for out in cell.get("outputs", [])
             if WIDGET_VIEW in out.get("data", {})]
    reached = set()
    while stack:
        model_id = stack.pop()
        if model_id in state and model_id not in reached:
            reached.add(model_id)
            stack.extend(references(state[model_id].get("state", {})))
    return [m for m in state if m not in reached]


def drop_panel_views(nb):
    """Remove the panel views' models from the stored widget state, and then every model no output
    reaches any more; returns how many panel views were removed."""
    state = _stored_state(nb)
    found = stored_panel_views(nb)
    for model_id in found:
        del state[model_id]
    for model_id in unreachable_models(nb):
        del state[model_id]
    return len(found)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="only report; exit 1 if a notebook needs it")
    args = parser.parse_args(argv)
    needed = False
    for path in args.notebooks:
        nb = nbformat.read(path, as_version=4)
        if args.check:
            stored, unreached = stored_panel_views(nb), unreachable_models(nb)
            if stored or unreached:
                needed = True
                print(f"{path}: {len(stored)} panel view(s) and {len(unreached)} model(s) no output reaches "
                      "in the stored widget state; run tools/static_panels.py")
            continue
        before = len(_stored_state(nb))
        views = drop_panel_views(nb)
        dropped = before - len(_stored_state(nb))
        if dropped:
            nbformat.write(nb, path)
        print(f"{path}: {views} panel view(s) and {dropped - views} model(s) no output reaches removed "
              "from the stored widget state")
    return 1 if needed else 0


if __name__ == "__main__":
    sys.exit(main())
