"""A class against one local Voila: LEARNERS browser contexts open a dashboard at the same moment,
move its sliders for DURATION seconds, then close their tabs. Reports how many rendered, the
slowest render, errors, peak memory per kernel and in total, and the kernels still alive
AFTER seconds later (beyond the preheated pool, which is kept on purpose).

    .venv/bin/python bench/bench_classroom.py [--learners 20] [--duration 60] [--after 60]
        [--notebook 01_kernel_regression.ipynb | --spread] [--pool N]

Default notebook: the first one after the index that has live panels (all learners on it, as
when a teacher says "open notebook 1"); --spread deals the learners over every such notebook.
The server is started from the repo root with the shipped voila.json (preheat pool, culling) and,
as `make lesson` does, a preheated pool of --pool kernels (default: one per learner) for each
target notebook that is not refilled during the lesson; --pool 1 is the plain `make dashboard`.
Memory: PSS of each kernel process (shared libraries split fairly), sampled every second.
"""
import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from dashboard_helpers import (  # noqa: E402
    ARGS, chromium_path, LOCAL, NOTEBOOKS, VoilaServer, settle, PANELS_READY, PROBLEMS, expected_panels)


class MemorySampler(threading.Thread):
    """Every second: PSS of each kernel (MB); keeps each kernel's peak and the peak total."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.server, self.stop_flag = server, threading.Event()
        self.peak_per_kernel, self.peak_total, self.peak_count = {}, 0.0, 0

    def run(self):
        import psutil
        while not self.stop_flag.is_set():
            total, count = 0.0, 0
            for proc in self.server.kernels():
                try:
                    mem = proc.memory_full_info()
                    mb = getattr(mem, "pss", mem.rss) / 2**20
                except psutil.Error:
                    continue
                total += mb
                count += 1
                self.peak_per_kernel[proc.pid] = max(self.peak_per_kernel.get(proc.pid, 0.0), mb)
            self.peak_total = max(self.peak_total, total)
            self.peak_count = max(self.peak_count, count)
            self.stop_flag.wait(1.0)


async def learner(i, browser, server, path, duration, start_at, out):
    ctx = await browser.new_context(viewport={"width": 1280, "height": 1000})
    page = await ctx.new_page()
    rec = {"learner": i, "notebook": path.name, "errors": [], "outside": [], "moves": 0, "stuck_moves": 0}
    page.on("pageerror", lambda e: rec["errors"].append(f"pageerror: {str(e)[:200]}"))
    page.on("console", lambda m: rec["errors"].append(f"console: {m.text[:200]}") if m.type == "error" else None)
    page.on("request", lambda r: None if LOCAL.match(r.url) else rec["outside"].append(r.url))
    rng = random.Random(i)
    await asyncio.sleep(max(0.0, start_at - time.time()))
    t0 = time.time()
    try:
        await page.goto(f"{server.url}/voila/render/{path.name}", wait_until="commit", timeout=300_000)
        await page.wait_for_function(PANELS_READY, arg=expected_panels(path), timeout=300_000, polling=100)
        rec["render_s"] = time.time() - t0
        # Server side done: Voila streams the executed notebook, so the HTML ends once it has run.
        rec["html_s"] = await page.evaluate("performance.getEntriesByType('navigation')[0].responseEnd / 1000")
        rec["errors"] += [f"shown: {t}" for t in await page.evaluate(PROBLEMS)]
        sliders = [(p, k) for p, n in enumerate(await page.evaluate(
            "() => [...document.querySelectorAll('.attnlab-panel')].map(p => p.querySelectorAll('.widget-slider').length)"))
            for k in range(n)]
        end = time.time() + duration
        while sliders and time.time() < end:
            p, k = rng.choice(sliders)
            panel = page.locator(".attnlab-panel").nth(p)
            h = panel.locator(".widget-slider").nth(k).locator(".noUi-handle").first
            panel_img = panel.locator("img").first
            before = await panel_img.get_attribute("src")
            await h.scroll_into_view_if_needed()
            await h.focus()
            at_max = await h.get_attribute("aria-valuenow") == await h.get_attribute("aria-valuemax")
            at_min = await h.get_attribute("aria-valuenow") == await h.get_attribute("aria-valuemin")
            key = "ArrowLeft" if at_max or (rng.random() < 0.5 and not at_min) else "ArrowRight"
            await page.keyboard.press(key)
            rec["moves"] += 1
            try:
                await page.wait_for_function(
                    "([el, before]) => el.src !== before && el.complete", arg=[await panel_img.element_handle(), before],
                    timeout=20_000, polling=50)
            except Exception:
                rec["stuck_moves"] += 1
            await asyncio.sleep(rng.uniform(0.3, 1.0))       # a learner looks before moving again
    except Exception as exc:  # did not render, or the page died
        rec["errors"].append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
    finally:
        try:
            await page.close(run_before_unload=True)
            await asyncio.sleep(1.0)
        except Exception:
            pass
        await ctx.close()
        out.append(rec)


async def run_class(a, server, targets):
    from playwright.async_api import async_playwright
    out = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium_path(), args=ARGS)
        start_at = time.time() + 2
        await asyncio.gather(*(learner(i, browser, server, targets[i % len(targets)], a.duration, start_at, out)
                               for i in range(a.learners)))
        await browser.close()
    return out


def lesson_args(targets, pool_size):
    """Voila options of `make lesson`: a pool of `pool_size` for each lesson notebook, no refill."""
    if pool_size <= 1:
        return []
    config = {p.name: {"pool_size": pool_size} for p in targets}
    config["default"] = {"pool_size": 1}
    return [f"--VoilaKernelManager.kernel_pools_config={json.dumps(config)}",
            "--VoilaKernelManager.fill_delay=14400"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--learners", type=int, default=20)
    ap.add_argument("--duration", type=float, default=60, help="seconds of slider moving")
    ap.add_argument("--after", type=float, default=60, help="seconds to wait after they leave")
    ap.add_argument("--notebook", default=None)
    ap.add_argument("--spread", action="store_true", help="deal learners over every notebook with panels")
    ap.add_argument("--pool", type=int, default=None,
                    help="preheated kernels per target notebook (default: one per learner, as `make lesson`)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "classroom.json"))
    a = ap.parse_args()
    with_panels = [p for p in NOTEBOOKS if expected_panels(p) and not p.name.startswith("00")] or \
        [p for p in NOTEBOOKS if expected_panels(p)]
    if a.notebook:
        targets = [p for p in NOTEBOOKS if p.name == a.notebook]
    else:
        targets = with_panels if a.spread else with_panels[:1]
    if not targets:
        sys.exit("no notebook with live panels found")
    logdir = ROOT / "bench" / "results"
    logdir.mkdir(parents=True, exist_ok=True)
    load0 = os.getloadavg()
    per_notebook = a.pool if a.pool is not None else -(-a.learners // len(targets))
    server = VoilaServer(targets[0].parent, logdir / "voila-classroom.log", lesson_args(targets, per_notebook))
    try:
        pool = settle(server, timeout=120 + 15 * per_notebook * len(targets))
        print(f"server up; preheated: {pool} kernel(s), {per_notebook} per lesson notebook; {a.learners} learners on "
              f"{', '.join(p.name for p in targets)}", flush=True)
        sampler = MemorySampler(server)
        sampler.start()
        t0 = time.time()
        recs = asyncio.run(run_class(a, server, targets))
        left = time.time()
        print(f"class over after {left - t0:.0f} s; waiting {a.after:.0f} s", flush=True)
        time.sleep(a.after)
        alive = len(server.kernels())
        sampler.stop_flag.set()
        sampler.join(5)
        log = server.log()
    finally:
        server.stop()
    rendered = [r for r in recs if "render_s" in r]
    errors = [e for r in recs for e in r["errors"]]
    outside = sorted({u for r in recs for u in r["outside"]})
    per_kernel = sorted(sampler.peak_per_kernel.values())
    # What should still run: the untouched pool. A lesson pool is not refilled, so the kernels the
    # learners took from it must be gone; the plain pool (size 1) refills to its size.
    taken = sum(min(per_notebook, sum(1 for i in range(a.learners) if targets[i % len(targets)] == t))
                for t in targets) if per_notebook > 1 else 0
    expected = pool - taken
    leaked = max(0, alive - expected)
    summary = {
        "learners": a.learners, "notebooks": [p.name for p in targets], "duration_s": a.duration,
        "pool_per_lesson_notebook": per_notebook,
        "rendered": len(rendered), "slowest_render_s": max((r["render_s"] for r in rendered), default=None),
        "median_render_s": statistics.median([r["render_s"] for r in rendered]) if rendered else None,
        "slowest_html_s": max((r["html_s"] for r in rendered), default=None),
        "median_html_s": statistics.median([r["html_s"] for r in rendered]) if rendered else None,
        "moves": sum(r["moves"] for r in recs), "moves_without_new_figure": sum(r["stuck_moves"] for r in recs),
        "errors": errors, "outside_requests": outside,
        "peak_kernel_pss_mb": max(per_kernel, default=0), "median_kernel_peak_pss_mb":
            statistics.median(per_kernel) if per_kernel else 0,
        "peak_total_kernel_pss_mb": sampler.peak_total, "peak_kernels": sampler.peak_count,
        "pool_kernels": pool, "kernels_expected_after": expected, "kernels_alive_after": alive, "leaked_kernels": leaked,
        "xsrf_403s": log.count("'_xsrf' argument missing"),
        "loadavg_start": load0, "loadavg_end": os.getloadavg(), "cpus": os.cpu_count(),
    }
    Path(a.out).write_text(json.dumps({"summary": summary, "learners": recs}, indent=1))
    s = summary
    print(f"rendered {s['rendered']}/{a.learners}; slowest render {s['slowest_render_s'] or float('nan'):.1f} s "
          f"(median {s['median_render_s'] or float('nan'):.1f} s)")
    print(f"  of which the server's part (HTML complete): slowest {s['slowest_html_s'] or float('nan'):.1f} s "
          f"(median {s['median_html_s'] or float('nan'):.1f} s); the rest is the browsers drawing the page")
    print(f"slider moves {s['moves']}, of which {s['moves_without_new_figure']} showed no new figure within 20 s")
    print(f"errors {len(errors)}; outside requests {len(outside)}; shutdown 403s {s['xsrf_403s']}")
    for e in errors[:8]:
        print("   ", e)
    print(f"memory: peak per kernel {s['peak_kernel_pss_mb']:.0f} MB PSS (median kernel {s['median_kernel_peak_pss_mb']:.0f} MB), "
          f"peak total {s['peak_total_kernel_pss_mb']:.0f} MB over {s['peak_kernels']} kernels")
    print(f"kernels alive {a.after:.0f} s after the class left: {alive} (untouched pool {expected}) -> leaked {leaked}")
    print(f"load average {load0[0]:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
          + ("  -- TAKEN UNDER LOAD" if max(load0[0], os.getloadavg()[0]) > 1.5 else ""))
    print(f"written: {a.out}")


if __name__ == "__main__":
    main()
