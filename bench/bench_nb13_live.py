"""Notebook 13's Train button, timed: a fresh sink model (sinks.run, the shipped settings) for 3 seeds, the steps and
seconds at which the larger head's first-token weight (measured every 25 steps on 128 fixed sequences) first passes
0.5, and the whole run of the button's default steps.

    python bench/bench_nb13_live.py      # writes nb13's checkpoints/live.json

Records the machine (cores, load average before and after): wall seconds grow with the load, CPU seconds (this
process; the lesson trains on one thread) are what an idle core would take. Issue 53 asks for live training within
60 s.
"""
import time

import live_record
from attnlab.lessons.nb13_long_context import sinks
from attnlab.lessons.nb13_long_context.checkpoints import HERE

SEEDS = range(3)
TARGET = 0.5
LIVE = HERE / "live.json"


def one(seed, steps=sinks.TRAIN["steps"]):
    t0, c0 = time.perf_counter(), time.process_time()
    found = {}
    row = None
    for row in sinks.run(steps, seed=seed):
        if not found and row["first-token weight"] >= TARGET:
            found.update(step=row["step"], wall=time.perf_counter() - t0, cpu=time.process_time() - c0)
    return {"seed": seed, "steps": steps, "first-token weight at the end": round(row["first-token weight"], 3),
            "step it passed 0.5": found.get("step"),
            "cpu seconds to 0.5": round(found.get("cpu", float("nan")), 1),
            "wall seconds to 0.5": round(found.get("wall", float("nan")), 1),
            "cpu seconds": round(time.process_time() - c0, 1), "wall seconds": round(time.perf_counter() - t0, 1)}


def main():
    live_record.record(LIVE, "python bench/bench_nb13_live.py", one, SEEDS,
                       **{"target": TARGET, "measured every": sinks.TRAIN["measure_every"]})


if __name__ == "__main__":
    main()
