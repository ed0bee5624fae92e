"""`make test` from a fresh clone, as CI runs it: wall time, CPU time and the peak memory of the whole
process tree (issue 37: a private repository's GitHub runner has about 7 GB; issue 43: <= 15 min).

    python bench/bench_make_test.py                 # clone HEAD's repository into a temporary folder, run make test
    python bench/bench_make_test.py --runs 3        # three fresh clones in a row
    python bench/bench_make_test.py --where DIR     # in an existing checkout (its prerequisites may be built)

Memory is sampled every --every seconds over make and every process below it: the sum of their
proportional set sizes (PSS: a page shared by n processes counts 1/n in each, so the sum is the memory
the tree holds; the page cache is not in it) and, for comparison, of their resident sizes (RSS counts
shared pages once per process, so it overstates). Prints one line per run and writes them as JSON lines
to bench/results/make_test.jsonl, with the CPU seconds per kind of process (kernels, pytest workers,
chromium, ...), as last sampled. Needs psutil (in requirements.txt).
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]


def tree(proc):
    try:
        return [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return []


def kind(proc):
    """What a process is, in a few words: the program and what it runs (a kernel, pytest, voila, ...)."""
    try:
        cmd = proc.cmdline()
    except psutil.Error:
        return "?"
    # the program and its first arguments, by name (not the paths they sit in: pytest's temporary folders)
    words = " ".join(Path(w).name if "/" in w else w for w in cmd[:4])
    for needle, name in (("ipykernel", "kernel"), ("sys.stdin.readline", "pytest worker"), ("pytest", "pytest"),
                         ("voila", "voila"), ("attnlab serve", "voila"), ("jupyterhub-singleuser", "hub learner server"),
                         ("jupyterhub", "jupyterhub"), ("jupyter-lab", "jupyterlab"), ("configurable-http-proxy", "proxy"),
                         ("chrom", "chromium"), ("pip", "pip"), ("node", "node"), ("make", "make"), ("sh", "shell")):
        if needle in words:
            return name
    return Path(cmd[0]).name if cmd else "?"


def memory(procs):
    pss = rss = 0
    kinds = {}
    for p in procs:
        try:
            info = p.memory_full_info()
        except psutil.Error:           # gone while we looked, or not ours to read
            continue
        pss += getattr(info, "pss", info.rss)
        rss += info.rss
        k = kind(p)
        n, b = kinds.get(k, (0, 0))
        kinds[k] = (n + 1, b + getattr(info, "pss", info.rss))
    return pss, rss, kinds


def run(where, command, every):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    log = open(Path(where) / "make-test.log", "w")
    proc = subprocess.Popen(command, cwd=where, stdout=log, stderr=subprocess.STDOUT, shell=True)
    top = psutil.Process(proc.pid)
    peak = {"pss": 0, "rss": 0, "processes": 0, "at_s": 0.0}
    seen = {}          # (pid, start time) -> (kind, CPU seconds at its last sample): CPU by kind at the end
    while proc.poll() is None:
        procs = tree(top)
        for p in procs:
            try:
                with p.oneshot():
                    t = p.cpu_times()
                    seen[(p.pid, p.create_time())] = (kind(p), t.user + t.system)
            except psutil.Error:
                pass
        pss, rss, kinds = memory(procs)
        if pss > peak["pss"]:
            peak = {"pss": pss, "rss": rss, "processes": len(procs), "at_s": round(time.time() - start),
                    "by_kind": {k: [n, round(b / 2**30, 2)] for k, (n, b) in
                                sorted(kinds.items(), key=lambda kv: -kv[1][1])}}
        time.sleep(every)
    wall = time.time() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)     # make and all it waited for, once reaped
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    log.close()
    by_kind = {}
    for k, seconds in seen.values():
        by_kind[k] = by_kind.get(k, 0.0) + seconds
    return {"rc": proc.returncode, "wall_s": round(wall), "cpu_s": round(cpu),
            "peak_pss_gb": round(peak["pss"] / 2**30, 2), "peak_rss_gb": round(peak["rss"] / 2**30, 2),
            "peak_processes": peak["processes"], "peak_at_s": peak["at_s"],
            "peak_by_kind": peak.get("by_kind", {}),   # {what: [processes, GB PSS]} at the peak
            # CPU s per kind of process, as last sampled (a process's last seconds before it ends are missed)
            "cpu_s_by_kind": {k: round(v) for k, v in sorted(by_kind.items(), key=lambda kv: -kv[1])},
            "log": str(Path(where) / "make-test.log")}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--where", help="an existing checkout (default: a fresh clone of this repository)")
    parser.add_argument("--command", default="make test")
    parser.add_argument("--every", type=float, default=2.0, help="seconds between memory samples")
    args = parser.parse_args(argv)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    for i in range(args.runs):
        if args.where:
            where = args.where
        else:
            where = tempfile.mkdtemp(prefix="attnlab-make-test-")
            os.chmod(where, 0o755)     # as a clone elsewhere: the hub's learners (other Unix users) read the checkout
            subprocess.run(["git", "clone", "-q", str(ROOT), where], check=True)
        result = {"head": head, "run": i + 1, "command": args.command, "where": where,
                  "load_at_start": round(os.getloadavg()[0], 2), "cores": os.cpu_count(),
                  "date": time.strftime("%Y-%m-%d %H:%M"), **run(where, args.command, args.every)}
        print(json.dumps(result), flush=True)
        with open(out / "make_test.jsonl", "a") as f:
            f.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
