"""Notebook 12's Play panel, timed: the seconds a slider move takes from the new value to the new picture (the
panel's refresh: generation when it is needed, the update and the PNG), as a learner moves it.

    python bench/bench_nb12_live.py

Two kinds of move, each the median over its moves (a fresh panel, the notebook's starting values):
- a move that generates: temperature, top-k, top-p or seed to a value not seen before (100 new characters);
- a move of the step slider (replays a stored generation, generates nothing).
Prints the machine (cores, load average before and after): wall seconds grow with the load; CPU seconds
(this process) are what an idle core would take.
"""
import os
import platform
import statistics
import time

from attnlab.lessons.nb12_gpt import live

GENERATING = [("temperature", 0.5), ("top_k", 10), ("top_p", 0.7), ("seed", 5), ("temperature", 1.2),
              ("top_k", 0), ("top_p", 0.95), ("seed", 9), ("temperature", 0.3), ("top_k", 20)]
STEPS = [30, 31, 32, 50, 70, 71, 90, 100, 10, 1]


def timed(panel, name, value):
    t0, c0 = time.perf_counter(), time.process_time()
    panel.controls[name].value = value
    seconds = (time.perf_counter() - t0, time.process_time() - c0)
    if panel.error.value:
        raise RuntimeError(panel.error.value)
    return seconds


def main():
    load0 = os.getloadavg()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load average before {load0[0]:.2f}")
    panel = live.play(prompt="The attention weights ", temperature=0.8, top_k=None, top_p=0.9, seed=0, step=1)
    generating = [timed(panel, name, value) for name, value in GENERATING]
    stepping = [timed(panel, "step", step) for step in STEPS]
    for what, runs in (("a move that generates 100 characters", generating), ("a step move (no generation)", stepping)):
        wall, cpu = [w for w, _c in runs], [c for _w, c in runs]
        print(f"{what}: median {statistics.median(wall):.2f} s wall (min {min(wall):.2f}, max {max(wall):.2f}), "
              f"median {statistics.median(cpu):.2f} s CPU, {len(runs)} moves")
    print(f"load average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
