"""Open every dashboard again and again, as test_dashboards does, and count the page loads that fail
or that the page had to reload itself for (a widget lost to ipywidgets#4026, see the attnlab
template's change 5). A fresh Voila server per round, so the first pages of a round meet ten
preheating kernels; every slider of a page is pressed once, so the kernel shut down when its tab
closes may be busy. Rare races need many loads and a busy machine:

    .venv/bin/python bench/probe_page_loads.py --rounds 6 [--only 04,06] [--out loads.jsonl]

One JSON line per page load: round, notebook, ok, seconds to ready, reloads, and on a failure what
the page showed (dashboard_helpers.wait_for_panels) and a screenshot beside the server log.
"""
import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from dashboard_helpers import (ARGS, chromium_path, NOTEBOOK_DIR, NOTEBOOKS, PageWatch, VoilaServer,  # noqa: E402
                               close_like_a_learner, expected_panels, wait_for_panels)
from test_dashboards import SLIDERS, slider_step  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated notebook prefixes, e.g. 04,06")
    parser.add_argument("--out", type=Path, default=None, help="append the JSON lines to this file too")
    parser.add_argument("--timeout", type=float, default=120, help="seconds a page may take to be ready")
    args = parser.parse_args(argv)
    prefixes = [p for p in args.only.split(",") if p]
    paths = [p for p in NOTEBOOKS if not prefixes or any(p.stem.startswith(x) for x in prefixes)]
    out = open(args.out, "a") if args.out else None
    loads = failed = reloaded = 0
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=ARGS)
        for rnd in range(args.rounds):
            logdir = Path(tempfile.mkdtemp(prefix="page_loads"))
            server = VoilaServer(NOTEBOOK_DIR, logdir / "voila.log")
            try:
                for path in paths:
                    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
                    page = ctx.new_page()
                    watch = PageWatch(page)
                    t0, ok, err = time.time(), True, ""
                    try:
                        page.goto(f"{server.url}/voila/render/{path.name}", wait_until="commit",
                                  timeout=args.timeout * 1000)
                        wait_for_panels(page, expected_panels(path), args.timeout * 1000, watch, server)
                        ready = time.time() - t0
                        for p, labels in enumerate(page.evaluate(SLIDERS)):
                            for s in range(len(labels)):
                                slider_step(page, p, s)
                    except Exception as exc:  # noqa: BLE001 - recorded, the probe goes on
                        ok, ready, err = False, time.time() - t0, str(exc)[:6000]
                        page.screenshot(path=str(logdir / f"failed_{path.stem}.png"), full_page=True)
                    loads, failed, reloaded = loads + 1, failed + (not ok), reloaded + bool(watch.reloads)
                    record = dict(round=rnd, notebook=path.stem, ok=ok, ready=round(ready, 1),
                                  reloads=len(watch.reloads), error=err, log=str(logdir))
                    print(json.dumps(record)[:300], flush=True)
                    if out:
                        out.write(json.dumps(record) + "\n")
                        out.flush()
                    close_like_a_learner(page)
                    ctx.close()
            finally:
                server.stop()
        browser.close()
    print(f"{loads} page loads: {failed} failed, {reloaded} reloaded themselves once")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
