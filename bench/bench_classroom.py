"""A class rehearsed on this machine: LEARNERS browser contexts open a dashboard at the same moment,
move its sliders for DURATION seconds, then close their tabs. Two ways (--mode):

  lesson  one local Voila as `make lesson` starts it (the repo's voila.json, a preheated pool of
          LEARNERS kernels for the lesson notebook that is not refilled, one kernel for every other
          notebook, attnlab's ceiling and per-client limit at the Makefile's defaults). Reports how
          many rendered, the slowest render, errors, peak memory per kernel and in total, and the
          kernels still alive AFTER seconds later (beyond the untouched pool, kept on purpose).
  hub     JupyterHub on this machine as `make hub` starts it (deploy/jupyterhub/jupyterhub_config.py,
          local process spawner, no pool, progressive rendering, jupyterhub-idle-culler after
          --cull seconds): each learner logs in with the class password in its own browser
          context (landing on its own server's index), opens the lesson dashboard, moves sliders,
          closes the tab. Reports the time from login to the learner's server answering, the render
          times, PSS per learner (single-user server + its kernels) at the peak and in total, the
          hub's own, and what is left after the cull (servers, kernels, MB), with how long it took.

    .venv/bin/python bench/bench_classroom.py [--mode lesson|hub] [--learners 20] [--duration 60] [--after 60]
        [--notebook 01_kernel_regression.ipynb | --spread] [--pool N] [--cull 180]

The 30-learner rehearsals (a quiet machine; ~10 min lesson, ~20 min hub; results in docs/benchmarks.md):
    make classroom LEARNERS=30                       # = bench_classroom.py --mode lesson --learners 30
    .venv/bin/python bench/bench_classroom.py --mode hub --learners 30 --duration 60 --cull 180 --after 900
Ports: any free ones, or the range in ATTNLAB_TEST_PORTS ("LOW-HIGH"): the hub, its API, the proxy's
API and every learner's server (ATTNLAB_HUB_USER_PORTS) take theirs from it.

Default notebook: the first one after the index that has live panels (all learners on it, as
when a teacher says "open notebook 1"); --spread deals the learners over every such notebook.
The server is started from the repo root with the shipped voila.json (preheat pool, culling) and,
as `make lesson` does, a preheated pool of --pool kernels (default: one per learner) for each
target notebook that is not refilled during the lesson; --pool 1 is the plain `make dashboard`.
Memory: PSS (shared libraries split fairly), sampled every second: of each kernel (lesson), of each
learner's server with its kernels (hub).
"""
import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from dashboard_helpers import (
    ARGS,
    HUB_PROXY,
    LOCAL,
    NOTEBOOKS,
    PANELS_READY,
    PROBLEMS,
    Hub as HelperHub,
    LearnerAccounts,
    VoilaServer,
    chromium_path,
    expected_panels,
    settle,
)

HUB_PASSWORD = "class-rehearsal-password"
# The live page is complete: progressive rendering has replaced every stored output (as test_hub.py).
LIVE = "() => !document.querySelector('.attnlab-stored') && !document.querySelector('.voila-skeleton-container')"


def _pss_mb(proc):
    import psutil
    try:
        mem = proc.memory_full_info()
        return getattr(mem, "pss", mem.rss) / 2**20
    except psutil.Error:
        return 0.0


class Hub(HelperHub):
    """JupyterHub as `make hub` starts it (tests/browser/dashboard_helpers.py: its config file, learners as Unix
    users of a group and homes of this run's own, removed at the end), on 127.0.0.1 and free ports
    (ATTNLAB_TEST_PORTS' range when set; the learners' servers too), in a temporary state directory;
    `stop` ends it, its proxy, culler and every learner's server."""

    def __init__(self, logdir, cull):
        if not HUB_PROXY.exists():
            sys.exit("configurable-http-proxy is not installed in build/hub: run `make hub-setup` first")
        if os.geteuid() != 0:
            sys.exit("the hub creates a Unix user per learner: run the rehearsal as root")
        self.tmp = tempfile.TemporaryDirectory(prefix="attnlab-hub-")
        self.accounts = LearnerAccounts()
        super().__init__(self.tmp.name, self.accounts, HUB_PASSWORD, ATTNLAB_HUB_CULL=str(int(cull)))
        self.start()
        (logdir / "hub-classroom.log").write_text("(the hub's log is in its state directory while it runs; copied here at the end)\n")
        self.logdir = logdir

    def kernels(self):
        import psutil
        found = []
        for server in self.user_servers().values():
            try:
                found += [c for c in server.children(recursive=True)
                          if "ipykernel" in " ".join(c.cmdline()) and c.status() != psutil.STATUS_ZOMBIE]
            except psutil.Error:
                pass
        return found

    def per_learner_mb(self):
        """{learner: (PSS of its server and its kernels in MB, its kernels)}."""
        import psutil
        out = {}
        for name, server in self.user_servers().items():
            try:
                procs = [server, *server.children(recursive=True)]
                kernels = sum(1 for p in procs[1:] if "ipykernel" in " ".join(p.cmdline()))
            except psutil.Error:
                continue
            out[name] = (sum(_pss_mb(p) for p in procs), kernels)
        return out

    def own_mb(self):
        """PSS of the hub, its proxy and its culler (everything but the learners' servers), MB."""
        import psutil
        servers = self.user_servers().values()
        theirs = {p.pid for s in servers for p in [s, *s.children(recursive=True)]}
        try:
            procs = [self.ps, *self.ps.children(recursive=True)]
        except psutil.Error:
            return 0.0
        return sum(_pss_mb(p) for p in procs if p.pid not in theirs)

    def stop(self):
        super().stop()
        (self.logdir / "hub-classroom.log").write_text(self.log())
        self.accounts.remove()
        self.tmp.cleanup()


class LearnerSampler(threading.Thread):
    """Hub mode: every second, PSS per learner (server + kernels); keeps each learner's peak, the
    peak total over learners and the hub's own peak."""

    def __init__(self, hub):
        super().__init__(daemon=True)
        self.hub, self.stop_flag = hub, threading.Event()
        self.peak_per_learner, self.peak_total, self.peak_hub, self.peak_servers = {}, 0.0, 0.0, 0
        self.peak_kernels_per_learner = {}

    def run(self):
        while not self.stop_flag.is_set():
            now = self.hub.per_learner_mb()
            for name, (mb, kernels) in now.items():
                self.peak_per_learner[name] = max(self.peak_per_learner.get(name, 0.0), mb)
                self.peak_kernels_per_learner[name] = max(self.peak_kernels_per_learner.get(name, 0), kernels)
            self.peak_total = max(self.peak_total, sum(mb for mb, _ in now.values()))
            self.peak_servers = max(self.peak_servers, len(now))
            self.peak_hub = max(self.peak_hub, self.hub.own_mb())
            self.stop_flag.wait(1.0)


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


async def hub_login(page, hub, name, rec):
    """Log in with the class password; return once the learner's own server has answered (its index
    page arrived): rec["spawn_s"] from the login page's submit."""
    await page.goto(hub.url + "/hub/login", timeout=300_000)
    # a crowded login: the page's controls may take minutes to answer (Playwright's default: 30 s)
    await page.fill("input[name=username]", name, timeout=300_000)
    await page.fill("input[name=password]", f"{name}-own-password", timeout=300_000)
    await page.fill("input[name=otp]", HUB_PASSWORD, timeout=300_000)     # the class password, first login
    t0 = time.time()
    await page.click("[type=submit]", timeout=300_000)
    await page.wait_for_url(f"**/user/{name}/voila/render/notebooks/00_index.ipynb", timeout=400_000,
                            wait_until="commit")
    rec["spawn_s"] = time.time() - t0


async def learner(i, browser, server, path, duration, start_at, out, hub=False):
    ctx = await browser.new_context(viewport={"width": 1280, "height": 1000})
    page = await ctx.new_page()
    name = server.accounts.name(f"learner{i:02d}") if hub else f"learner{i:02d}"
    rec = {"learner": i, "notebook": path.name, "errors": [], "outside": [], "moves": 0, "stuck_moves": 0}
    page.on("pageerror", lambda e: rec["errors"].append(f"pageerror: {str(e)[:200]}"))
    page.on("console", lambda m: rec["errors"].append(f"console: {m.text[:200]}") if m.type == "error" else None)
    page.on("request", lambda r: None if LOCAL.match(r.url) else rec["outside"].append(r.url))
    rng = random.Random(i)
    await asyncio.sleep(max(0.0, start_at - time.time()))
    try:
        if hub:
            await hub_login(page, server, name, rec)
            url = f"{server.url}/user/{name}/voila/render/notebooks/{path.name}"
        else:
            url = f"{server.url}/voila/render/{path.name}"
        t0 = time.time()
        await page.goto(url, wait_until="commit", timeout=300_000)
        await page.wait_for_function(PANELS_READY, arg=expected_panels(path), timeout=300_000, polling=100)
        if hub:         # progressive rendering: stored outputs first, the live ones as their cells run
            await page.wait_for_function(LIVE, timeout=300_000, polling=100)
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
        try:        # how far it got: the HTML's end (s), live panels of those expected, a lost-kernel banner
            rec["stuck_at"] = await page.evaluate("""() => ({
              html_s: (performance.getEntriesByType('navigation')[0] || {}).responseEnd / 1000 || null,
              panels: document.querySelectorAll('.attnlab-panel').length,
              stored_left: document.querySelectorAll('.attnlab-stored').length,
              banner: !!document.querySelector('.attnlab-kernel-gone')})""")
        except Exception:
            pass
    finally:
        try:
            await page.close(run_before_unload=True)
            await asyncio.sleep(1.0)
        except Exception:
            pass
        await ctx.close()
        out.append(rec)


async def run_class(a, server, targets, hub=False):
    from playwright.async_api import async_playwright
    out = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium_path(), args=ARGS)
        start_at = time.time() + 2
        # arrivals: all in the same second, or spread evenly over --arrive-over seconds
        step = a.arrive_over / max(1, a.learners - 1) if a.arrive_over else 0.0
        await asyncio.gather(*(learner(i, browser, server, targets[i % len(targets)], a.duration,
                                       start_at + i * step, out, hub)
                               for i in range(a.learners)))
        await browser.close()
    return out


MAKE_LESSON_LIMITS = ["--ClassroomKernelManager.max_kernels=0", "--ClassroomKernelManager.max_per_client=6"]


def lesson_args(targets, pool_size):
    """Voila options of `make lesson` (Makefile, at its defaults MAX_KERNELS=0, MAX_PER_CLIENT=6,
    IP=127.0.0.1): a pool of `pool_size` for each lesson notebook, none for the others (they take the spare), no refill.
    `pool_size` 1 or less: the plain `make dashboard` (voila.json alone)."""
    if pool_size <= 1:
        return []
    config = {p.name: {"pool_size": pool_size} for p in targets}
    config["default"] = {"pool_size": 0}          # as make lesson since 2026-12-02 (was 1: bench/load)
    return [*MAKE_LESSON_LIMITS, f"--VoilaKernelManager.kernel_pools_config={json.dumps(config)}",
            "--ClassroomKernelManager.refill_pool=False"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--learners", type=int, default=20)
    ap.add_argument("--duration", type=float, default=60, help="seconds of slider moving")
    ap.add_argument("--arrive-over", type=float, default=0.0,
                    help="learners arrive one after the other, evenly over this many seconds (0: all at once)")
    ap.add_argument("--after", type=float, default=130, help="""seconds to wait after they leave before
                    counting leaked kernels (past the classroom's claim time, 120 s, and its release grace, 60 s)""")
    ap.add_argument("--notebook", default=None)
    ap.add_argument("--spread", action="store_true", help="deal learners over every notebook with panels")
    ap.add_argument("--pool", type=int, default=None,
                    help="preheated kernels per target notebook (default: one per learner, as `make lesson`)")
    ap.add_argument("--mode", choices=["lesson", "hub"], default="lesson",
                    help="lesson: one Voila as `make lesson`; hub: JupyterHub as `make hub`, a server per learner")
    ap.add_argument("--cull", type=float, default=180,
                    help="hub: seconds of inactivity before the idle culler stops a learner's server (longer than a page takes to load: 30 s culled pages still loading at load 40)")
    ap.add_argument("--out", default=None, help="default bench/results/classroom.json (hub: classroom-hub.json)")
    a = ap.parse_args()
    if a.learners < 1:
        sys.exit(f"--learners: expected at least 1, got {a.learners}")
    a.out = a.out or str(ROOT / "bench" / "results" / ("classroom-hub.json" if a.mode == "hub" else "classroom.json"))
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
    if a.mode == "hub":
        return main_hub(a, targets, logdir)
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
        "mode": "lesson", "learners": a.learners, "notebooks": [p.name for p in targets], "duration_s": a.duration,
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
    stuck = [r["stuck_at"] for r in recs if "stuck_at" in r]
    if stuck:
        print(f"  the {len(stuck)} that did not render: HTML complete for {sum(1 for x in stuck if x['html_s'])}, "
              f"live panels {sorted(x['panels'] for x in stuck)}, stored outputs left {sorted(x['stored_left'] for x in stuck)}, "
              f"kernel-lost banner on {sum(1 for x in stuck if x['banner'])}")
    print(f"memory: peak per kernel {s['peak_kernel_pss_mb']:.0f} MB PSS (median kernel {s['median_kernel_peak_pss_mb']:.0f} MB), "
          f"peak total {s['peak_total_kernel_pss_mb']:.0f} MB over {s['peak_kernels']} kernels")
    print(f"kernels alive {a.after:.0f} s after the class left: {alive} (untouched pool {expected}) -> leaked {leaked}")
    print(f"load average {load0[0]:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
          + ("  -- TAKEN UNDER LOAD" if max(load0[0], os.getloadavg()[0]) > 1.5 else ""))
    print(f"written: {a.out}")


def main_hub(a, targets, logdir):
    load0 = os.getloadavg()
    t_start = time.time()
    hub = Hub(logdir, a.cull)
    try:
        print(f"hub up after {time.time() - t_start:.0f} s at {hub.url}; {a.learners} learners log in and open "
              f"{', '.join(p.name for p in targets)}; servers culled after {a.cull:.0f} s idle", flush=True)
        hub_idle_mb = hub.own_mb()
        sampler = LearnerSampler(hub)
        sampler.start()
        t0 = time.time()
        recs = asyncio.run(run_class(a, hub, targets, hub=True))
        left = time.time()
        culled_in_class = hub.log().count("Culling server")    # a --cull too short for a page still loading
        print(f"class over after {left - t0:.0f} s; waiting up to {a.after:.0f} s for the culler", flush=True)
        freed_after = None
        while time.time() - left < a.after:
            if not hub.user_servers():
                freed_after = time.time() - left
                break
            time.sleep(2)
        servers_after, kernels_after = hub.user_servers(), hub.kernels()
        mb_after = sum(mb for mb, _ in hub.per_learner_mb().values())
        sampler.stop_flag.set()
        sampler.join(5)
        log = hub.log()
    finally:
        hub.stop()
    rendered = [r for r in recs if "render_s" in r]
    spawned = [r["spawn_s"] for r in recs if "spawn_s" in r]
    errors = [e for r in recs for e in r["errors"]]
    outside = sorted({u for r in recs for u in r["outside"]})
    per_learner = sorted(sampler.peak_per_learner.values())
    med = (lambda xs: statistics.median(xs) if xs else None)
    summary = {
        "mode": "hub", "learners": a.learners, "notebooks": [p.name for p in targets], "duration_s": a.duration,
        "cull_s": a.cull, "logged_in": len(spawned), "median_spawn_s": med(spawned), "slowest_spawn_s": max(spawned, default=None),
        "rendered": len(rendered), "median_render_s": med([r["render_s"] for r in rendered]),
        "slowest_render_s": max((r["render_s"] for r in rendered), default=None),
        "moves": sum(r["moves"] for r in recs), "moves_without_new_figure": sum(r["stuck_moves"] for r in recs),
        "errors": errors, "outside_requests": outside,
        "peak_learner_pss_mb": max(per_learner, default=0), "median_learner_peak_pss_mb": med(per_learner) or 0,
        "peak_total_learners_pss_mb": sampler.peak_total, "peak_servers": sampler.peak_servers,
        "peak_kernels_per_learner": max(sampler.peak_kernels_per_learner.values(), default=0),
        "hub_idle_pss_mb": hub_idle_mb, "hub_peak_pss_mb": sampler.peak_hub,
        "servers_freed_after_s": freed_after, "servers_left": sorted(servers_after), "kernels_left": len(kernels_after),
        "pss_left_mb": mb_after, "culled": log.count("Culling server"), "culled_during_class": culled_in_class,
        "loadavg_start": load0, "loadavg_end": os.getloadavg(), "cpus": os.cpu_count(),
        "wall_s": time.time() - t_start,
    }
    Path(a.out).write_text(json.dumps({"summary": summary, "learners": recs}, indent=1))
    s = summary
    nan = float("nan")
    print(f"logged in {s['logged_in']}/{a.learners}: own server answering after median {s['median_spawn_s'] or nan:.1f} s, "
          f"slowest {s['slowest_spawn_s'] or nan:.1f} s")
    print(f"rendered {s['rendered']}/{a.learners} (live, every stored output replaced): median {s['median_render_s'] or nan:.1f} s, "
          f"slowest {s['slowest_render_s'] or nan:.1f} s")
    print(f"slider moves {s['moves']}, of which {s['moves_without_new_figure']} showed no new figure within 20 s")
    print(f"errors {len(errors)}; outside requests {len(outside)}")
    for e in errors[:8]:
        print("   ", e)
    print(f"memory: per learner (server + up to {s['peak_kernels_per_learner']} kernels at once: the index's, the lesson's) "
          f"peak {s['peak_learner_pss_mb']:.0f} MB PSS (median learner "
          f"{s['median_learner_peak_pss_mb']:.0f} MB); all learners at the peak {s['peak_total_learners_pss_mb']:.0f} MB "
          f"over {s['peak_servers']} servers; the hub, proxy and culler {s['hub_peak_pss_mb']:.0f} MB (idle {hub_idle_mb:.0f} MB)")
    freed = f"all servers stopped {freed_after:.0f} s after the class left" if freed_after is not None else \
        f"NOT all stopped {a.after:.0f} s after the class left: {len(servers_after)} servers, {len(kernels_after)} kernels, {mb_after:.0f} MB"
    print(f"after: {freed} (culled: {s['culled']}, of which {culled_in_class} while the class was still on: "
          f"{'--cull too short for this machine' if culled_in_class else 'none'})")
    print(f"load average {load0[0]:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
          + ("  -- TAKEN UNDER LOAD" if max(load0[0], os.getloadavg()[0]) > 1.5 else ""))
    print(f"took {s['wall_s']:.0f} s in all; written: {a.out}")


if __name__ == "__main__":
    main()
