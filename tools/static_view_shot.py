"""What a static viewer (nbviewer: nbconvert's HTML exporter, nothing executed) shows of a notebook's
live panels: render with `jupyter nbconvert --to html`, open the page from file:// in headless
Chromium with every outside request recorded and refused (as offline, or where a CDN is blocked),
and screenshot each live panel's output.

    python tools/static_view_shot.py notebooks/03_multi_head_attention.ipynb [--out screenshots/static]

Writes OUT/<stem>-page.png (the top of the page), OUT/<stem>-panelN.png per live panel output, and
prints the outside requests the page tried. Needs a Chromium (tools/chromium.py finds it; `make chromium`).
"""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chromium import chromium_path

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# The output areas of live panels: a static picture (class attnlab-static-panel), or whatever
# nbconvert put where a widget view would be drawn (div.jupyter-widgets).
PANELS = ".attnlab-static-panel, div.jupyter-widgets.jp-OutputArea-output"


def shoot(notebook, out):
    from playwright.sync_api import sync_playwright
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--output-dir", tmp,
                        str(notebook)], check=True, capture_output=True)
        page_path = Path(tmp) / (notebook.stem + ".html")
        outside = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path(), args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 1000})

            def route(r):
                if r.request.url.startswith(("file:", "data:", "blob:")):
                    return r.continue_()
                outside.append(r.request.url)
                return r.abort()

            page.route("**/*", route)
            page.goto(page_path.as_uri(), wait_until="load")
            page.wait_for_timeout(1500)
            page.screenshot(path=str(out / f"{notebook.stem}-page.png"))
            shots = []
            for i, el in enumerate(page.locator(PANELS).all(), 1):
                el.scroll_into_view_if_needed()
                box = el.bounding_box()
                name = out / f"{notebook.stem}-panel{i}.png"
                if box and box["height"] > 2:
                    el.screenshot(path=str(name))
                    shots.append(str(name))
                else:
                    shots.append(f"(panel {i} has no visible area: {box})")
            browser.close()
    return {"notebook": str(notebook), "screenshots": shots, "outside_requests": outside}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=Path("screenshots/static"))
    args = parser.parse_args(argv)
    for nb in args.notebooks:
        print(json.dumps(shoot(nb, args.out), indent=1))


if __name__ == "__main__":
    main()
