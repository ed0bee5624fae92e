"""Time and peak extra memory against sequence length for dense, local, linear and tiled attention
(CPU, float32, B = H = 1, d = 64). Each measurement runs in a fresh process, so peak memory is
that call's alone.

    .venv/bin/python bench/bench_efficient.py [--lengths 512 1024 2048 4096 8192 16384] [--repeats 3]

  dense     al.scaled_dot_product_attention (need_weights=True): builds the Tq x Tk weights
  fused     al.scaled_dot_product_attention (need_weights=False): torch's fused kernel
  local     dense + al.local_mask(window=64): the same cost as dense; a mask alone saves nothing
  linear    al.linear_attention: O(T d^2), approximates softmax attention
  tiled     al.tiled_attention (block 128): exact, never builds Tq x Tk
Peak extra memory = peak RSS (VmHWM, reset just before) - RSS before the timed calls, after a warm-up call.
"""
import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
METHODS = ("dense", "fused", "local", "linear", "tiled")


def child(method, L, repeats):
    """Run in a fresh process: time `method` at length L and report peak extra RSS."""
    import torch

    sys.path.insert(0, str(ROOT))
    import attnlab as al

    torch.set_num_threads(2)
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, L, 64, generator=g) for _ in range(3))
    mask = al.local_mask(L, L, 64) if method == "local" else None
    calls = {
        "dense": lambda: al.scaled_dot_product_attention(q, k, v)[0],
        "fused": lambda: al.scaled_dot_product_attention(q, k, v, need_weights=False)[0],
        "local": lambda: al.scaled_dot_product_attention(q, k, v, mask)[0],
        "linear": lambda: al.linear_attention(q, k, v),
        "tiled": lambda: al.tiled_attention(q, k, v, block_size=128),
    }
    fn = calls[method]
    with torch.inference_mode():
        fn()                                          # warm-up: thread pools, lazy inits
    _reset_peak()
    before = _status_mib("VmRSS")
    times = []
    with torch.inference_mode():
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t0)
            del out
    peak = _status_mib("VmHWM")
    print(json.dumps({"method": method, "L": L, "ms": statistics.median(times) * 1e3,
                      "extra_mib": max(0.0, peak - before)}))


def _reset_peak():
    """Linux: writing 5 to clear_refs resets the peak RSS (VmHWM) to the current RSS."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _status_mib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lengths", type=int, nargs="+", default=[512, 1024, 2048, 4096, 8192, 16384])
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--child", nargs=2, metavar=("METHOD", "L"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.child[0], int(a.child[1]), a.repeats)
        return
    print("CPU float32, B = H = 1, d = 64, 2 threads; median ms and peak extra MiB (fresh process each)")
    print(f"{'L':>6} " + " ".join(f"{m + ' ms':>11} {m + ' MiB':>11}" for m in a.methods))
    results = {}
    for L in a.lengths:
        row = []
        for m in a.methods:
            out = subprocess.run([sys.executable, __file__, "--child", m, str(L), "--repeats", str(a.repeats)],
                                 capture_output=True, text=True, check=True).stdout
            r = json.loads(out.strip().splitlines()[-1])
            results[(m, L)] = r
            row.append(f"{r['ms']:>11.1f} {r['extra_mib']:>11.1f}")
        print(f"{L:>6} " + " ".join(row), flush=True)
    if "dense" in a.methods:
        for m in [m for m in a.methods if m != "dense"]:
            ratios = ", ".join(f"{L}: {results[(m, L)]['ms'] / results[('dense', L)]['ms']:.2f}x"
                               for L in a.lengths)
            print(f"{m} time / dense time at L = {ratios}")
        if "tiled" in a.methods:
            L = max(a.lengths)
            ratio = results[("tiled", L)]["extra_mib"] / max(results[("dense", L)]["extra_mib"], 1e-9)
            print(f"tiled peak extra memory at L = {L}: {100 * ratio:.1f}% of dense (target <= 5%)")


if __name__ == "__main__":
    main()
