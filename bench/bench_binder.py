"""How fast a dashboard opens for a learner on Binder: time to readable text and to the first figure,
per notebook, in headless Chromium.

    .venv/bin/python bench/bench_binder.py [--modes cold,progressive,preheated] [--only 01] [--repeat 1]

Modes (each its own Voila server, started from the repo root so voila.json applies; one OpenMP
thread per kernel as binder/start and `make dashboard` set):
  cold         no pool (--VoilaConfiguration.preheat_kernel=False): what Binder did before, where
               Voila runs inside the Jupyter server and has no pool (standalone Voila without a pool
               is the same measurement). A page's kernel starts its imports while the page loads
               (attnlab_classroom's warm_imports); "cold-nowarm" is the same without them.
  progressive  no pool, progressive rendering (what binder/postBuild configures for Binder now):
               the page and its text come at once, outputs appear as their cells run.
  preheated    the shipped voila.json (`make dashboard`: a pool of one kernel per notebook).
  binder-before / binder   as on Binder: `jupyter server` with Voila as its extension (reading
               voila.json from the repo root; no pool), URLs /voila/render/notebooks/NN.ipynb;
               "binder" adds the server config binder/postBuild writes (progressive rendering,
               attnlab's kernel manager with one spare kernel started ahead, whose imports are done
               when a page takes it: the JupyterHub single-user servers of deploy/jupyterhub/ are the
               same); "binder-nospare" is "binder" without the spare (spare_kernels=0: the page's own
               kernel imports while the page loads); "binder-nowarm" without either (as before
               issue 24 item 6). A learner reads a page for more than spare_delay (10 s) before the
               next, so in the spare modes each opening waits until the server's next spare is ready.
Measured in the page from navigation start (performance.now()): "text" = a markdown cell's text is
on screen (visible, non-zero size); "figure" = an output image has decoded and is on screen;
"live figure" = the same for an image the kernel of this page drew. They differ only with
progressive rendering, where the attnlab template shows the notebook as stored (text and stored
static outputs, checked against what the code draws by nbval: tools/stored_figures.py) before
the kernel has started, and replaces each stored output by the live one when its cell has run.
"cells asked for": when the page asked the server to run its cells (progressive rendering: Voila's
page does so once its scripts have loaded and its widget manager has connected to the kernel; every
live output comes after it).
Targets (issue 12): text <= 1.5 s; first figure <= 3 s median and <= 4 s slowest.
Timings on a busy shared machine are not comparable to a quiet one: the load average is printed.
Results: printed, and written to bench/results/binder.json.
"""
import argparse
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from dashboard_helpers import (
    ARGS,
    BINDER_CONFIG,
    NOTEBOOKS,
    JupyterServer,
    VoilaServer,
    chromium_path,
    close_like_a_learner,
    postbuild_server_config,
    settle,
)

# A page kernel's warm imports (attnlab_classroom.ClassroomKernelManager.warm_imports) turned off:
# the "-nowarm" modes measure the same server as before issue 24 item 6, side by side with it.
NOWARM = ["--ClassroomKernelManager.warm_imports=[]"]
NOSPARE = ["--ClassroomKernelManager.spare_kernels=0"]

MODES = {
    "cold": ["--VoilaConfiguration.preheat_kernel=False"],
    "cold-nowarm": ["--VoilaConfiguration.preheat_kernel=False", *NOWARM],
    "progressive": ["--VoilaConfiguration.preheat_kernel=False", "--VoilaConfiguration.progressive_rendering=True"],
    "preheated": [],
}

# mode: (voila.json, extra arguments, the Jupyter server config binder/postBuild writes or None)
SERVER_MODES = {"binder-before": ({}, [], None), "binder": (BINDER_CONFIG, [], "postBuild"),
                "binder-nospare": (BINDER_CONFIG, NOSPARE, "postBuild"),
                "binder-nowarm": (BINDER_CONFIG, NOSPARE + NOWARM, "postBuild")}
SPARE_MODES = {"binder"}


PROBE = """() => {
  const seen = el => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && el.offsetParent !== null; };
  const t = performance.now();
  if (window.__text === undefined && [...document.querySelectorAll('.jp-RenderedMarkdown')]
      .some(e => e.textContent.trim().length > 20 && seen(e))) window.__text = t;
  const imgs = [...document.querySelectorAll('.jp-OutputArea-output img, .attnlab-panel img')]
      .filter(i => i.complete && i.naturalWidth > 0 && seen(i));
  if (window.__figure === undefined && imgs.length) window.__figure = t;
  if (window.__live === undefined && imgs.some(i => !i.closest('.attnlab-stored'))) window.__live = t;
  return window.__text !== undefined && window.__figure !== undefined && window.__live !== undefined;
}"""


# Where the wait goes with progressive rendering: Voila's page asks its server to run the cells
# (an "execute" message on its execution websocket) only once its scripts have loaded and its widget
# manager has connected to the kernel. Recorded before the page's own scripts run.
ASKED = """(() => {
  const Native = window.WebSocket;
  window.WebSocket = function (url, protocols) {
    const ws = protocols === undefined ? new Native(url) : new Native(url, protocols);
    if (/\/voila\/execution\//.test(url)) {
      const send = ws.send.bind(ws);
      ws.send = (data) => { if (window.__asked === undefined) window.__asked = performance.now(); return send(data); };
    }
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, Native);
})();"""


def open_once(browser, server, path):
    """[text, figure, live figure, cells asked for] in seconds from navigation start (the last is
    None without progressive rendering, where the server runs the cells as it sends the page)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = ctx.new_page()
    try:
        page.add_init_script(ASKED)
        prefix = getattr(server, "prefix", "/voila/render/")
        page.goto(f"{server.url}{prefix}{path.name}", wait_until="commit", timeout=180_000)
        page.wait_for_function(PROBE, timeout=180_000, polling=20)
        return page.evaluate("[window.__text / 1e3, window.__figure / 1e3, window.__live / 1e3, "
                             "window.__asked === undefined ? null : window.__asked / 1e3]")
    finally:
        close_like_a_learner(page)
        ctx.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", default="binder-nowarm,binder-nospare,binder,cold,progressive,preheated")
    ap.add_argument("--only", default="", help="only notebooks whose name contains this")
    ap.add_argument("--repeat", type=int, default=1, help="openings per notebook (the median is kept)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "binder.json"))
    a = ap.parse_args()
    notebooks = [p for p in NOTEBOOKS if a.only in p.name]
    logdir = ROOT / "bench" / "results"
    logdir.mkdir(parents=True, exist_ok=True)
    load0 = os.getloadavg()
    results = {}
    from playwright.sync_api import sync_playwright
    modes = a.modes.split(",")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=ARGS)
        # Every mode's server runs at once and the modes take turns on each notebook, so a busy
        # moment of a shared machine falls on all of them alike (the comparison is fair even when
        # the absolute times are not).
        servers = {}
        try:
            for mode in modes:
                if mode in SERVER_MODES:
                    config, extra, server_config = SERVER_MODES[mode]
                    servers[mode] = JupyterServer(logdir / f"server-{mode}.log", config, extra,
                                                  postbuild_server_config() if server_config else None)
                else:
                    servers[mode] = VoilaServer(notebooks[0].parent, logdir / f"voila-binder-{mode}.log", MODES[mode])
                results[mode] = {}
            for server in servers.values():
                settle(server, quiet=5)
            for p in notebooks:
                for mode in modes:
                    runs, failed = [], []
                    for _ in range(a.repeat):
                        for m, server in servers.items():   # nobody's pool or spare filling meanwhile
                            settle(server, quiet=3, min_kernels=1 if m in SPARE_MODES else 0)
                        try:
                            runs.append(open_once(browser, servers[mode], p))
                        except Exception as exc:  # a timeout on a loaded machine: say so, go on
                            failed.append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
                    if not runs:
                        results[mode][p.name] = {"failed": failed}
                        print(f"{mode:13s} {p.name:40s} FAILED {len(failed)} of {a.repeat}: {failed[0]}", flush=True)
                        continue
                    text = statistics.median(r[0] for r in runs)
                    fig = statistics.median(r[1] for r in runs)
                    live = statistics.median(r[2] for r in runs)
                    asked = [r[3] for r in runs if r[3] is not None]
                    asked = statistics.median(asked) if asked else None
                    results[mode][p.name] = {"text_s": text, "figure_s": fig, "live_figure_s": live,
                                             "cells_asked_s": asked, "runs": runs, "failed": failed}
                    print(f"{mode:13s} {p.name:40s} text {text:5.2f} s   first figure {fig:5.2f} s   "
                          f"first live figure {live:5.2f} s" + (f"   (cells asked for at {asked:5.2f} s)" if asked else ""),
                          flush=True)
        finally:
            for server in servers.values():
                server.stop()
        browser.close()
    load1 = os.getloadavg()
    print(f"\nload average {load0[0]:.1f} at start, {load1[0]:.1f} at end on {os.cpu_count()} CPUs"
          + ("  -- TAKEN UNDER LOAD: not comparable with a quiet machine" if max(load0[0], load1[0]) > 1.5 else ""))
    for mode, r in results.items():
        failed = sum(len(x["failed"]) for x in r.values())
        r = {name: x for name, x in r.items() if "text_s" in x}
        if failed:
            print(f"{mode:12s} {failed} opening(s) failed (timeouts): left out below")
        if not r:
            continue
        texts = [x["text_s"] for x in r.values()]
        figs = [x["figure_s"] for x in r.values()]
        lives = [x["live_figure_s"] for x in r.values()]
        asked = [x["cells_asked_s"] for x in r.values() if x.get("cells_asked_s") is not None]
        ok = max(texts) <= 1.5 and statistics.median(figs) <= 3 and max(figs) <= 4
        print(f"{mode:12s} text median {statistics.median(texts):5.2f} s max {max(texts):5.2f} s | first figure "
              f"median {statistics.median(figs):5.2f} s max {max(figs):5.2f} s  {'meets' if ok else 'misses'} the targets"
              f" | first live figure median {statistics.median(lives):5.2f} s max {max(lives):5.2f} s"
              + (f" | cells asked for at median {statistics.median(asked):5.2f} s" if asked else ""))
    Path(a.out).write_text(json.dumps({"loadavg_start": load0, "loadavg_end": load1, "cpus": os.cpu_count(),
                                       "results": results}, indent=1))
    print(f"written: {a.out}")


if __name__ == "__main__":
    main()
