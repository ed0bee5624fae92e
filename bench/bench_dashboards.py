"""Dashboards as a learner feels them: every slider of every notebook's live panels moved by keyboard in
headless Chromium, the time from the key press to new pixels on screen, against each panel's budget
(issue 51); and the time from a cold page to its first live figure.

    .venv/bin/python bench/bench_dashboards.py [--only 05] [--runs 3] [--tree DIR] [--server preheated|laptop]
    .venv/bin/python bench/bench_dashboards.py --runs 3 --write-docs     # the table in docs/benchmarks.md
    .venv/bin/python bench/bench_dashboards.py --first-figure [--runs 3]  # cold page -> first live figure

Presses. Every slider handle of every live panel (``.attnlab-panel``), in page order, in runs of 5 presses
(as dragging a slider by keys makes them), its own step each (ipywidgets' keyboard step), then the next
handle; after every handle, a second pass goes back (left). Each press: from the keydown (a capture
listener) to the first animation frame after the panel's <img> loaded a new src ("first"), and to the
last new picture or change of the text under a figure that press brought ("done": a panel that answers
in two parts, the cheap part first, sends its text or a second picture later); the next press comes
once nothing changed for 0.15 s and the page's kernel is idle. A handle whose press changes no picture within 8 s (a trainer's step count) is
counted and not pressed again. Per press, the CPU seconds of the page's kernel, of Voila's server, of
the other kernels (a spare starting, a pool refilling) and of Chromium (all its processes) are
recorded too, and the page's main-thread time (Chrome's Performance metrics: scripts, style, layout, all
tasks) (reported as the mean per press: psutil counts clock ticks of 10 ms): CPU time hardly
moves with the machine's load, the clock does.

Budgets (issue 51), per panel (its name is a class of its widget, ``attnlab-panel-<name>``):
drawing panels p50 <= 40 ms and p95 <= 100 ms to the first (and only) new pixels; the panels that run a
model (MODEL_PANELS) show something within 100 ms (p95 of "first") and are done within 500 ms (p95).

Servers. ``preheated`` (default): one Voila server per notebook, its voila.json with a kernel preheated
for that notebook only (no spare kernel, no refill; bounded memory), the first page takes it; ``--runs``
more pages of the same server run the notebook when they open (the first press waits until they are
idle). ``laptop``: the checkout's voila.json as shipped (`make dashboard`), one server for every page.
``--at-once``: the presses start as soon as the page's
panels show (a learner does not wait), not once its kernel is idle. ``--tree DIR``: serve another checkout (its notebooks, its voila.json, its attnlab on PYTHONPATH, its
Voila template on JUPYTER_PATH) with this venv: what the bisect in docs/benchmarks.md ran on
``git worktree`` folders of older commits.

First figure (``--first-figure``): the shipped voila.json (``laptop``), each notebook's page opened
cold (its kernel the spare one, waiting, imports done), the time from navigation to the first live
panel's picture on screen, with what the page saw on the way: its HTML, its scripts loaded, the first
live output of any cell (Voila's page asks for the cells once its widget manager connected: its floor,
plus the first cell), the first panel's view (the cells before it ran) and its picture decoded.

Results: printed, and written to bench/results/dashboards*.json; ``--write-docs`` writes the table into
docs/benchmarks.md between its markers, with the date, the load average and the command. Timings on a
shared, busy machine are not comparable with a quiet one: ``uptime``'s load average is printed with them.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from dashboard_helpers import (
    ARGS,
    PANELS_READY,
    VoilaServer,
    chromium_path,
    close_like_a_learner,
    expected_panels,
    settle,
)

RUN = 5                                        # presses in a row on one slider, as a drag makes them
QUIET = 0.15                                   # s without a new picture (and an idle kernel): the press is done
NO_FIGURE = 8.0                                # s: a press that changed no picture by then changed none
BUDGET_DRAWING = (40.0, 100.0)                 # ms: p50, p95 of key -> new pixels
BUDGET_MODEL = (100.0, 500.0)                  # ms: p95 of key -> first pixels, p95 of key -> done
# The panels that run a model on a move (issue 51): notebook 10's decoding, 11's circuit, 12's generation.
MODEL_PANELS = ("10-decoding", "11-circuit", "12-generation")
DOCS = ROOT / "docs" / "benchmarks.md"
MARK = ("<!-- bench_dashboards: begin -->", "<!-- bench_dashboards: end -->")

PROBE = """() => {
  if (window.__attnlab_presses) return;
  window.__attnlab_presses = [];
  document.addEventListener('keydown', () => {
    window.__attnlab_presses.push({t0: performance.now(), frames: [], texts: []});
  }, true);
  new MutationObserver(muts => {                // the text under a figure changed (its HTML widget)
    const presses = window.__attnlab_presses, p = presses[presses.length - 1];
    if (!p) return;
    const t = performance.now();
    if (muts.some(m => (m.target.nodeType === 1 ? m.target : m.target.parentElement)?.closest('.attnlab-summary')))
      p.texts.push(t - p.t0);
  }).observe(document.body, {childList: true, characterData: true, subtree: true});
  new MutationObserver(muts => {
    const presses = window.__attnlab_presses, p = presses[presses.length - 1];
    if (!p) return;
    for (const m of muts) {
      if (m.target.tagName !== 'IMG' || !m.target.closest('.attnlab-panel')) continue;
      const tSrc = performance.now();           // the new PNG reached the page (kernel + transport)
      m.target.addEventListener('load', () => {
        const tLoad = performance.now();        // decoded
        requestAnimationFrame(() => {
          const t = performance.now();
          p.frames.push([t - p.t0, tSrc - p.t0, tLoad - tSrc, t - tLoad]);
        });
      }, {once: true});
    }
  }).observe(document.body, {attributes: true, attributeFilter: ['src'], subtree: true});
}"""

# Per slider handle, the name of its panel (the widget's class attnlab-panel-<name>; older trees: #index).
HANDLE_PANELS = """() => {
  const panels = [...document.querySelectorAll('.attnlab-panel')];
  return [...document.querySelectorAll('.attnlab-panel .widget-slider .noUi-handle')].map(h => {
    const panel = h.closest('.attnlab-panel');
    const named = [...panel.classList].find(c => c.startsWith('attnlab-panel-'));
    return named ? named.slice('attnlab-panel-'.length) : '#' + panels.indexOf(panel);
  });
}"""
HANDLES = ".attnlab-panel .widget-slider .noUi-handle"


def pct(values, q):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def median(values):
    values = [v for v in values if v == v]
    return statistics.median(values) if values else float("nan")


def uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def tree_env(tree):
    """The environment that makes a server of ``tree`` run ``tree``'s attnlab and its Voila template."""
    if tree == ROOT:
        return {}
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(tree), os.environ.get("PYTHONPATH")])),
            "JUPYTER_PATH": os.pathsep.join(filter(None, [str(tree / "share" / "jupyter"), os.environ.get("JUPYTER_PATH")]))}


def commit_of(tree):
    out = subprocess.run(["git", "-C", str(tree), "log", "-1", "--format=%h %ad", "--date=short"],
                         capture_output=True, text=True)
    return out.stdout.strip() or "?"


class CPU:
    """CPU seconds (user + system) of the server's kernels, the server and Chromium, per process."""

    def __init__(self, server):
        import psutil
        self.psutil, self.server = psutil, server
        self.me = psutil.Process()

    def snapshot(self):
        ps = self.psutil
        kernels, browser = {}, 0.0
        for p in self.server.kernels():
            try:
                t = p.cpu_times()
                kernels[p.pid] = t.user + t.system
            except ps.Error:
                pass
        try:
            t = ps.Process(self.server.proc.pid).cpu_times()
            server = t.user + t.system
        except ps.Error:
            server = 0.0
        for p in self.me.children(recursive=True):
            try:
                if p.pid == self.server.proc.pid or "node" in p.name():     # the server, playwright's driver
                    continue
                if any(p.pid == k for k in kernels):
                    continue
                t = p.cpu_times()
                browser += t.user + t.system
            except ps.Error:
                pass
        return {"kernels": kernels, "server": server, "browser": browser}

    @staticmethod
    def delta(a, b):
        """{kernel, other_kernels, server, browser} in ms between snapshots ``a`` and ``b``; the page's
        kernel is the one that used the most CPU in between."""
        per = {pid: b["kernels"][pid] - a["kernels"].get(pid, 0.0) for pid in b["kernels"]}
        page = max(per, key=per.get) if per else None
        return {"kernel": per.get(page, 0.0) * 1e3,
                "other_kernels": sum(v for k, v in per.items() if k != page) * 1e3,
                "server": (b["server"] - a["server"]) * 1e3,
                "browser": max(0.0, b["browser"] - a["browser"]) * 1e3}


def kernel_cpu(server):
    total = 0.0
    for p in server.kernels():
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except Exception:  # psutil.Error: a kernel went
            pass
    return total


def focus_handle(handles, h, back):
    """Focus handle ``h`` and return the key that moves it: right on the first pass, left on the way
    back, and the other way at either end."""
    handle = handles.nth(h)
    handle.scroll_into_view_if_needed()
    handle.focus()
    at_max = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
    at_min = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemin")
    return "ArrowLeft" if at_max or (back and not at_min) else "ArrowRight"


METRICS = ("ScriptDuration", "LayoutDuration", "RecalcStyleDuration", "TaskDuration")


def page_metrics(cdp):
    """The page's main-thread seconds so far (Chrome's Performance domain): scripts, layout, style, all tasks."""
    if cdp is None:
        return {}
    got = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {k: got.get(k, 0.0) for k in METRICS}


def press_sliders(page, server, presses=0):
    """Every slider handle pressed (module doc); returns one record per press."""
    page.evaluate(PROBE)
    try:
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
    except Exception:  # not Chromium
        cdp = None
    try:   # slider views can attach a moment after the panel images
        page.wait_for_selector(HANDLES, timeout=5_000)
    except Exception:  # a dashboard without sliders
        return []
    handles = page.locator(HANDLES)
    names = page.evaluate(HANDLE_PANELS)
    n = len(names)
    total = presses or 2 * RUN * n
    cpu = CPU(server)
    dead, records = set(), []
    for i in range(total):
        h = (i // RUN) % n
        if h in dead:
            continue
        key = focus_handle(handles, h, back=(i // RUN // n) % 2 == 1)
        before = page.evaluate("window.__attnlab_presses.length")
        a, m0 = cpu.snapshot(), page_metrics(cdp)
        page.keyboard.press(key)
        rec = {"handle": h, "panel": names[h], "key": key}
        try:
            page.wait_for_function(f"window.__attnlab_presses[{before}] && "
                                   f"window.__attnlab_presses[{before}].frames.length > 0",
                                   timeout=NO_FIGURE * 1e3, polling=10)
        except Exception:  # playwright TimeoutError: no new picture
            dead.add(h)
            rec["no_figure"] = True
            records.append(rec)
            continue
        # done: no new picture for QUIET s and the kernel idle (a panel in two parts sends two)
        count, last_change, k0 = 1, time.perf_counter(), kernel_cpu(server)
        deadline = time.perf_counter() + 15
        while time.perf_counter() < deadline:
            time.sleep(0.03)
            c = page.evaluate(f"window.__attnlab_presses[{before}].frames.length + "
                              f"window.__attnlab_presses[{before}].texts.length")
            k = kernel_cpu(server)
            now = time.perf_counter()
            if c != count or k - k0 > 0.002:
                count, last_change, k0 = c, now, k
            if now - last_change >= QUIET:
                break
        frames, texts = page.evaluate(f"[window.__attnlab_presses[{before}].frames, "
                                      f"window.__attnlab_presses[{before}].texts]")
        m1 = page_metrics(cdp)
        rec.update(first=frames[0][0], done=max([frames[-1][0], *texts]), frames=len(frames), split=frames[0][1:],
                   texts=len(texts), cpu=CPU.delta(a, cpu.snapshot()),
                   page_ms={k: (m1[k] - m0[k]) * 1e3 for k in m1})
        records.append(rec)
    return records


def open_page(browser, server, path, timeout=300):
    """(page, context, seconds from navigation start to every live panel's picture decoded)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = ctx.new_page()
    try:
        page.goto(f"{server.url}/voila/render/{path.name}", wait_until="commit", timeout=timeout * 1e3)
        page.wait_for_function(PANELS_READY, arg=expected_panels(path), timeout=timeout * 1e3, polling=20)
        return page, ctx, page.evaluate("performance.now()") / 1e3
    except Exception:
        close_like_a_learner(page)
        ctx.close()
        raise


def preheat_only(name):
    """Voila options: a kernel preheated for notebook ``name`` only, no spare, no refill (bounded memory)."""
    return ["--VoilaConfiguration.preheat_kernel=True", "--VoilaConfiguration.default_pool_size=0",
            '--VoilaKernelManager.kernel_pools_config=' + json.dumps({"default": {"pool_size": 0}, name: {"pool_size": 1}}),
            "--ClassroomKernelManager.spare_kernels=0", "--ClassroomKernelManager.refill_pool=False"]


def measure_notebook(browser, tree, path, runs, presses, mode, server=None, at_once=False):
    """Records of every press over ``runs`` pages of ``path``, and the render time of each page.
    ``at_once``: press as soon as the panels show, as a learner does, while the page's kernel may still
    be running the notebook's later cells (a page given a spare kernel runs them when it opens)."""
    logdir = ROOT / "bench" / "results"
    own = server is None
    if own:
        server = VoilaServer(path.parent, logdir / f"voila-{path.stem}.log", preheat_only(path.name),
                             cwd=tree, env=tree_env(tree))
    out = []
    try:
        settle(server, quiet=3, min_kernels=1 if mode == "preheated" else 0, timeout=300)
        for run in range(runs):
            page, ctx, t = open_page(browser, server, path)
            if not at_once:
                settle(server, quiet=2, timeout=300)  # the page's own cells (runs after the first), a spare
            uptime0 = uptime()
            records = press_sliders(page, server, presses) if expected_panels(path) else []
            close_like_a_learner(page)
            ctx.close()
            out.append({"render_s": t, "records": records, "uptime": uptime0})
            ok = [r for r in records if "first" in r]
            print(f"  {path.name:40s} run {run + 1}: render {t:5.2f} s, {len(ok)} presses, first p50 "
                  f"{pct([r['first'] for r in ok], 50):5.0f} p95 {pct([r['first'] for r in ok], 95):5.0f} ms, "
                  f"done p95 {pct([r['done'] for r in ok], 95):5.0f} ms  [{uptime0.split('load average:')[-1].strip()}]",
                  flush=True)
    finally:
        if own:
            server.stop()
    return out


def summarise(runs):
    """Per notebook and per panel: medians over runs of each run's p50/p95 (first, done) and of the
    per-press medians of CPU and of the browser split."""
    def stats(recs_per_run):
        ok = [[r for r in recs if "first" in r] for recs in recs_per_run]
        ok = [r for r in ok if r]
        if not ok:
            return None
        return {"presses": sum(map(len, ok)),
                "first_p50": median([pct([r["first"] for r in rs], 50) for rs in ok]),
                "first_p95": median([pct([r["first"] for r in rs], 95) for rs in ok]),
                "done_p50": median([pct([r["done"] for r in rs], 50) for rs in ok]),
                "done_p95": median([pct([r["done"] for r in rs], 95) for rs in ok]),
                "split": [median([median([r["split"][i] for r in rs]) for rs in ok]) for i in range(3)],
                # CPU per press: the mean (total over the page's presses / presses), since psutil counts
                # in clock ticks (10 ms); the median over pages
                "cpu": {k: median([sum(r["cpu"][k] for r in rs) / len(rs) for rs in ok])
                        for k in ("kernel", "server", "browser", "other_kernels")},
                "page_ms": {k: median([sum(r.get("page_ms", {}).get(k, 0.0) for r in rs) / len(rs) for rs in ok])
                            for k in METRICS},
                "no_figure": sum(1 for recs in recs_per_run for r in recs if r.get("no_figure"))}
    recs = [run["records"] for run in runs]
    out = {"all": stats(recs), "panels": {}}
    for name in dict.fromkeys(r["panel"] for rs in recs for r in rs):
        s = stats([[r for r in rs if r["panel"] == name] for rs in recs])
        if s:
            out["panels"][name] = s
    return out


def verdict(name, s):
    """'ok' or what misses the panel's budget."""
    if name in MODEL_PANELS:
        misses = [f"first p95 {s['first_p95']:.0f} > {BUDGET_MODEL[0]:.0f}"] if s["first_p95"] > BUDGET_MODEL[0] else []
        if s["done_p95"] > BUDGET_MODEL[1]:
            misses.append(f"done p95 {s['done_p95']:.0f} > {BUDGET_MODEL[1]:.0f}")
    else:
        misses = [f"p50 {s['first_p50']:.0f} > {BUDGET_DRAWING[0]:.0f}"] if s["first_p50"] > BUDGET_DRAWING[0] else []
        if s["first_p95"] > BUDGET_DRAWING[1]:
            misses.append(f"p95 {s['first_p95']:.0f} > {BUDGET_DRAWING[1]:.0f}")
    return "ok" if not misses else "MISS: " + ", ".join(misses)


def table(results):
    """Markdown rows: per notebook and panel, first/done p50/p95, CPU per press, the budget."""
    lines = ["| notebook | panel | presses | first p50 / p95 ms | done p50 / p95 ms | CPU per press ms: kernel / server / "
             "browser | key → PNG in page / decode / → frame ms | budget | verdict |",
             "|---|---|---|---|---|---|---|---|---|"]
    for nb, r in results.items():
        for name, s in r["summary"]["panels"].items():
            budget = ("first p95 ≤ 100, done p95 ≤ 500" if name in MODEL_PANELS else "p50 ≤ 40, p95 ≤ 100")
            lines.append(f"| {nb[:2]} | {name} | {s['presses']} | {s['first_p50']:.0f} / {s['first_p95']:.0f} | "
                         f"{s['done_p50']:.0f} / {s['done_p95']:.0f} | {s['cpu']['kernel']:.0f} / "
                         f"{s['cpu']['server']:.0f} / {s['cpu']['browser']:.0f} | "
                         f"{s['split'][0]:.0f} / {s['split'][1]:.0f} / {s['split'][2]:.0f} | {budget} | "
                         f"{verdict(name, s)} |")
    return "\n".join(lines)


def report(results, header):
    print("\n" + header)
    print(f"{'notebook / panel':44s} {'presses':>7s} {'first p50':>9s} {'p95':>5s} {'done p50':>8s} {'p95':>5s}  "
          f"{'CPU ms: kernel':>14s} {'server':>6s} {'browser':>7s} {'others':>6s}  verdict")
    pooled = []
    for nb, r in results.items():
        a = r["summary"]["all"]
        if a is None:
            print(f"{nb:44s} (no slider)")
            continue
        pooled += [x["first"] for run in r["runs"][:1] for x in run["records"] if "first" in x]
        print(f"{nb:44s} {a['presses']:7d} {a['first_p50']:9.0f} {a['first_p95']:5.0f} {a['done_p50']:8.0f} "
              f"{a['done_p95']:5.0f}  {a['cpu']['kernel']:14.0f} {a['cpu']['server']:6.0f} {a['cpu']['browser']:7.0f} "
              f"{a['cpu']['other_kernels']:6.0f}  render {median([x['render_s'] for x in r['runs']]):.1f} s"
              + (f", {a['no_figure']} presses changed no picture" if a["no_figure"] else ""))
        for name, s in r["summary"]["panels"].items():
            print(f"    {name:40s} {s['presses']:7d} {s['first_p50']:9.0f} {s['first_p95']:5.0f} {s['done_p50']:8.0f} "
                  f"{s['done_p95']:5.0f}  {s['cpu']['kernel']:14.0f} {s['cpu']['server']:6.0f} {s['cpu']['browser']:7.0f} "
                  f"{s['cpu']['other_kernels']:6.0f}  {verdict(name, s)}")
            print(f"    {'':40s} split (median ms): key -> PNG in page {s['split'][0]:.0f}, decode {s['split'][1]:.0f}, "
                  f"-> frame {s['split'][2]:.0f}; the page's main thread per press (mean ms): scripts "
                  f"{s['page_ms']['ScriptDuration']:.1f}, style {s['page_ms']['RecalcStyleDuration']:.1f}, layout "
                  f"{s['page_ms']['LayoutDuration']:.1f}, all tasks {s['page_ms']['TaskDuration']:.1f}")
    if pooled:
        print(f"all dashboards together (first run of each): first p50 {pct(pooled, 50):.0f} ms, "
              f"p95 {pct(pooled, 95):.0f} ms over {len(pooled)} presses")


def write_docs(results, header, command):
    text = DOCS.read_text()
    load = max(os.getloadavg()[0], float(header.split("uptime at start: ")[-1].split(",")[0]))
    if load > 1.5:
        header += (f"; **taken under load (load average up to {load:.0f} on {os.cpu_count()} CPUs): the clock times are "
                   "not a quiet machine's, the CPU per press is comparable**")
    block = (f"{MARK[0]}\n{header}\n\n`{command}`\n\n{table(results)}\n{MARK[1]}")
    if MARK[0] in text:
        text = re.sub(re.escape(MARK[0]) + ".*?" + re.escape(MARK[1]), lambda _m: block, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n## Slider budgets: key press to pixels, per panel\n\n" + block + "\n"
    DOCS.write_text(text)
    print(f"written: {DOCS}")


# -- first live figure from a cold page -------------------------------------------------------------
FIRST_FIGURE = """() => {
  const img = document.querySelector('.attnlab-panel img');
  return !!(img && img.src && img.complete && img.naturalWidth > 0);
}"""
# When the page's first live output (a cell's output from the kernel, not the stored one the template shows
# first) and its first panel's view appeared: installed before the page's own scripts run.
TIMELINE = """window.__attnlab_t = {};
new MutationObserver(() => {
  const T = window.__attnlab_t;
  if (!T.live && document.querySelector('.jp-Cell-outputWrapper:not(.attnlab-stored) .jp-OutputArea-output'))
    T.live = performance.now();
  if (!T.panel && document.querySelector('.attnlab-panel')) T.panel = performance.now();
}).observe(document, {childList: true, subtree: true});"""


PROGRESSIVE = ["--VoilaConfiguration.progressive_rendering=True", "--VoilaConfiguration.preheat_kernel=False"]


def first_figure(browser, tree, notebooks, runs, progressive=False):
    """Per notebook: seconds from navigation to the first live figure, the shipped voila.json (a spare
    kernel), medians over ``runs`` cold pages; and what the page's timeline says of where it went.
    ``progressive``: with Voila's progressive rendering (Binder's setting; no preheated index)."""
    logdir = ROOT / "bench" / "results"
    server = VoilaServer(notebooks[0].parent, logdir / "voila-first-figure.log", PROGRESSIVE if progressive else [],
                         cwd=tree, env=tree_env(tree))
    out = {}
    try:
        settle(server, quiet=3, min_kernels=1, timeout=300)
        for path in notebooks:
            if not expected_panels(path):
                continue
            times = []
            for _ in range(runs):
                settle(server, quiet=3, timeout=300)
                time.sleep(11)                        # the next spare starts 10 s after a page took one
                settle(server, quiet=3, timeout=300)
                load = uptime().split("load average:")[-1].strip()
                ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
                ctx.add_init_script(TIMELINE)
                page = ctx.new_page()
                page.goto(f"{server.url}/voila/render/{path.name}", wait_until="commit", timeout=300_000)
                page.wait_for_function(FIRST_FIGURE, timeout=300_000, polling=20)
                first = page.evaluate("performance.now()") / 1e3
                nav = page.evaluate("""() => { const t = performance.getEntriesByType('navigation')[0];
                                        return [t.responseEnd, t.domContentLoadedEventEnd, t.loadEventEnd,
                                                window.__attnlab_t.live || NaN, window.__attnlab_t.panel || NaN]; }""")
                close_like_a_learner(page)
                ctx.close()
                html_s, dom_s, load_s, live_s, panel_s = (x / 1e3 for x in nav)
                times.append({"first_s": first, "html_s": html_s, "dom_s": dom_s, "load_s": load_s,
                              "first_live_output_s": live_s, "panel_view_s": panel_s, "load": load})
                print(f"  {path.name:40s} first live figure {first:5.2f} s: HTML {html_s:4.2f}, DOM ready {dom_s:4.2f}, "
                      f"scripts loaded {load_s:4.2f}, first live output {live_s:5.2f}, panel view {panel_s:5.2f} s  [{load}]",
                      flush=True)
            out[path.name] = times
    finally:
        server.stop()
    firsts = [median([t["first_s"] for t in v]) for v in out.values()]
    print(f"\n{'notebook':40s} {'first figure':>12s} {'HTML':>5s} {'scripts':>7s} {'1st live out':>12s} {'panel view':>10s}  (medians, s)")
    for name, v in out.items():
        m = {k: median([t[k] for t in v]) for k in ("first_s", "html_s", "load_s", "first_live_output_s", "panel_view_s")}
        print(f"{name:40s} {m['first_s']:12.2f} {m['html_s']:5.2f} {m['load_s']:7.2f} {m['first_live_output_s']:12.2f} "
              f"{m['panel_view_s']:10.2f}")
    print(f"first live figure, median over notebooks of the per-notebook medians: {median(firsts):.2f} s")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="only notebooks whose name contains this")
    ap.add_argument("--runs", type=int, default=3, help="pages per notebook (medians over them)")
    ap.add_argument("--presses", type=int, default=0,
                    help="presses per page (default: every slider handle, 5 presses there and 5 back)")
    ap.add_argument("--server", choices=["preheated", "laptop"], default="preheated",
                    help="preheated: a server per notebook, that notebook preheated; laptop: voila.json as shipped")
    ap.add_argument("--tree", default=str(ROOT), help="the checkout served (its notebooks, voila.json, attnlab, template)")
    ap.add_argument("--first-figure", action="store_true", help="only the cold page -> first live figure")
    ap.add_argument("--progressive", action="store_true",
                    help="--first-figure: with Voila's progressive rendering (as on Binder), the index not preheated")
    ap.add_argument("--at-once", action="store_true",
                    help="press as soon as the panels show (default: once the page's kernel is idle)")
    ap.add_argument("--write-docs", action="store_true", help="write the table into docs/benchmarks.md")
    ap.add_argument("--no-profile", action="store_true", help=argparse.SUPPRESS)   # kept for old command lines
    ap.add_argument("--out", default=None, help="default: bench/results/dashboards-<server>.json")
    a = ap.parse_args()
    tree = Path(a.tree).resolve()
    notebooks = sorted(p for p in (tree / "notebooks").glob("*.ipynb") if a.only in p.name)
    logdir = ROOT / "bench" / "results"
    logdir.mkdir(parents=True, exist_ok=True)
    shown = [x for i, x in enumerate(sys.argv[1:]) if x != "--out" and (i == 0 or sys.argv[i] != "--out")]
    command = ".venv/bin/python bench/bench_dashboards.py " + " ".join(shown)
    start = uptime()
    print(f"tree {tree} ({commit_of(tree)}); {os.cpu_count()} CPUs; {start}", flush=True)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=ARGS)
        try:
            if a.first_figure:
                out = first_figure(browser, tree, notebooks, a.runs, a.progressive)
                Path(a.out or logdir / "dashboards-first-figure.json").write_text(json.dumps(
                    {"tree": str(tree), "commit": commit_of(tree), "uptime": [start, uptime()], "results": out}, indent=1))
                return
            results = {}
            shared = None
            if a.server == "laptop":
                shared = VoilaServer(notebooks[0].parent, logdir / "voila-laptop.log", [], cwd=tree, env=tree_env(tree))
            try:
                for path in notebooks:
                    if not expected_panels(path):
                        continue
                    runs = measure_notebook(browser, tree, path, a.runs, a.presses, a.server, shared, a.at_once)
                    results[path.name] = {"runs": runs, "summary": summarise(runs)}
            finally:
                if shared is not None:
                    shared.stop()
        finally:
            browser.close()
    end = uptime()
    header = (f"{datetime.date.today()}, tree {commit_of(tree)}, server {a.server}"
              f"{', pressed as soon as the panels showed' if a.at_once else ''}, {a.runs} pages per notebook "
              f"(medians over pages), {os.cpu_count()} CPUs; uptime at start: {start.split('load average:')[-1].strip()}, "
              f"at end: {end.split('load average:')[-1].strip()}")
    report(results, header)
    Path(a.out or logdir / f"dashboards-{a.server}.json").write_text(json.dumps(
        {"tree": str(tree), "commit": commit_of(tree), "uptime": [start, end], "command": command,
         "results": results}, indent=1, default=str))
    if a.write_docs:
        write_docs(results, header, command)


if __name__ == "__main__":
    main()
