"""CPU time of one move of a live panel in the kernel: the callback, the draw (blitted where declared)
and the PNG encode together, per notebook control (sliders, menus, toggles), as a drag of 10 moves
(median; the first move of a drag excluded). CPU time (process_time) is far less inflated by a busy
machine than the wall clock, so two trees can be compared on a shared machine:

    PYTHONPATH=<tree> .venv/bin/python bench/bench_moves.py <tree> <out.json>

e.g. an older commit checked out with `git worktree add /tmp/old <commit>` against this tree. The browser
side (transport, decode) is measured by bench/bench_dashboards.py.
"""
import json
import statistics
import sys
import time
from pathlib import Path


def main(tree, out_path):
    sys.path.insert(0, str(tree / "tests"))
    sys.path.insert(0, str(tree / "bench"))
    from _notebook_panels import notebook_panels
    from bench_panel import _drag_values, _draggable

    out = {}
    for nb in sorted((tree / "notebooks").glob("0[0-7]_*.ipynb")):       # 08 and 09 have no sliders
        for panel in notebook_panels(nb):
            for name, control in panel.controls.items():
                if not _draggable(control):
                    continue
                cpu = []
                for i, value in enumerate(_drag_values(control, 10)):
                    t0 = time.process_time()
                    control.value = value
                    if i:
                        cpu.append(time.process_time() - t0)
                key = f"{nb.name[:2]} {panel.name[:22]} {name}"
                out[key] = statistics.median(cpu) * 1e3
                print(f"{key:45s} {out[key]:7.1f} ms cpu", flush=True)
    Path(out_path).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), sys.argv[2])
