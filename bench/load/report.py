"""The table of bench/load's runs (bench/results/load/*/summary.json), with what follows from each run's own
CPU seconds, which do not depend on what else ran on the machine:

    .venv/bin/python bench/load/report.py [--label LABEL] [RESULTS_DIR]

kernel CPU per move = the kernels' CPU seconds during the class / the moves they answered (the notebook's
drawing, whatever the load), and so the learners one core can keep moving a slider every 3.5 s (the mean of
2-5 s) at 60 % use, where waiting stays short (a queue past ~70 % use grows its p95 fast): 0.6 / (CPU per
move / 3.5). CPU s per learner: the server's and kernels' CPU seconds from the server being ready to the
class gone, per learner (a hub's include each learner's login, server start and first notebook run). The
machine is shared: the load averages say how busy it was beside the server.
"""
import argparse
import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results" / "load"


def fmt(x, nd=1):
    return "-" if x is None else (f"{x:.{nd}f}" if isinstance(x, float) else str(x))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("results", nargs="?", default=str(RESULTS))
    p.add_argument("--label", default=None, help="only the runs with this label ('' for unlabelled)")
    a = p.parse_args()
    rows = []
    for path in sorted(Path(a.results).glob("*/summary.json")):
        s = json.loads(path.read_text())
        if a.label is not None and (s.get("label") or "") != a.label:
            continue
        rows.append((path.parent.name, s))
    print("| run | N | arrive | served | fig p50/p95/max s | moves (fails) | move p50/p95 ms | kernel CPU s/move "
          "| learners/core at 60 % | CPU s/learner | start s (CPU s) | peak GB (MB/learner) | kernels left | "
          "load avg before/after |")
    print("|" + "---|" * 14)
    for name, s in rows:
        cpu = s.get("class_cpu_s") or {}
        moves = s.get("moves") or 0
        # a hub's class CPU holds its logins and first notebook runs too: not a move's
        per_move = (cpu.get("kernels") / moves) if moves and cpu.get("kernels") is not None and s["mode"] == "lesson" else None
        per_learner = sum(cpu.values()) / s["learners"] if cpu else None
        per_core = 0.6 / (per_move / 3.5) if per_move else None
        start_cpu = s.get("start_cpu_s") or {}
        rate = "all at once" if s["spawn_rate"] == "all" else f"{s['spawn_rate']}/s"
        left = s.get("kernels_after")
        print(f"| {name} ({s['mode']}{', ' + s['label'] if s.get('label') else ''}) | {s['learners']} | {rate} | "
              f"{s['served']}/{s['learners']} | {fmt(s['first_figure_p50_s'])}/{fmt(s['first_figure_p95_s'])}/"
              f"{fmt(s['first_figure_max_s'])} | {moves} ({s['move_failures']}) | {fmt(s['move_p50_ms'], 0)}/"
              f"{fmt(s['move_p95_ms'], 0)} | {fmt(per_move, 2)} | {fmt(per_core, 0)} | {fmt(per_learner, 1)} | {fmt(s.get('start_s'), 0)} "
              f"({fmt(sum(start_cpu.values()) if start_cpu else None, 0)}) | {s['peak_pss_mb'] / 1024:.1f} "
              f"({s['pss_per_learner_mb']}) | {fmt(left)} | {s['loadavg_before'][0]:.1f}/{s['loadavg_after'][0]:.1f} |")


if __name__ == "__main__":
    main()
