"""Cost of one live-panel refresh in the kernel: the callback (update artists) and the render
(figure -> PNG bytes for the Image widget), against the slower ways of rendering; then, for every
live panel in the notebooks, the render of a drag (moves in a row on one slider) with blitting
(the default) and with every move drawn in full.

    .venv/bin/python bench/bench_panel.py [--repeats 40] [--moves 12] [--only 03] [--notebooks-only]

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

import ipywidgets as widgets
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
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
    a = ap.parse_args()
    print("load average (1, 5, 15 min): " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
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


if __name__ == "__main__":
    main()
