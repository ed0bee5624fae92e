"""The PNG encoder of the live panels (``panels.png_bytes``, ``panels.PngEncoder``) against PIL's, on the
figures the panels show: time per picture (median) and bytes, for PIL at compress level 1 (its fastest)
and at its default (6), and for ``PngEncoder`` fed the same picture again (what a blit that changed few
rows costs: every unchanged band reuses its bytes).

    .venv/bin/python bench/bench_png.py [--repeats 30]

The numbers quoted in ``png_bytes``'s docstring come from this script (see its output there).
"""
import argparse
import io
import statistics
import sys
from functools import partial
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np
import torch
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from attnlab.lessons import (
    nb02_scoring_functions as nb02,
    nb06_positional_encoding as nb06,
    nb07_masks_and_efficient_attention as nb07,
)
from attnlab.ui import panels
from bench_panel import median_ms  # one timing rule for the panel benches


def pil_png(rgba, level):
    buf = io.BytesIO()
    Image.fromarray(rgba, "RGBA").save(buf, format="PNG", compress_level=level)
    return buf.getvalue()


def figures():
    """(name, figure) of four Play panels at their notebook's starting values."""
    yield "02 scoring", nb02.play().figure
    yield "06 positional", nb06.play(n=60).figure
    yield "07 masks", nb07.play().figure
    yield "07 tiles", nb07.play_tiles(**dict(zip(("queries", "keys", "values"), nb07.toy_problem()))).figure


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"{'figure':14} {'pixels':>10} | {'ours ms':>8} {'PIL-1 ms':>8} {'PIL-6 ms':>8} {'again ms':>8} | "
          f"{'ours kB':>8} {'PIL-1 kB':>8} {'PIL-6 kB':>8} | {'speed-up vs PIL-1':>17} {'size vs PIL-1':>13}")
    ratios, sizes = [], []
    for name, fig in figures():
        fig.canvas.draw()
        rgba = np.asarray(fig.canvas.buffer_rgba()).copy()
        ours = panels.png_bytes(rgba)
        assert np.array_equal(np.asarray(Image.open(io.BytesIO(ours))), rgba)       # lossless
        p1, p6 = pil_png(rgba, 1), pil_png(rgba, 6)
        t_ours = median_ms(partial(panels.png_bytes, rgba), args.repeats)
        t_p1 = median_ms(partial(pil_png, rgba, 1), args.repeats)
        t_p6 = median_ms(partial(pil_png, rgba, 6), args.repeats)
        encoder = panels.PngEncoder()
        encoder.encode(rgba)
        t_again = median_ms(partial(encoder.encode, rgba), args.repeats)
        ratios.append(t_p1 / t_ours)
        sizes.append(len(ours) / len(p1))
        print(f"{name:14} {rgba.shape[1]}x{rgba.shape[0]:<5} | {t_ours:8.1f} {t_p1:8.1f} {t_p6:8.1f} {t_again:8.1f} | "
              f"{len(ours) / 1e3:8.1f} {len(p1) / 1e3:8.1f} {len(p6) / 1e3:8.1f} | "
              f"{t_p1 / t_ours:16.2f}x {len(ours) / len(p1) - 1:+12.1%}")
    print(f"median over the figures: {statistics.median(ratios):.2f}x faster than PIL at level 1, "
          f"{statistics.median(sizes) - 1:+.1%} in size")


if __name__ == "__main__":
    main()
