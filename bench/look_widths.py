"""Every dashboard as a learner sees it at 390 px (a phone: touch, device scale 2), 768 px (a
tablet) and 1280 px (a desktop), screenshots and measures, for one Voila template (issue 26:
"before and after" the phone CSS, looked at).

    PYTHONPATH=$PWD .venv/bin/python bench/look_widths.py --out /tmp/shots/after \
        [--jupyter-path DIR] [--port 8790] [notebooks/01_kernel_regression.ipynb ...]

--jupyter-path puts DIR first on JUPYTER_PATH, so the template "attnlab" found there is used
(e.g. an older one exported with `git archive`); without it, this tree's share/jupyter.
One server; per notebook one page load, by default on a phone context (390x844), then the same
page resized to 768x1024 and to 1280x1000 (as tests/browser/test_dashboards.py does; scrollbars
overlay, as on a phone, and the device scale stays 2); --widths 1280 looks at a fresh desktop
page only (a desktop context at the first width when it is 600 px or more). Writes, per width:
OUT/<width>/<lang>-<stem>.png (the top of the page: one screen), <lang>-<stem>-full.png (the
whole page; at 390 and 768 in CSS pixels), <lang>-<stem>-panel<N>.png (each live panel), and OUT/measures.json (a page
already there at all three widths is not looked at again): per page and
width, slider tracks (px), elements of a panel past its right edge (outside a scroll box of its
own), each figure's natural and drawn width, the scroll hint. Open the PNGs and look at them.
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from dashboard_helpers import (ARGS, NOTEBOOK_DIR, PageWatch, VoilaServer, chromium_path,  # noqa: E402
                               close_like_a_learner, expected_panels, wait_for_panels)

PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
TIMEOUT = 180_000
TALLEST = "Math.max(...[...document.querySelectorAll('*')].map(e => e.scrollHeight))"

MEASURE = """() => {
  const vw = document.documentElement.clientWidth;
  const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  const tracks = [...document.querySelectorAll('.jp-OutputArea-output .widget-slider')].map(s => [
    ((s.querySelector('.widget-label') || {}).textContent || '?').trim(),
    Math.round(s.querySelector('.slider-container').getBoundingClientRect().width)]);
  const panels = [...document.querySelectorAll('.attnlab-panel')].map(panel => {
    panel.scrollLeft = 0;
    const edge = Math.min(vw, panel.getBoundingClientRect().right) + 1;
    const img = panel.querySelector(':scope > img');
    const inOwnBox = e => { for (let a = e.parentElement; a && a !== panel; a = a.parentElement) {
      if (scrolls(a) && a.getBoundingClientRect().right <= edge) return true; } return false; };
    const past = [...panel.querySelectorAll('*')].filter(e => {
      const r = e.getBoundingClientRect();
      return e !== img && r.width > 0 && r.height > 0 && r.right > edge && !inOwnBox(e);
    }).map(e => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} "${e.textContent.trim().slice(0, 30)}" ends at ${Math.round(e.getBoundingClientRect().right)}`);
    const hint = getComputedStyle(panel, '::after').content;
    return {right: Math.round(panel.getBoundingClientRect().right), past,
            natural: img ? img.naturalWidth : 0, drawn: img ? Math.round(img.getBoundingClientRect().width) : 0,
            hint: hint === 'none' ? '' : hint};
  });
  // anything on the page (outside a sideways-scrolling box) ending past the screen
  const wide = [...document.querySelectorAll('#rendered_cells *, body > *')].filter(e => {
    const r = e.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0 && r.right > vw + 1)) return false;
    for (let a = e.parentElement; a; a = a.parentElement) if (scrolls(a) && a.getBoundingClientRect().right <= vw + 1) return false;
    return true;
  }).length;
  return {vw, docWidth: document.documentElement.scrollWidth, tracks, panels, wideElements: wide};
}"""


def shoot(page, out, stem, width):
    folder = out / str(width)
    folder.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => { const r = document.getElementById('rendered_cells'); if (r) r.scrollTop = 0; window.scrollTo(0, 0); }")
    time.sleep(0.3)
    page.screenshot(path=str(folder / f"{stem}.png"))
    # The panels and the whole page with the viewport as tall as the page: an element screenshot
    # of a panel taller than the viewport showed its sticky rows (the controls) blank.
    size = page.viewport_size
    page.set_viewport_size({"width": width, "height": min(16000, max(size["height"], page.evaluate(TALLEST)))})
    time.sleep(0.5)
    for i in range(page.locator(".attnlab-panel").count()):
        page.locator(".attnlab-panel").nth(i).screenshot(path=str(folder / f"{stem}-panel{i + 1}.png"))
    try:   # a whole page is up to 16000 CSS px tall: on phone and tablet in CSS pixels; slow under load
        page.screenshot(path=str(folder / f"{stem}-full.png"), full_page=True, timeout=120_000,
                        scale="css" if width < 1000 else "device")
    except Exception as e:  # noqa: BLE001 - the rest of the shots still count; say so
        print(f"{stem} {width}px: no whole-page screenshot ({type(e).__name__})", flush=True)
    page.set_viewport_size(size)
    time.sleep(0.3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="*")
    ap.add_argument("--out", required=True)
    ap.add_argument("--jupyter-path", default=str(ROOT / "share" / "jupyter"))
    ap.add_argument("--port", type=int, default=8790)
    ap.add_argument("--widths", default="390,768,1280",
                    help="in this order on one page load; a phone context if the first is under 600, else a desktop one")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    widths = [int(w) for w in a.widths.split(",")]
    paths = [Path(p).resolve() for p in a.notebooks] or (
        sorted(NOTEBOOK_DIR.glob("[0-9]*.ipynb")) + sorted((NOTEBOOK_DIR / "zh").glob("[0-9]*.ipynb")))
    env = {"JUPYTER_PATH": os.pathsep.join(filter(None, [a.jupyter_path, os.environ.get("JUPYTER_PATH")]))}
    server = VoilaServer(NOTEBOOK_DIR, out / "voila.log", port=a.port, env=env,
                         extra_args=["--VoilaConfiguration.preheat_kernel=False"])
    measures = json.loads((out / "measures.json").read_text()) if (out / "measures.json").exists() else {}
    from playwright.sync_api import sync_playwright
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path(), args=ARGS)
            for path in paths:
                rel = path.relative_to(NOTEBOOK_DIR).as_posix()
                lang = "zh" if path.parent.name == "zh" else "en"
                stem = f"{lang}-{path.stem}"
                if len(measures.get(stem, {})) == len(widths):     # done in an earlier run into OUT
                    continue
                n = expected_panels(NOTEBOOK_DIR / path.name)
                measures[stem] = {}
                kind = PHONE if widths[0] < 600 else dict(viewport={"width": widths[0], "height": 1000})
                ctx = browser.new_context(**kind)
                page = ctx.new_page()
                watch = PageWatch(page)
                t0 = time.time()
                page.goto(f"{server.url}/voila/render/{rel}", wait_until="commit", timeout=TIMEOUT)
                wait_for_panels(page, n, TIMEOUT, watch, server)
                time.sleep(1.5)
                for w in widths:
                    if page.viewport_size["width"] != w:
                        page.set_viewport_size({"width": w, "height": 1024 if w < 1000 else 1000})
                        time.sleep(0.8)
                    m = page.evaluate(MEASURE)
                    m["template_css"] = page.locator("style#attnlab-narrow").count()
                    m["errors"] = watch.errors[:5]
                    measures[stem][str(w)] = m
                    shoot(page, out, stem, w)
                    narrow = sum(t < 160 for _, t in m["tracks"])
                    past = sum(len(p["past"]) for p in m["panels"])
                    print(f"{stem} {w}px: {len(m['tracks'])} sliders, {narrow} under 160 px "
                          f"(min {min([t for _, t in m['tracks']] or [0])}), {past} panel elements past the edge, "
                          f"figures drawn/natural {[(p['drawn'], p['natural']) for p in m['panels']]}, "
                          f"page {m['docWidth']} px wide, loaded {time.time() - t0:.0f} s", flush=True)
                close_like_a_learner(page)
                ctx.close()
                (out / "measures.json").write_text(json.dumps(measures, indent=1, ensure_ascii=False))
            browser.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
