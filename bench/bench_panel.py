"""Cost of one live-panel refresh in the kernel: the callback (update artists) and the render
(figure -> PNG bytes for the Image widget), against the slower ways of rendering.

    .venv/bin/python bench/bench_panel.py [--repeats 40]

The browser side (bytes -> pixels) is measured by bench/bench_dashboards.py.
"""
import argparse
import io
import statistics
import sys
import time
from pathlib import Path

import ipywidgets as widgets
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from attnlab import panels, plotting  # noqa: E402


def median_ms(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def heatmap_panel(n=6):
    g = torch.Generator().manual_seed(0)
    scores = torch.randn(n, n, generator=g)
    labels = [f"t{i}" for i in range(n)]
    fig, ax = panels.new_figure(figsize=(5, 4))
    plotting.heatmap(torch.softmax(scores, -1), x_labels=labels, y_labels=labels, ax=ax)
    temperature = widgets.FloatSlider(value=1.0, min=0.05, max=5.0)

    def update(temperature):
        w = torch.softmax(scores / temperature, -1)
        plotting.update_heatmap(ax, w)
        return plotting.weights_summary(w, labels, labels)

    return panels.Panel(fig, {"temperature": temperature}, update), temperature


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=40)
    a = ap.parse_args()
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
    print("6x6 heatmap panel with annotations and colour bar, 5x4 in at 90 dpi "
          f"({len(panel.image.value) / 1024:.0f} KiB PNG), median of {a.repeats}:")
    print(f"  slider change -> new PNG bytes (whole refresh) {total:7.1f} ms")
    print(f"    callback (softmax + update artists + text)   {upd:7.1f} ms")
    print(f"    render: Agg draw + PIL PNG (level 1)         {ren:7.1f} ms   <- attnlab.panels")
    print("  alternatives for the render step:")
    print(f"    Agg draw alone (lower bound)                  {draw_only:7.1f} ms")
    print(f"    savefig PNG, compress level 1                 {savefig_fast:7.1f} ms")
    print(f"    savefig PNG, default compression              {savefig_default:7.1f} ms")


if __name__ == "__main__":
    main()
