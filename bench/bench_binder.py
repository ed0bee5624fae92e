"""How fast a dashboard opens for a learner on Binder: time to readable text and to the first figure,
per notebook, in headless Chromium.

    .venv/bin/python bench/bench_binder.py [--modes cold,progressive,preheated] [--only 01] [--repeat 1]

Modes (each its own Voila server, started from the repo root so voila.json applies; one OpenMP
thread per kernel as binder/start and `make dashboard` set):
  cold         no pool (--VoilaConfiguration.preheat_kernel=False): what Binder did before, where
               Voila runs inside the Jupyter server and has no pool (standalone Voila without a pool
               is the same measurement).
  progressive  no pool, progressive rendering (what binder/postBuild configures for Binder now):
               the page and its text come at once, outputs appear as their cells run.
  preheated    the shipped voila.json (`make dashboard`: a pool of one kernel per notebook).
  binder-before / binder   as on Binder: `jupyter server` with Voila as its extension (reading
               voila.json from the repo root; no pool), URLs /voila/render/notebooks/NN.ipynb;
               "binder" adds the server config binder/postBuild writes (progressive rendering).
Measured in the page from navigation start (performance.now()): "text" = a markdown cell's text is
on screen (visible, non-zero size); "figure" = an output image has decoded and is on screen.
Targets (issue 12): text <= 1.5 s; first figure <= 3 s median and <= 4 s slowest.
Timings on a busy shared machine are not comparable to a quiet one: the load average is printed.
Results: printed, and written to bench/results/binder.json.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from dashboard_helpers import (ARGS, CHROMIUM, NOTEBOOKS, VoilaServer, close_like_a_learner, free_port,  # noqa: E402
                               kernel_processes, settle, voila_env)

MODES = {
    "cold": ["--VoilaConfiguration.preheat_kernel=False"],
    "progressive": ["--VoilaConfiguration.preheat_kernel=False", "--VoilaConfiguration.progressive_rendering=True"],
    "preheated": [],
}

SERVER_MODES = {"binder-before": {}, "binder": {"VoilaConfiguration": {"progressive_rendering": True}}}


class JupyterServer:
    """`jupyter server` from the repo root with Voila as its extension, as repo2docker runs it; the
    extra Voila config goes in a voila.json in a temporary config dir on JUPYTER_CONFIG_PATH (as
    binder/postBuild writes <prefix>/etc/jupyter/voila.json); the repo root's voila.json is read after it."""

    def __init__(self, log_path, server_config):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.prefix = "/voila/render/notebooks/"
        self.confdir = tempfile.TemporaryDirectory()
        (Path(self.confdir.name) / "voila.json").write_text(json.dumps(server_config))
        env = voila_env()
        env["JUPYTER_CONFIG_PATH"] = os.pathsep.join([self.confdir.name, *filter(None, [env.get("JUPYTER_CONFIG_PATH")])])
        self._log = open(log_path, "w")
        self.proc = subprocess.Popen([sys.executable, "-m", "jupyter_server", "--no-browser", f"--port={self.port}",
                                      "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--ServerApp.password=",
                                      *(["--allow-root"] if os.geteuid() == 0 else [])],
                                     cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"jupyter server did not listen; see {log_path}")

    def kernels(self):
        return kernel_processes(self.proc.pid)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._log.close()
        self.confdir.cleanup()


PROBE = """() => {
  const seen = el => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && el.offsetParent !== null; };
  const t = performance.now();
  if (window.__text === undefined && [...document.querySelectorAll('.jp-RenderedMarkdown')]
      .some(e => e.textContent.trim().length > 20 && seen(e))) window.__text = t;
  if (window.__figure === undefined && [...document.querySelectorAll('.jp-OutputArea-output img, .attnlab-panel img')]
      .some(i => i.complete && i.naturalWidth > 0 && seen(i))) window.__figure = t;
  return window.__text !== undefined && window.__figure !== undefined;
}"""


def open_once(browser, server, path):
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = ctx.new_page()
    try:
        prefix = getattr(server, "prefix", "/voila/render/")
        page.goto(f"{server.url}{prefix}{path.name}", wait_until="commit", timeout=180_000)
        page.wait_for_function(PROBE, timeout=180_000, polling=20)
        return page.evaluate("[window.__text / 1e3, window.__figure / 1e3]")
    finally:
        close_like_a_learner(page)
        ctx.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", default="binder-before,binder,cold,progressive,preheated")
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
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        # Every mode's server runs at once and the modes take turns on each notebook, so a busy
        # moment of a shared machine falls on all of them alike (the comparison is fair even when
        # the absolute times are not).
        servers = {}
        try:
            for mode in modes:
                if mode in SERVER_MODES:
                    servers[mode] = JupyterServer(logdir / f"server-{mode}.log", SERVER_MODES[mode])
                else:
                    servers[mode] = VoilaServer(notebooks[0].parent, logdir / f"voila-binder-{mode}.log", MODES[mode])
                results[mode] = {}
            for server in servers.values():
                settle(server, quiet=5)
            for p in notebooks:
                for mode in modes:
                    runs = []
                    for _ in range(a.repeat):
                        for server in servers.values():     # nobody's pool refilling meanwhile
                            settle(server, quiet=3)
                        runs.append(open_once(browser, servers[mode], p))
                    text = statistics.median(r[0] for r in runs)
                    fig = statistics.median(r[1] for r in runs)
                    results[mode][p.name] = {"text_s": text, "figure_s": fig, "runs": runs}
                    print(f"{mode:13s} {p.name:40s} text {text:5.2f} s   first figure {fig:5.2f} s", flush=True)
        finally:
            for server in servers.values():
                server.stop()
        browser.close()
    load1 = os.getloadavg()
    print(f"\nload average {load0[0]:.1f} at start, {load1[0]:.1f} at end on {os.cpu_count()} CPUs"
          + ("  -- TAKEN UNDER LOAD: not comparable with a quiet machine" if max(load0[0], load1[0]) > 1.5 else ""))
    for mode, r in results.items():
        if not r:
            continue
        texts = [x["text_s"] for x in r.values()]
        figs = [x["figure_s"] for x in r.values()]
        ok = max(texts) <= 1.5 and statistics.median(figs) <= 3 and max(figs) <= 4
        print(f"{mode:12s} text median {statistics.median(texts):5.2f} s max {max(texts):5.2f} s | first figure "
              f"median {statistics.median(figs):5.2f} s max {max(figs):5.2f} s  {'meets' if ok else 'misses'} the targets")
    Path(a.out).write_text(json.dumps({"loadavg_start": load0, "loadavg_end": load1, "cpus": os.cpu_count(),
                                       "results": results}, indent=1))
    print(f"written: {a.out}")


if __name__ == "__main__":
    main()
