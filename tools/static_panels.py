"""Keep the live panels' pictures visible in static viewers (nbviewer, GitHub, `jupyter nbconvert --to html`).

    python tools/static_panels.py notebooks/*.ipynb            (after re-executing a notebook)
    python tools/static_panels.py --check notebooks/*.ipynb    (exit 1 if a notebook needs it)

Executing a notebook with nbconvert stores every widget's state in the notebook's metadata. A viewer
built on nbconvert (nbviewer) then shows a widget output as a widget, drawn by JavaScript from a CDN
(nothing at all offline or where scripts are blocked), and never looks at the output's picture: it
falls back to the other representations only when the view's model is NOT in the stored state. So
this drops, for every output that carries a picture beside its widget view (a panel, a trainer: see
attnlab.panels.widget_bundle), that view's own model from the stored state. Viewers then show the
output's text/html: the panel's picture and its text summary. Self-checks (no picture) keep their
state (the static site draws them from it). Running live (Lab, Voila) is unchanged: a live kernel
sends its widgets anew. Opened in JupyterLab WITHOUT running, such a panel reads "Error displaying
widget: model not found" until its cell runs.
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
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    return [m for m in panel_views(nb) if m in state]


def drop_panel_views(nb):
    """Remove the panel views' models from the stored widget state; returns how many were removed."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    found = stored_panel_views(nb)
    for model_id in found:
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
            stored = stored_panel_views(nb)
            if stored:
                needed = True
                print(f"{path}: {len(stored)} panel view(s) in the stored widget state; run tools/static_panels.py")
            continue
        removed = drop_panel_views(nb)
        if removed:
            nbformat.write(nb, path)
        print(f"{path}: {removed} panel view(s) removed from the stored widget state")
    return 1 if needed else 0


if __name__ == "__main__":
    sys.exit(main())
