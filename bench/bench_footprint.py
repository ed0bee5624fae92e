"""What `make dashboard` costs a learner's laptop: memory and CPU before a page is opened, and how
soon each page shows its first live figure.

    .venv/bin/python bench/bench_footprint.py [--lang en|zh] [--mode dashboard|every] [--runs 3]

Mode "dashboard" starts `make dashboard` itself (PORT, ATTNLAB_LANG), as a learner does: voila.json's
default, the index preheated and one spare kernel. Mode "every" starts the same Voila with a kernel
preheated for every notebook (both languages) and no spare: the default until 2026-11-27, which a
teacher's `make lesson` still resembles. For each run:

- start -> idle: CPU-seconds of the server and every kernel it started (reaped ones included),
  counted until their CPU stays under 0.25 s over 5 s; wall seconds likewise;
- memory at idle and after opening 3 pages: RSS and PSS summed over the server and its kernels
  (PSS splits shared libraries between processes; RSS counts them in each, an upper bound);
- each page (the index, then two lessons of the language), opened one after the other in headless
  Chromium, the server settled in between: seconds from navigation start to the first byte of the
  answer, and to the first live figure decoded (performance.now() in the page).

Results: printed (medians over the runs) and written to bench/results/footprint-<mode>-<lang>.json.
Timings on a busy machine are not comparable with a quiet one: the load average is printed.
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from dashboard_helpers import ARGS, chromium_path, close_like_a_learner, free_port, pool_per_notebook

PAGES = {"en": ["00_index.ipynb", "05_cat_milk_it.ipynb", "03_multi_head_attention.ipynb"],
         "zh": ["zh/00_index.ipynb", "zh/05_cat_milk_it.ipynb", "zh/03_multi_head_attention.ipynb"]}
EVERY = pool_per_notebook(refill=True)          # the default until 2026-11-27
FIRST_FIGURE = """() => { const img = document.querySelector('.attnlab-panel img');
  return img && img.src && img.complete && img.naturalWidth > 0 ? performance.now() : null; }"""


def start(mode, lang, port, log):
    if mode == "dashboard":
        cmd = ["make", "-s", "--no-print-directory", "dashboard", f"PORT={port}", f"ATTNLAB_LANG={lang}"]
    else:
        cmd = [str(ROOT / ".venv" / "bin" / "voila"), "notebooks/", "--no-browser", "--Voila.ip=127.0.0.1",
               f"--port={port}", *EVERY]
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def server_tree(proc):
    """The Voila process under ``proc`` and every process it started (kernels)."""
    try:
        tree = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return None, []
    voila = next((p for p in tree if _is_voila(p)), None)
    if voila is None:
        return None, []
    try:
        return voila, [voila, *voila.children(recursive=True)]
    except psutil.Error:
        return voila, [voila]


def _is_voila(p):
    try:
        return "voila" in " ".join(p.cmdline()[:3]) and "make" not in p.name()
    except psutil.Error:
        return False


def cpu_seconds(voila, procs):
    """CPU of the server and its live kernels, plus what its reaped children used."""
    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system + (t.children_user + t.children_system if p.pid == voila.pid else 0.0)
        except psutil.Error:
            pass
    return total


def memory_mb(procs):
    rss = pss = 0.0
    kernels = 0
    for p in procs:
        try:
            m = p.memory_full_info()
            rss += m.rss / 2**20
            pss += m.pss / 2**20
            kernels += "ipykernel" in " ".join(p.cmdline())
        except psutil.Error:
            pass
    return {"rss_mb": round(rss), "pss_mb": round(pss), "kernels": kernels}


def wait_idle(root, started, min_kernels, quiet=5.0, cpu_idle=0.25, timeout=300):
    """Wait until the server's tree has at least ``min_kernels`` kernels and used < cpu_idle CPU-s over
    ``quiet`` s; returns (wall seconds since ``started``, CPU-seconds used by then, processes)."""
    deadline = time.time() + timeout
    last, since = None, time.time()
    while time.time() < deadline:
        time.sleep(0.5)
        voila, procs = server_tree(root)
        if voila is None:
            last, since = None, time.time()
            continue
        kernels = memory_mb(procs)["kernels"]
        c = cpu_seconds(voila, procs)
        if kernels < min_kernels or last is None:
            last, since = c, time.time()
        elif time.time() - since >= quiet:
            if c - last < cpu_idle:
                return since - started, c, procs
            last, since = c, time.time()
    raise RuntimeError(f"the server did not settle within {timeout} s")


def open_page(browser, url):
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = ctx.new_page()
    page.goto(url, wait_until="commit", timeout=180_000)
    handle = page.wait_for_function(FIRST_FIGURE, timeout=180_000, polling=20)
    figure = handle.json_value() / 1e3
    first_byte = page.evaluate("performance.getEntriesByType('navigation')[0].responseStart") / 1e3
    return {"first_byte_s": round(first_byte, 2), "first_figure_s": round(figure, 2)}, page, ctx


def one_run(browser, mode, lang, logdir):
    port = free_port()
    log = open(logdir / f"footprint-{mode}-{lang}.log", "w")
    t0 = time.time()
    proc = start(mode, lang, port, log)
    root = psutil.Process(proc.pid)
    pages, opened = [], []
    try:
        min_kernels = 2 if mode == "dashboard" else 22
        wall, cpu, procs = wait_idle(root, t0, min_kernels)
        idle = {"start_to_idle_s": round(wall, 1), "cpu_s": round(cpu, 1), **memory_mb(procs)}
        for k, name in enumerate(PAGES[lang], start=1):
            result, page, ctx = open_page(browser, f"http://127.0.0.1:{port}/voila/render/{name}")
            pages.append({"page": name, **result})
            opened.append((page, ctx))
            # its cells done, and what it took replaced: the spare (dashboard; the index's pool is not
            # refilled), or the notebook's pool (every)
            wait_idle(root, time.time(), k + 1 if mode == "dashboard" else 22 + k)
        _, procs = server_tree(root)
        after = memory_mb(procs)
    finally:
        for page, ctx in opened:
            close_like_a_learner(page)
            ctx.close()
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
    return {"idle": idle, "pages": pages, "after_3_pages": after}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lang", choices=["en", "zh"], default="en")
    ap.add_argument("--mode", choices=["dashboard", "every"], default="dashboard")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    logdir = ROOT / "bench" / "results"
    logdir.mkdir(parents=True, exist_ok=True)
    load0 = os.getloadavg()
    from playwright.sync_api import sync_playwright
    runs = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=ARGS)
        for i in range(a.runs):
            r = one_run(browser, a.mode, a.lang, logdir)
            runs.append(r)
            print(f"run {i + 1}: idle {r['idle']}; pages {r['pages']}; after 3 pages {r['after_3_pages']}", flush=True)
        browser.close()

    def med(values):
        return round(statistics.median(values), 2)
    summary = {
        "mode": a.mode, "lang": a.lang, "runs": a.runs, "load_before": [round(x, 2) for x in load0],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "idle_rss_mb": med([r["idle"]["rss_mb"] for r in runs]), "idle_pss_mb": med([r["idle"]["pss_mb"] for r in runs]),
        "idle_kernels": med([r["idle"]["kernels"] for r in runs]),
        "start_to_idle_cpu_s": med([r["idle"]["cpu_s"] for r in runs]),
        "start_to_idle_wall_s": med([r["idle"]["start_to_idle_s"] for r in runs]),
        "after_3_pages_rss_mb": med([r["after_3_pages"]["rss_mb"] for r in runs]),
        "after_3_pages_pss_mb": med([r["after_3_pages"]["pss_mb"] for r in runs]),
        "pages": {name: {"first_byte_s": med([r["pages"][j]["first_byte_s"] for r in runs]),
                         "first_figure_s": med([r["pages"][j]["first_figure_s"] for r in runs])}
                  for j, name in enumerate(PAGES[a.lang])},
        "all": runs,
    }
    print(json.dumps({k: v for k, v in summary.items() if k != "all"}, indent=1))
    (logdir / f"footprint-{a.mode}-{a.lang}.json").write_text(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main()
