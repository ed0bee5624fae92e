"""A class of simulated learners against `make lesson` or `make hub`, measured (issue 50). One command:

    make load LEARNERS=30 SPAWN_RATE=1 MODE=lesson          # one run: 30 learners arriving 1 a second
    make load LEARNERS=30 SPAWN_RATE=30 MODE=hub            # all at once, through the hub (as root)
    make load LEARNERS=5,10,20,30,40 SPAWN_RATE=1,all MODE=lesson   # the curve: every N at every rate
    make load LEARNERS=10 MODE=lesson UI=1                  # Locust's web UI on 127.0.0.1:8089: start it there

Each run starts the server exactly as the teacher's make target does (`make lesson LEARNERS=N NOTEBOOK=...`,
`make hub`), waits until it is ready (lesson: its pool of N kernels has run the notebook: the "start"
columns), then lets Locust's learners arrive (bench/load/locustfile.py: the page, its websockets, the
figure, a slider move every 2-5 s for WORK seconds, leaving), and samples the server's process tree every
2 s: CPU seconds (the server and its kernels apart), memory (PSS), kernels. Then the server is stopped.

Results: bench/results/load/<date>-<mode>-N<learners>-r<rate>[-<label>]/ with command.txt (this command and
the server's), locust_*.csv (Locust's own CSV), events.csv (every timed event), samples.csv, server.log,
summary.json; and one line per run in bench/results/load/runs.md. The machine is shared: every run records
the load averages before and after, the machine's CPU use beside the server's, and the server's own CPU
seconds, which do not depend on what else runs.
"""
import argparse
import csv
import json
import os
import secrets
import shlex
import signal
import statistics
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from dashboard_helpers import LearnerAccounts, free_port, http_status

RESULTS = ROOT / "bench" / "results" / "load"
MIN_AVAILABLE_MB = 1500           # below this much free memory on the machine a run stops its server
HERE = Path(__file__).resolve().parent


def pss_mb(proc):
    try:
        mem = proc.memory_full_info()
        return getattr(mem, "pss", mem.rss) / 2**20
    except psutil.Error:
        return 0.0


def is_kernel(proc):
    try:
        return "ipykernel" in " ".join(proc.cmdline())
    except psutil.Error:
        return False


class Sampler(threading.Thread):
    """The server's process tree every ``every`` seconds: CPU seconds of every process it ever had (a process
    gone keeps its last reading), kernels, PSS; and the machine's CPU use."""

    def __init__(self, root_pid, path, every=2.0):
        super().__init__(daemon=True)
        self.root, self.path, self.every = psutil.Process(root_pid), path, every
        self.cpu = {}                 # pid -> (kind, cpu seconds)
        self.stop_flag = threading.Event()
        self.peak_pss = self.peak_kernels = 0
        self.kernel_pss = []          # each kernel's PSS at each sample
        self.phase = "start"
        self.marks = {}
        self.out_of_memory = False
        self.server_proc = None

    def tree(self):
        try:
            return [self.root, *self.root.children(recursive=True)]
        except psutil.Error:
            return []

    def totals(self):
        out = {"server": 0.0, "kernels": 0.0}
        for kind, seconds in self.cpu.values():
            out[kind] += seconds
        return out

    def mark(self, name):
        """Remember the CPU totals, and the machine's, at a moment (start, ready, class over)."""
        self.sample(write=False)
        self.marks[name] = {**self.totals(), "machine": sum(psutil.cpu_times()[:3]), "wall": time.time(),
                            "loadavg": os.getloadavg()}

    def sample(self, write=True):
        procs = self.tree()
        kernels = [p for p in procs if is_kernel(p)]
        for p in procs:
            try:
                t = p.cpu_times()
                # once a kernel, always (a kernel exiting no longer shows its command line)
                kind = "kernels" if p in kernels or self.cpu.get(p.pid, ("",))[0] == "kernels" else "server"
                self.cpu[p.pid] = (kind, t.user + t.system)
            except psutil.Error:
                pass
        if not write:
            return
        pss = {p.pid: pss_mb(p) for p in procs}
        total = sum(pss.values())
        self.peak_pss = max(self.peak_pss, total)
        self.peak_kernels = max(self.peak_kernels, len(kernels))
        self.kernel_pss += [pss[p.pid] for p in kernels if pss.get(p.pid)]
        c = self.totals()
        with open(self.path, "a") as f:
            f.write(f"{time.time():.1f},{self.phase},{len(kernels)},{total:.0f},{c['server']:.1f},{c['kernels']:.1f},"
                    f"{psutil.cpu_percent():.0f},{os.getloadavg()[0]:.2f}\n")

    def run(self):
        with open(self.path, "w") as f:
            f.write("t,phase,kernels,pss_mb,server_cpu_s,kernels_cpu_s,machine_cpu_percent,load1\n")
        while not self.stop_flag.wait(self.every):
            self.sample()
            # the machine is shared: a run never takes the last of its memory (the server is stopped, the run says so)
            if psutil.virtual_memory().available < MIN_AVAILABLE_MB * 2**20:
                self.out_of_memory = True
                stop_tree(self.server_proc, timeout=30)
                return


def percentile(values, q):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q / 100 * len(values) + 0.5) - 1))]


def read_events(path):
    rows = []
    if path.exists():
        with open(path) as f:
            rows = list(csv.DictReader(f))
    return rows


def stop_tree(proc, signo=signal.SIGTERM, timeout=90):
    """SIGTERM to the make process group (Voila and JupyterHub stop their kernels and servers), then kill whatever
    is left."""
    try:
        tree = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
    except psutil.Error:
        tree = []
    try:
        os.killpg(proc.pid, signo)
    except ProcessLookupError:
        pass
    _, alive = psutil.wait_procs(tree, timeout=timeout)
    for p in alive:
        try:
            p.kill()
        except psutil.Error:
            pass


def run_one(a, learners, rate):
    rate_n = learners if rate == "all" else float(rate)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out = RESULTS / f"{stamp}-{a.mode}-N{learners}-r{rate}{'-' + a.label if a.label else ''}"
    out.mkdir(parents=True)
    port = free_port()
    env = {**os.environ}
    accounts = None
    if a.mode == "lesson":
        server_cmd = ["make", "-s", "lesson", f"LEARNERS={a.pool if a.pool is not None else learners}",
                      f"NOTEBOOK={a.notebook}", f"PORT={port}", *a.server_arg]
        host, locust_extra = f"http://127.0.0.1:{port}", []
    else:
        if os.geteuid() != 0:
            sys.exit("make load MODE=hub: the hub creates a Unix user per learner: run as root")
        accounts = LearnerAccounts()
        password = "load-" + secrets.token_hex(6)
        env = {k: v for k, v in env.items() if not k.startswith("ATTNLAB_HUB_")}
        env.update(ATTNLAB_HUB_API_PORT=str(free_port()), ATTNLAB_HUB_PROXY_API_PORT=str(free_port()),
                   ATTNLAB_HUB_GROUP=accounts.group, ATTNLAB_HUB_HOMES=str(accounts.homes), ATTNLAB_HUB_SPAWNER="local",
                   ATTNLAB_HUB_DIR=str(out / "hub-state"), ATTNLAB_HUB_CULL=str(a.cull))
        env.update(dict(kv.split("=", 1) for kv in a.hub_env))
        server_cmd = ["make", "-s", "hub", f"HUB_PORT={port}", f"HUB_PASSWORD={password}",
                      *([f"NOTEBOOK={a.notebook}"] if a.hub_lesson else []), *a.server_arg]
        host, locust_extra = f"http://127.0.0.1:{port}", ["--hub-password", password, "--learner-tag", accounts.tag]
    events_csv = out / "events.csv"
    locust_cmd = [str(ROOT / ".venv" / "bin" / "locust"), "-f", str(HERE / "locustfile.py"), "--host", host,
                  "--mode", a.mode, "--notebook", a.notebook, "--work-seconds", str(a.work),
                  "--events-out", str(events_csv), *locust_extra]
    if a.ui:
        locust_cmd += ["--web-host", "127.0.0.1", "-u", str(learners), "-r", str(rate_n)]
    else:
        locust_cmd += ["--headless", "-u", str(learners), "-r", str(rate_n), "--csv", str(out / "locust"),
                       "--html", str(out / "locust_report.html"), "--only-summary", "-t", "3600s", "--stop-timeout", "120"]
    (out / "command.txt").write_text(
        f"{' '.join(shlex.quote(x) for x in [sys.executable, *sys.argv])}\n"
        f"# this run: learners={learners} spawn rate={rate} ({rate_n}/s)\n"
        f"# server: {' '.join(shlex.quote(x) for x in [*a.hub_env, *server_cmd])}\n# locust: {' '.join(shlex.quote(x) for x in locust_cmd)}\n"
        f"# commit: {subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=ROOT, capture_output=True, text=True).stdout.strip()}"
        f"{' (uncommitted changes)' if subprocess.run(['git', 'status', '--porcelain', '--untracked-files=no'], cwd=ROOT, capture_output=True, text=True).stdout.strip() else ''}\n")
    summary = {"mode": a.mode, "learners": learners, "spawn_rate": rate, "notebook": a.notebook, "work_s": a.work,
               "label": a.label, "date": datetime.now().isoformat(timespec="seconds"), "cores": psutil.cpu_count(),
               "loadavg_before": os.getloadavg()}
    log = open(out / "server.log", "w")
    started = time.time()
    server = subprocess.Popen(server_cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                              start_new_session=True)
    sampler = Sampler(server.pid, out / "samples.csv")
    sampler.server_proc = server
    sampler.mark("start")
    sampler.start()
    try:
        ready = host + ("/hub/login" if a.mode == "hub" else "/")
        while http_status(ready) != 200:
            if server.poll() is not None or time.time() - started > 900:
                raise RuntimeError(f"the server did not answer; see {out / 'server.log'}")
            time.sleep(1)
        if a.mode == "lesson":             # the pool's kernels have run the notebook: kernels idle for 10 s
            quiet_since, last = None, None
            while time.time() - started < a.start_timeout:
                sampler.sample(write=False)
                c = sampler.totals()["kernels"]
                kernels = sum(1 for p in sampler.tree() if is_kernel(p))
                if last is not None and c - last < 0.3 and kernels >= learners:
                    quiet_since = quiet_since or time.time()
                    if time.time() - quiet_since >= 10:
                        break
                else:
                    quiet_since = None
                last = c
                time.sleep(2)
        sampler.mark("ready")
        summary["start_s"] = round(sampler.marks["ready"]["wall"] - started, 1)
        summary["start_cpu_s"] = {k: round(sampler.marks["ready"][k] - sampler.marks["start"][k], 1)
                                  for k in ("server", "kernels")}
        summary["kernels_at_ready"] = sum(1 for p in sampler.tree() if is_kernel(p))
        summary["loadavg_at_ready"] = os.getloadavg()
        sampler.phase = "class"
        if a.ui:
            print(f"make load: the server is ready at {host}; Locust's web UI at http://127.0.0.1:8089 (Ctrl-C ends)")
        locust = subprocess.Popen(locust_cmd, cwd=HERE, stdout=open(out / "locust.log", "w"), stderr=subprocess.STDOUT)
        while locust.poll() is None:        # every learner ends with one of these; then Locust is stopped
            done = [e for e in read_events(events_csv)
                    if (e["name"] == "first figure" and e["error"]) or e["name"] == "kernel gone"]
            if not a.ui and len(done) >= learners:        # Locust ends by itself then; if not, it is told to
                try:
                    locust.wait(30)
                except subprocess.TimeoutExpired:
                    locust.send_signal(signal.SIGTERM)
                break
            time.sleep(2)
        try:
            locust.wait(150)
        except subprocess.TimeoutExpired:
            locust.kill()
            locust.wait()
        sampler.mark("class over")
        time.sleep(a.after)
        sampler.sample(write=False)
        summary["kernels_after"] = sum(1 for p in sampler.tree() if is_kernel(p))
    finally:
        sampler.stop_flag.set()
        summary["loadavg_after"] = os.getloadavg()
        stop_tree(server)
        log.close()
        lines = (out / "server.log").read_text(errors="replace").splitlines()
        (out / "server.log.tail").write_text("\n".join(lines[-300:]) + "\n")    # the whole log is not kept
        if accounts is not None:
            accounts.remove()
    marks = sampler.marks
    if "class over" in marks:
        span = marks["class over"]["wall"] - marks["ready"]["wall"]
        summary["class_s"] = round(span, 1)
        summary["class_cpu_s"] = {k: round(marks["class over"][k] - marks["ready"][k], 1) for k in ("server", "kernels")}
        summary["machine_cpu_s_during_class"] = round(marks["class over"]["machine"] - marks["ready"]["machine"], 1)
    ev = read_events(events_csv)

    def times(name, ok=True):
        return [float(e["ms"]) / 1000 for e in ev if e["name"] == name and (not e["error"]) == ok]
    figs, moves = times("first figure"), times("slider move")
    summary.update({
        "served": len(figs), "not_served": len(times("first figure", False)),
        "first_figure_p50_s": percentile(figs, 50), "first_figure_p95_s": percentile(figs, 95),
        "first_figure_max_s": max(figs, default=None),
        "within_60s": sum(1 for f in figs if f <= 60),
        "moves": len(moves), "move_failures": len(times("slider move", False)),
        "move_p50_ms": percentile([m * 1000 for m in moves], 50), "move_p95_ms": percentile([m * 1000 for m in moves], 95),
        "kernel_gone": len(times("kernel gone")), "kernel_gone_failures": len(times("kernel gone", False)),
        "errors": sorted({f"{e['name']}: {e['error']}" for e in ev if e["error"]})[:20],
        "peak_pss_mb": round(sampler.peak_pss), "peak_kernels": sampler.peak_kernels,
        "kernel_pss_median_mb": round(statistics.median(sampler.kernel_pss)) if sampler.kernel_pss else None,
    })
    if a.mode == "hub":
        hub = times("hub login -> server")
        summary.update(login_p50_s=percentile(hub, 50), login_p95_s=percentile(hub, 95),
                       login_failures=len(times("hub login -> server", False)))
    summary["pss_per_learner_mb"] = round(sampler.peak_pss / learners) if learners else None
    summary["stopped_for_memory"] = sampler.out_of_memory
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    line(summary, out)
    return summary


def fmt(x, nd=1):
    return "-" if x is None else (f"{x:.{nd}f}" if isinstance(x, float) else str(x))


def line(s, out):
    runs = RESULTS / "runs.md"
    if not runs.exists():
        runs.write_text("| run | mode | N | rate | served | fig p50 / p95 s | within 60 s | moves | move p50 / p95 ms | "
                        "move fails | kernels gone | start s (CPU s) | class CPU s server+kernels | peak GB | MB/learner "
                        "| load before/after |\n|" + "---|" * 16 + "\n")
    cpu = s.get("class_cpu_s", {})
    start_cpu = s.get("start_cpu_s", {})
    with open(runs, "a") as f:
        f.write(f"| {out.name} | {s['mode']} | {s['learners']} | {s['spawn_rate']} | {s['served']}/{s['learners']} | "
                f"{fmt(s['first_figure_p50_s'])} / {fmt(s['first_figure_p95_s'])} | {s['within_60s']} | {s['moves']} | "
                f"{fmt(s['move_p50_ms'], 0)} / {fmt(s['move_p95_ms'], 0)} | {s['move_failures']} | "
                f"{s['kernel_gone']} | {fmt(s.get('start_s'))} ({fmt(sum(start_cpu.values()) if start_cpu else None)}) | "
                f"{fmt(cpu.get('server'))}+{fmt(cpu.get('kernels'))} | {s['peak_pss_mb'] / 1024:.1f} | "
                f"{s['pss_per_learner_mb']} | {s['loadavg_before'][0]:.1f}/{s['loadavg_after'][0]:.1f} |\n")
    print(json.dumps(s, indent=1))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mode", choices=["lesson", "hub"], default="lesson")
    p.add_argument("--learners", default="10", help="N, or N,N,... for a curve")
    p.add_argument("--spawn-rate", default="1", help="learners arriving per second ('all': N at once), or a list")
    p.add_argument("--notebook", default="01_kernel_regression.ipynb")
    p.add_argument("--work", type=float, default=60.0, help="seconds each learner moves sliders")
    p.add_argument("--pool", type=int, default=None, help="lesson: make lesson's LEARNERS (default: N)")
    p.add_argument("--cull", type=int, default=600, help="hub: ATTNLAB_HUB_CULL")
    p.add_argument("--after", type=float, default=10.0, help="seconds after the class before counting kernels left")
    p.add_argument("--start-timeout", type=float, default=900.0)
    p.add_argument("--server-arg", action="append", default=[], help="one more make variable for the server, VAR=value")
    p.add_argument("--hub-lesson", action="store_true", help="hub: learners land on the lesson (make hub NOTEBOOK=...)")
    p.add_argument("--hub-env", action="append", default=[], help="hub: one more ATTNLAB_HUB_* setting, VAR=value")
    p.add_argument("--label", default="", help="a word for the results' folder (before, after ...)")
    p.add_argument("--ui", action="store_true", help="Locust's web UI instead of a headless run")
    a = p.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    for n in [int(x) for x in a.learners.split(",")]:
        for rate in a.spawn_rate.split(","):
            run_one(a, n, rate)


if __name__ == "__main__":
    main()
