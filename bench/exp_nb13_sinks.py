"""Notebook 13: in which settings of the Bigram-Backcopy task does the sink model grow a sink within the live
trainer's 1,500 steps? The lesson's task and model (attnlab.lessons.nb13_long_context.sinks) with the number of
symbols and the model's width changed, 3 seeds each; the larger head's weight on position 0 at ordinary positions
(sink_scores on 512 fresh sequences) after 1,000 and 1,500 steps.

    nice -n 5 python bench/exp_nb13_sinks.py [SYMBOLS WIDTH ...]     # default: 32 32, 128 64, 128 32

Each variant patches the module's constants (SYMBOLS, MODEL) and forgets its cached bigram table; the shipped
setting is 128 symbols, width 32. Prints one line per run (about 45 CPU seconds each here).
"""
import json
import sys
import time

from attnlab.lessons.nb13_long_context import sinks

SETTINGS = [(32, 32), (128, 64), (128, 32)]


def variant(symbols, width, seed):
    sinks.SYMBOLS = symbols
    sinks.MODEL = dict(sinks.MODEL, vocab_size=symbols + 1, d_model=width)
    sinks._TASK.clear()                                              # the bigram table and triggers, redrawn
    c0 = time.process_time()
    weights = []
    for row in sinks.run(1500, seed=seed):
        model = row["model"]
        if row["step"] in (1000, 1500):
            weights.append(float(sinks.sink_scores(model.eval(), sinks.sink_batch(512, seed=99)).max()))
    return {"symbols": symbols, "width": width, "seed": seed, "first-token weight at 1000": round(weights[0], 3),
            "at 1500": round(weights[1], 3), "cpu seconds": round(time.process_time() - c0, 1)}


def main(argv):
    settings = [(int(a), int(b)) for a, b in zip(argv[::2], argv[1::2])] or SETTINGS
    for symbols, width in settings:
        for seed in range(3):
            print(json.dumps(variant(symbols, width, seed)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
