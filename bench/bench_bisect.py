"""Which change cost what on the slider path (issue 51): the same two benchmarks on the trees of several
commits, each checked out once as a ``git worktree`` (build/bisect/<commit>, detached), run with this
checkout's venv and benchmark scripts, the trees taken in turn within each repetition (so a busy spell
of a shared machine falls on all of them), medians over repetitions.

    .venv/bin/python bench/bench_bisect.py                       # kernel side, every commit of COMMITS
    .venv/bin/python bench/bench_bisect.py --browser --only 00_,02_,05_,07_ --presses 20
    .venv/bin/python bench/bench_bisect.py --commits 915a781,HEAD --reps 3

Kernel side: ``bench_panel.py --keys --tree DIR`` (CPU ms per keyboard move of every slider, per notebook,
to the first picture). Browser side: ``bench_dashboards.py --tree DIR`` (key press to new pixels in
Chromium, and the CPU per press of the page's kernel, Voila's server and Chromium), one page per
notebook per repetition. "." (or "worktree") is this checkout as it is, uncommitted changes included.
Printed as a markdown table (commit, what it changed, per notebook p50/p95) and written to
bench/results/bisect-<side>.json.
"""
import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
# The tree of 2026-11-27 whose voila.json preheated every page, and the changes after it that touch a move
# (the first-parent line of main; the a11y and palette branches came in by merges).
COMMITS = (
    ("915a781", "2026-11-27 13:58: the last voila.json that preheated every page"),
    ("6596380", "voila.json: the index preheated, one spare kernel for any other page (issue 41)"),
    ("59cb4a0", "floor plan (layers, one check vocabulary), nb11, the browser tests on voila.json (110bac9)"),
    ("5d4a0f6", "a11y merge: describe / accessible name per move (fdf9080), template live region and alt"),
    ("dd26ef2", "floor-moves merge: no argument checked twice per move (unchecked twins)"),
    ("6bbe874", "palette merge: heatmap cell text black/white by WCAG contrast per cell (6bb106f)"),
    ("3898fcc", "text-contrast merge: plotting.text_color (3941876)"),
    ("2cfd581", "main of 2026-11-28 (the issue's tree; 2b519f8's one torch thread is make test's only)"),
    (".", "this checkout (issue 51's fixes)"),
)


def worktree(commit):
    if commit in (".", "worktree"):
        return ROOT
    path = ROOT / "build" / "bisect" / commit
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), commit], check=True,
                       capture_output=True)
    return path


def run_kernel(tree, out, only):
    cmd = [PY, str(ROOT / "bench" / "bench_panel.py"), "--keys", "--runs", "1", "--tree", str(tree), "--json", str(out)]
    if only:
        cmd += ["--only", only]
    subprocess.run(cmd, check=False, env={**__import__("os").environ, "OMP_NUM_THREADS": "1"})
    data = json.loads(out.read_text()) if out.exists() else {"notebooks": {}}
    return {nb: {"p50": r["first_p50"] if "first_p50" in r else r["cpu_p50"],
                 "p95": r["first_p95"] if "first_p95" in r else r["cpu_p95"]} for nb, r in data["notebooks"].items()}


def run_browser(tree, out, only, presses):
    rows = {}
    for part in only.split(",") if only else [""]:
        path = out.with_name(out.stem + f"-{part or 'all'}.json")
        cmd = [PY, str(ROOT / "bench" / "bench_dashboards.py"), "--runs", "1", "--tree", str(tree), "--out", str(path)]
        if part:
            cmd += ["--only", part]
        if presses:
            cmd += ["--presses", str(presses)]
        subprocess.run(cmd, check=False)
        if path.exists():
            for nb, r in json.loads(path.read_text())["results"].items():
                a = r["summary"]["all"]
                if a:
                    rows[nb] = {"p50": a["first_p50"], "p95": a["first_p95"], "kernel": a["cpu"]["kernel"],
                                "browser": a["cpu"]["browser"], "server": a["cpu"]["server"]}
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commits", default=",".join(c for c, _ in COMMITS), help="commits (or '.') in order")
    ap.add_argument("--browser", action="store_true", help="the browser bench instead of the kernel one")
    ap.add_argument("--only", default="", help="notebooks (comma-separated name parts, e.g. 00_,05_)")
    ap.add_argument("--presses", type=int, default=0, help="--browser: presses per page (default: every slider)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions (each runs every tree once)")
    a = ap.parse_args()
    what = dict(COMMITS)
    commits = a.commits.split(",")
    trees = {c: worktree(c) for c in commits}
    side = "browser" if a.browser else "kernel"
    outdir = ROOT / "bench" / "results" / f"bisect-{side}"
    outdir.mkdir(parents=True, exist_ok=True)
    found = {c: [] for c in commits}
    for rep in range(a.reps):
        for c in commits:
            subprocess.run(["uptime"])
            out = outdir / f"{c.replace('.', 'worktree')}-{rep}.json"
            found[c].append(run_browser(trees[c], out, a.only, a.presses) if a.browser else
                            run_kernel(trees[c], out, a.only.replace(",", "")))
    notebooks = sorted({nb for reps in found.values() for r in reps for nb in r})
    unit = "key press -> new pixels, ms p50 / p95" if a.browser else "CPU ms per keyboard move, p50 / p95"
    print(f"\n{unit}, medians over {a.reps} repetitions")
    print("| commit | change | " + " | ".join(nb[:2] for nb in notebooks) + " |")
    print("|---|---|" + "---|" * len(notebooks))
    table = {}
    for c in commits:
        cells = []
        for nb in notebooks:
            got = [r[nb] for r in found[c] if nb in r]
            if not got:
                cells.append("—")
                continue
            m = {k: statistics.median(g[k] for g in got) for k in got[0]}
            table.setdefault(c, {})[nb] = m
            cells.append(f"{m['p50']:.0f} / {m['p95']:.0f}" + (f" ({m['browser']:.0f})" if a.browser else ""))
        print(f"| {c} | {what.get(c, '')} | " + " | ".join(cells) + " |")
    if a.browser:
        print("(in brackets: Chromium's CPU ms per press, all its processes)")
    (ROOT / "bench" / "results" / f"bisect-{side}.json").write_text(json.dumps(table, indent=1))


if __name__ == "__main__":
    main()
