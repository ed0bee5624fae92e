"""Notebook 14's Train button, timed: the default training (training.LIVE_STEPS steps, seed 0, training length 20)
of every encoding on one task and the accuracy-against-length curve drawn when it is done, the CPU and wall
seconds each took, and the accuracy it reached at the training length (on the probe the training curve shows).

    python bench/bench_nb14_live.py [TASK]      # default copy; writes nb14's checkpoints/live.json (the notebook prints it)

Records the machine (cores, load average before and after): wall seconds grow with the load, CPU seconds
(this process; the lesson trains on one thread) are what an idle core would take. Issue 54 asks for live training
within 60 s.
"""
import sys
import time

import live_record
from attnlab.lessons.nb14_length_generalisation import training
from attnlab.lessons.nb14_length_generalisation.checkpoints import LIVE
from attnlab.lessons.nb14_length_generalisation.live import PANEL_N
from attnlab.lessons.nb14_length_generalisation.measure import curve_unchecked
from attnlab.lessons.nb14_length_generalisation.model import ENCODINGS


def one(encoding, task):
    """The button's work: the training, then the curve its ``done`` draws (live.PANEL_N sequences per length)."""
    t0, c0 = time.perf_counter(), time.process_time()
    trained = training.train(encoding, task, steps=training.LIVE_STEPS, seed=0)
    c1 = time.process_time()
    lengths = sorted(set(training.CURVE["lengths"]) | {training.TRAIN_LENGTH})
    curve_unchecked(trained.model, task, lengths, PANEL_N, training.CURVE["seed"])
    return {"encoding": encoding, "task": task, "steps": training.LIVE_STEPS,
            "cpu seconds": round(time.process_time() - c0, 1), "training cpu seconds": round(c1 - c0, 1),
            "wall seconds": round(time.perf_counter() - t0, 1), "accuracy": round(trained.history["accuracy"][-1], 4)}


def main(task="copy"):
    live_record.record(LIVE, "python bench/bench_nb14_live.py " + task, lambda encoding: one(encoding, task), ENCODINGS)


if __name__ == "__main__":
    main(*sys.argv[1:2])
