"""Cost of one live-panel refresh in the kernel: the callback (update artists) and the render
(figure -> PNG bytes for the Image widget), against the slower ways of rendering; then, for every
live panel in the notebooks, the render of a drag (moves in a row on one slider) with blitting
(the default) and with every move drawn in full.

    .venv/bin/python bench/bench_panel.py [--repeats 40] [--moves 12] [--only 03] [--notebooks-only]
    .venv/bin/python bench/bench_panel.py --keys [--only 03] [--tree DIR] [--runs 3]

``--keys``: every slider of every notebook's Play panels moved as the browser bench's keyboard moves
them (bench/bench_dashboards.py: runs of 5 presses on one slider, its own step each, then the next
slider; a second pass goes back), each move's CPU time (process_time, which a busy machine inflates
far less than the clock) split into the update callback, the draw (Agg, blitted where declared), the
PNG encode, ``describe`` (the accessible text, where the panel has one), a ``Later``'s finish (the
second part of a two-part answer: run at once here, in a kernel after the picture) and the rest
(widget values, text HTML); p50/p95 per notebook, to the first picture and of the whole move,
medians over ``--runs`` runs. ``--tree DIR``: the attnlab package
and notebooks of another checkout (e.g. a ``git worktree`` of an older commit), measured by this
script with this venv: what the bisect in docs/benchmarks.md ran.

Per notebook control (sliders, menus, toggles; not text boxes): the render per move (median, first
move of a drag excluded), wall clock and CPU time, as the panel declares its moving artists ("dec")
and with every move drawn in full ("all"), the fraction of moves that blitted, and the most frequent
reason (``Blitter.reason``, a ``renderer.Full``) of a full draw.

The browser side (bytes -> pixels) is measured by bench/bench_dashboards.py.
"""
import argparse
import collections
import io
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tree():
    """The checkout whose attnlab and notebooks are measured (--tree DIR; this one by default)."""
    if "--tree" in sys.argv[:-1]:
        return Path(sys.argv[sys.argv.index("--tree") + 1]).resolve()
    return ROOT


TREE = _tree()
sys.path.insert(0, str(TREE))                  # attnlab from the tree measured (before any import of it)
sys.path.insert(1, str(ROOT / "tests"))        # this checkout's helpers (_notebook_panels), whatever the tree
import ipywidgets as widgets
import torch

from attnlab.ui import panels, plotting


def median_ms(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def heatmap_panel(n=6, annotate=True, moving=True):
    g = torch.Generator().manual_seed(0)
    scores = torch.randn(n, n, generator=g)
    labels = [f"t{i}" for i in range(n)]
    fig, ax = panels.new_figure(figsize=(5, 4))
    plotting.heatmap(torch.softmax(scores, -1), x_labels=labels, y_labels=labels, ax=ax, annotate=annotate)
    temperature = widgets.FloatSlider(value=1.0, min=0.05, max=5.0)

    def update(temperature):
        w = torch.softmax(scores / temperature, -1)
        plotting.update_heatmap(ax, w)
        return plotting.weights_summary(w, labels, labels)

    declared = (lambda: ax.images + ax.texts) if moving else ()
    return panels.Panel(fig, {"temperature": temperature}, update, moving=declared), temperature


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=40)
    ap.add_argument("--moves", type=int, default=12, help="moves in a row per slider, per notebook panel")
    ap.add_argument("--only", default="", help="only notebooks whose name contains this")
    ap.add_argument("--notebooks-only", action="store_true", help="skip the synthetic heatmap panel")
    ap.add_argument("--keys", action="store_true",
                    help="only the per-move CPU split of keyboard moves of every notebook slider (see above)")
    ap.add_argument("--runs", type=int, default=3, help="--keys: runs per notebook (medians over runs)")
    ap.add_argument("--presses", type=int, default=0,
                    help="--keys: presses per notebook (default: two passes of 5 over every slider)")
    ap.add_argument("--tree", default=str(ROOT), help="--keys: the checkout measured (attnlab and notebooks/)")
    ap.add_argument("--json", default=None, help="--keys: also write the table as JSON here")
    a = ap.parse_args()
    print("load average (1, 5, 15 min): " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    if a.keys:
        table = keyboard_moves(a.only, a.runs, a.presses)
        if a.json:
            import json
            Path(a.json).write_text(json.dumps({"tree": str(TREE), "commit": _commit(TREE), "loadavg": os.getloadavg(),
                                                "notebooks": table}, indent=1))
        return
    if a.notebooks_only:
        notebook_drags(a.moves, a.only)
        return
    panel, slider = heatmap_panel()
    values = iter([0.1 + 0.05 * (i % 80) for i in range(10_000)])

    def move():
        slider.value = next(values)

    total = median_ms(move, a.repeats)
    upd = statistics.median(t[0] for t in panel.timings[-a.repeats:]) * 1e3
    ren = statistics.median(t[1] for t in panel.timings[-a.repeats:]) * 1e3
    fig = panel.figure
    savefig_fast = median_ms(lambda: fig.savefig(io.BytesIO(), format="png", pil_kwargs={"compress_level": 1}), a.repeats)
    savefig_default = median_ms(lambda: fig.savefig(io.BytesIO(), format="png"), a.repeats)
    draw_only = median_ms(fig.canvas.draw, a.repeats)
    for annotate in (False, True):
        for moving in (True, False):
            p2, s2 = heatmap_panel(annotate=annotate, moving=moving)
            vals = iter([0.1 + 0.05 * (i % 80) for i in range(10_000)])

            def mv(s2=s2, vals=vals):
                s2.value = next(vals)
            median_ms(mv, a.repeats)
            r = statistics.median(t[1] for t in p2.timings[-a.repeats:]) * 1e3
            print(f"6x6 heatmap, {'with' if annotate else 'no'} cell numbers, "
                  f"{'image+texts declared (blit)' if moving else 'nothing declared (full draw)'}: "
                  f"render {r:6.1f} ms")
    print("6x6 heatmap panel with annotations and colour bar, 5x4 in at 90 dpi "
          f"({len(panel.image.value) / 1024:.0f} KiB PNG), median of {a.repeats}:")
    print(f"  slider change -> new PNG bytes (whole refresh) {total:7.1f} ms")
    print(f"    callback (softmax + update artists + text)   {upd:7.1f} ms")
    print(f"    render: Agg draw + PIL PNG (level 1)         {ren:7.1f} ms   <- attnlab.ui.panels")
    print("  alternatives for the render step:")
    print(f"    Agg draw alone (lower bound)                  {draw_only:7.1f} ms")
    print(f"    savefig PNG, compress level 1                 {savefig_fast:7.1f} ms")
    print(f"    savefig PNG, default compression              {savefig_default:7.1f} ms")
    notebook_drags(a.moves, a.only)


def _drag_values(control, moves):
    """Values one keyboard step apart, back and forth, as a drag by keys gives (a menu: two
    neighbouring options; a check box: on and off)."""
    if isinstance(control.value, bool):
        return [not control.value, control.value] * (moves // 2)
    step = control.step if hasattr(control, "step") and isinstance(control.value, (int, float)) else None
    if step is None:
        options = list(control.options.values()) if isinstance(control.options, dict) else [
            o[1] if isinstance(o, tuple) else o for o in control.options]
        i = options.index(control.value)
        return [options[j] for j in (i + 1 if i + 1 < len(options) else i - 1, i) * (moves // 2)]
    v = control.value
    if type(control).__name__ == "FloatLogSlider":                 # its step is in the exponent
        import math
        e = math.log(v, control.base)
        nxt = control.base ** (e + step if e + step <= control.max else e - step)
        return [nxt, v] * (moves // 2)
    nxt = v + step if v + step <= control.max else v - step
    return [nxt, v] * (moves // 2)


def _draggable(control):
    return (isinstance(control.value, bool) or hasattr(control, "options")
            or (hasattr(control, "max") and isinstance(control.value, (int, float))))


def notebook_drags(moves, only):
    """Render time (draw + PNG) per move of a drag, with the panel's declarations (blitted) vs with
    nothing declared (every move drawn in full), for each notebook control."""
    from _notebook_panels import notebook_panels
    from attnlab.ui.panels.renderer import Blitter
    print(f"\nnotebook panels: render (draw + PNG) per move over a drag of {moves} moves (median; first move "
          "of a drag excluded), as declared vs every move drawn in full; blit = moves that blitted")
    print("  wall = render time on the clock; cpu = CPU time of the render (process_time), which a busy machine "
          "inflates far less")
    print(f"  {'panel':28s} {'control':12s} {'wall dec':>8s} {'wall all':>8s} {'cpu dec':>8s} {'cpu all':>8s} "
          f"{'all/dec':>8s} {'blit':>6s}  why full (most frequent)")
    ratios = []
    for nb in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        if only not in nb.name:
            continue
        for panel in notebook_panels(nb):
            declared = panel.blitter.moving if panel.blitter is not None else []
            cpu = []                       # CPU seconds of each render: less sensitive to a busy machine
            render = panel.png

            def timed_png(render=render, cpu=cpu):
                t0 = time.process_time()
                out = render()
                cpu.append(time.process_time() - t0)
                return out
            panel.png = timed_png
            for name, control in panel.controls.items():
                if not _draggable(control):
                    continue
                medians, cpus, blitted, whys = [], [], 0, collections.Counter()
                for moving in (declared, []):
                    panel.blitter = Blitter(panel.figure, moving)
                    n0, c0 = len(panel.timings), len(cpu)
                    values = _drag_values(control, moves)
                    for i, value in enumerate(values):
                        control.value = value
                        if moving is declared and i > 0:
                            blitted += panel.blitter.reason is None
                            if panel.blitter.reason is not None:        # grouped by reason, not by artist
                                whys[panel.blitter.reason.value[:60]] += 1
                    renders = [t[1] for t in panel.timings[n0 + 1:]]
                    medians.append(statistics.median(renders) * 1e3 if renders else float("nan"))
                    cpus.append(statistics.median(cpu[c0 + 1:]) * 1e3 if cpu[c0 + 1:] else float("nan"))
                panel.blitter = Blitter(panel.figure, declared)
                ratios.append(cpus[1] / cpus[0])
                why = whys.most_common(1)[0][0] if whys else ""
                print(f"  {panel.name[:28]:28s} {name[:12]:12s} {medians[0]:8.1f} {medians[1]:8.1f} {cpus[0]:8.1f} "
                      f"{cpus[1]:8.1f} {cpus[1] / cpus[0]:8.1f}x {blitted:>2d}/{len(values) - 1:<2d}  {why}", flush=True)
    if ratios:
        print(f"  median ratio (cpu) every move drawn in full / as declared over {len(ratios)} controls: "
              f"{statistics.median(ratios):.1f}x")


RUN = 5                       # presses in a row on one slider (bench_dashboards.RUN)


def _sliders(panel):
    """The panel's sliders (what the browser bench presses: ipywidgets' noUi sliders), in order."""
    return [(name, c) for name, c in panel.controls.items() if "Slider" in type(c).__name__]


def _key(control, left):
    """The value one arrow key gives (ipywidgets' slider: its own step; a log slider's step is in the
    exponent; a selection slider's is one option; a range slider's left handle), or None at the end."""
    kind = type(control).__name__
    if kind == "SelectionSlider":
        i = control.index + (-1 if left else 1)
        return control.options[i] if 0 <= i < len(control.options) else None
    value = control.value
    if isinstance(value, tuple):                          # a range slider: its first handle
        nxt = _key_number(control, value[0], left)
        return None if nxt is None or nxt > value[1] else (nxt, value[1])
    return _key_number(control, value, left)


def _key_number(control, value, left):
    import math
    step = control.step or 1
    if type(control).__name__ == "FloatLogSlider":
        e = math.log(value, control.base) + (-step if left else step)
        if not control.min - 1e-9 <= e <= control.max + 1e-9:
            return None
        return control.base ** e
    nxt = value - step if left else value + step
    if not control.min - 1e-9 <= nxt <= control.max + 1e-9:
        return None
    return type(value)(round(nxt, 12)) if isinstance(value, float) else nxt


def _instrument(panel, rec):
    """Wrap the panel's update, png, draw, encode and describe (on the instance) so that each adds its
    CPU seconds to rec[part]: what any version of Panel calls, so older trees are measured the same."""
    def timed(part, fn):
        def wrapper(*args, **kwargs):
            t0 = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                rec[part] = rec.get(part, 0.0) + time.process_time() - t0
        return wrapper
    panel.update = timed("update", panel.update)
    panel.png = timed("png", panel.png)
    if panel.blitter is not None:
        panel.blitter.draw = timed("draw", panel.blitter.draw)
    else:
        panel.figure.canvas.draw = timed("draw", panel.figure.canvas.draw)
    if hasattr(panel, "_encoder"):
        panel._encoder.encode = timed("encode", panel._encoder.encode)
    if getattr(panel, "describe", None) is not None:
        panel.describe = timed("describe", panel.describe)
    if hasattr(panel, "_run_later"):        # a move's second part (a Later's finish, run at once here)
        panel._run_later = timed("finish", panel._run_later)


def _key_moves(panels_, presses):
    """[(panel, control, value)] as the browser bench presses: RUN presses on one slider, the next
    slider, ...; the second pass over the sliders goes left (each at its end turns round)."""
    sliders = [(p, c) for p in panels_ for _, c in _sliders(p)]
    if not sliders:
        return sliders, 0
    return sliders, presses or 2 * RUN * len(sliders)


def keyboard_moves(only, runs, presses):
    """Per notebook: every slider moved by keys (see the module doc), CPU ms per move split by part."""
    from _notebook_panels import play_panels
    print(f"tree: {TREE} ({_commit(TREE)}); OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
          f"torch threads {torch.get_num_threads()}; {runs} runs per notebook, medians over runs")
    print("CPU ms per keyboard move (process_time): to the first picture (the move without a Later's finish) "
          "p50/p95, the whole move (with it) p95, then the median move's parts; wall p50/p95 of the whole move; "
          "blit = moves that blitted")
    print(f"  {'notebook':36s} {'moves':>5s} {'1st p50':>7s} {'1st p95':>7s} {'all p95':>7s} {'update':>6s} {'draw':>6s} "
          f"{'encode':>6s} {'descr':>6s} {'finish':>6s} {'rest':>6s} {'wall p50':>8s} {'wall p95':>8s} {'blit':>5s}")
    table = {}
    for nb in sorted((TREE / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        if only not in nb.name:
            continue
        per_run, floors = [], []
        for _ in range(runs):
            made = play_panels(nb)
            made = [p for p in made if _sliders(p)]
            recs = []
            sliders, n = _key_moves(made, presses)
            if not n:
                break
            current = {}
            for p in made:
                _instrument(p, current)
            for i in range(n):
                panel, control = sliders[(i // RUN) % len(sliders)]
                left = (i // RUN // len(sliders)) % 2 == 1
                value = _key(control, left)
                if value is None:
                    value = _key(control, not left)
                if value is None:
                    continue
                current.clear()
                blits0 = panel.blitter.blits if panel.blitter is not None else 0
                w0, c0 = time.perf_counter(), time.process_time()
                control.value = value
                c1, w1 = time.process_time(), time.perf_counter()
                rec = dict(current, total=c1 - c0, wall=w1 - w0,
                           blit=panel.blitter is not None and panel.blitter.blits > blits0)
                rec["encode"] = rec.get("encode", 0.0)
                rec["first"] = rec["total"] - rec.get("finish", 0.0)
                rec["rest"] = rec["first"] - rec.get("update", 0) - rec.get("png", 0) - rec.get("describe", 0)
                recs.append(rec)
            floors.append(_floors(made))
            widgets.Widget.close_all()
            per_run.append(recs)
        if not per_run:
            continue
        row = _summarise(per_run)
        row["floors"] = {name: [statistics.median(f[name][i] for f in floors if name in f) for i in range(3)]
                         for name in floors[0]}
        table[nb.name] = row
        print(f"  {nb.name[:36]:36s} {row['moves']:5d} {row['first_p50']:7.1f} {row['first_p95']:7.1f} "
              f"{row['cpu_p95']:7.1f} {row['update']:6.1f} {row['draw']:6.1f} {row['encode']:6.1f} {row['describe']:6.1f} "
              f"{row['finish']:6.1f} {row['rest']:6.1f} {row['wall_p50']:8.1f} {row['wall_p95']:8.1f} {row['blit']:5.0%}",
              flush=True)
    print("\nthe floor of a full draw, per panel: its Agg draw and the PNG encode of a whole new picture "
          "(CPU ms, medians of 5), and its size")
    for name, row in table.items():
        for panel, (draw, encode, pixels) in row["floors"].items():
            print(f"  {name[:24]:24s} {panel[:28]:28s} full draw {draw:6.1f}  encode {encode:5.1f}  {pixels / 1e3:5.0f} kpx")
    pooled = [r for row in table.values() for r in row["all"]]
    if pooled:
        print(f"  {'all notebooks together (whole moves)':36s} {len(pooled):5d} {_pct(pooled, 50):7.1f} {_pct(pooled, 95):7.1f}")
    return table


def _floors(made):
    """{panel name: [CPU ms of a full Agg draw, of encoding that whole picture afresh, pixels]} (medians of 5):
    what a move that draws in full cannot go below, whatever the panel declares."""
    import numpy as np

    out = {}
    for panel in made:
        PngEncoder = type(panel._encoder)              # the tree's own encoder (older trees: another module)
        canvas = panel.figure.canvas
        draws, encodes = [], []
        for _ in range(5):
            t0 = time.process_time()
            canvas.draw()
            t1 = time.process_time()
            PngEncoder().encode(np.asarray(canvas.buffer_rgba()))
            draws.append(t1 - t0)
            encodes.append(time.process_time() - t1)
        if panel.blitter is not None:
            panel.blitter.reset()            # the canvas was drawn behind its back
        w, h = canvas.get_width_height()
        out[panel.name] = [statistics.median(draws) * 1e3, statistics.median(encodes) * 1e3, w * h]
    return out


def _pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))] if values else float("nan")


def _summarise(per_run):
    """Medians over runs of each run's p50/p95 (total CPU, wall) and of each part's median (ms)."""
    def med(fn):
        return statistics.median(fn(recs) for recs in per_run)
    row = {"moves": len(per_run[0]),
           "cpu_p50": med(lambda r: _pct([x["total"] * 1e3 for x in r], 50)),
           "cpu_p95": med(lambda r: _pct([x["total"] * 1e3 for x in r], 95)),
           "first_p50": med(lambda r: _pct([x["first"] * 1e3 for x in r], 50)),
           "first_p95": med(lambda r: _pct([x["first"] * 1e3 for x in r], 95)),
           "wall_p50": med(lambda r: _pct([x["wall"] * 1e3 for x in r], 50)),
           "wall_p95": med(lambda r: _pct([x["wall"] * 1e3 for x in r], 95)),
           "blit": med(lambda r: sum(x["blit"] for x in r) / len(r)),
           "all": [x["total"] * 1e3 for x in per_run[len(per_run) // 2]]}
    for part in ("update", "draw", "encode", "describe", "finish", "rest"):
        row[part] = med(lambda r, part=part: statistics.median(x.get(part, 0.0) * 1e3 for x in r))
    return row


def _commit(tree):
    import subprocess
    out = subprocess.run(["git", "-C", str(tree), "log", "-1", "--format=%h %ad", "--date=short"],
                         capture_output=True, text=True)
    return out.stdout.strip() or "?"


if __name__ == "__main__":
    main()
