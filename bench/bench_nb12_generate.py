"""Notebook 12's generation, timed: seconds per generated character against length, with and without the
KV cache, and 100 characters generated as one slider move would (the shipped model, prompt of 20
characters, temperature 0.8, top-k 20, top-p 0.9, one CPU thread).

    python bench/bench_nb12_generate.py

Prints the machine (cores, load average before and after; wall seconds grow with the load) and the
medians. Issue 36 asks that 100 characters on a slider move stay interactive.
"""
import os
import platform
import statistics
import time

import torch

from attnlab.lessons import nb12_gpt as lesson
from attnlab.lessons.nb12_gpt.timing import step_seconds

LENGTHS = (16, 32, 64, 128, 192, 255)
PROMPT = "The attention weights"[:20]


def main():
    load0 = os.getloadavg()
    model = lesson.pretrained()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__}, "
          f"load average before {load0[0]:.2f}")
    with_cache = step_seconds(model, LENGTHS, cache=True, repeats=7)
    without = step_seconds(model, LENGTHS, cache=False, repeats=7)
    print("length  with cache (ms)  without (ms)  ratio")
    for n, a, b in zip(LENGTHS, with_cache, without):
        print(f"{n:6d}  {1e3 * a:15.2f}  {1e3 * b:12.2f}  {b / a:5.1f}")
    for cache in (True, False):
        walls, cpus = [], []
        for seed in range(7):
            t0, c0 = time.perf_counter(), time.process_time()
            lesson.generate(model, PROMPT, 100, temperature=0.8, top_k=20, top_p=0.9, seed=seed, cache=cache)
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        print(f"100 characters, cache={cache}: median {statistics.median(walls):.3f} s wall, "
              f"{statistics.median(cpus):.3f} s CPU (7 runs)")
    print(f"load average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
