"""attnlab's kernels against torch's own on the same inputs (CPU, float32).

    .venv/bin/python bench/bench_kernels.py [--repeats 30] [--lengths 256 1024]

Reports medians (ms) and the attnlab/torch ratio for
  fused:    al.scaled_dot_product_attention(need_weights=False)  vs  F.scaled_dot_product_attention
  weighted: al.scaled_dot_product_attention(need_weights=True)   vs  softmax(QKᵀ/√d)V written plainly
Targets: fused ≤ 1.1×, weighted ≤ 1.5×. Calls are interleaved so drifts in machine load hit both.
"""
import argparse
import math
import statistics
import sys
import time
from functools import partial
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import attnlab as al


def plain(q, k, v):
    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1) @ v


def interleaved_medians(fns, repeats, warmup=3):
    for fn in fns:
        for _ in range(warmup):
            fn()
    times = [[] for _ in fns]
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            times[i].append(time.perf_counter() - t0)
    return [statistics.median(t) * 1e3 for t in times]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--lengths", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--threads", type=int, default=torch.get_num_threads())
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    B, H, d = 4, 8, 64
    print(f"torch {torch.__version__}, CPU threads {a.threads}, float32, B={B} H={H} d={d}, "
          f"median of {a.repeats}")
    print(f"{'L':>6} {'path':>9} {'attnlab ms':>11} {'torch ms':>9} {'ratio':>6} {'target':>7}")
    ok = True
    g = torch.Generator().manual_seed(0)
    with torch.inference_mode():
        for L in a.lengths:
            q, k, v = (torch.randn(B, H, L, d, generator=g) for _ in range(3))
            rows = [
                ("fused", partial(al.scaled_dot_product_attention, q, k, v, need_weights=False),
                 partial(torch.nn.functional.scaled_dot_product_attention, q, k, v), 1.1),
                ("weighted", partial(al.scaled_dot_product_attention, q, k, v), partial(plain, q, k, v), 1.5),
            ]
            for name, ours, theirs, target in rows:
                t_ours, t_theirs = interleaved_medians([ours, theirs], a.repeats)
                ratio = t_ours / t_theirs
                ok &= ratio <= target
                print(f"{L:>6} {name:>9} {t_ours:>11.2f} {t_theirs:>9.2f} {ratio:>6.2f} {'≤' + str(target):>7}"
                      f"{'' if ratio <= target else '  MISSED'}")
    print("all targets met" if ok else "some targets missed")


if __name__ == "__main__":
    main()
