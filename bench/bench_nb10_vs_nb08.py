"""Notebook 10's Transformer against notebook 08's Bahdanau GRU on 08's format ("7 mar 1994").

    nice -n 19 python bench/bench_nb10_vs_nb08.py    # writes "bahdanau" into nb10's checkpoints/results.json

A tool may import two lessons; a lesson or a notebook may not, so notebook 10 shows what this stored.

1. Both as shipped: exact match on the held-out dates of 08's format, parameters, and the CPU seconds
   (one thread) to translate them.
2. Both trained here from scratch with fixed seeds, each with its own lesson's training and settings:
   08's GRU + additive attention as its checkpoint was trained (nb08.train_steps: 300 steps of 64
   dates, Adam lr 1e-2, init seed 0, data seed 1); 10's Transformer as its shipped model was trained
   (nb10.run: 4000 steps of 128 dates, AdamW lr 3e-3 one-cycle, seed 0), but on 08's format only.
   Every EVERY steps, both are measured on the same held-out dates (nb10's test split, 08's format).
   CPU seconds (time.process_time, one thread) and wall seconds count training only: the measuring
   in between is timed apart and left out. Wall seconds grow with the machine's load (recorded);
   CPU seconds are what one idle core would take.

08 has no held-out split: its training dates may include held-out ones. The share of the held-out
dates 08's 300 steps contain, and the GRU's exact match on those it never saw, are stored too.
"""
import json
import os
import platform
import time

import torch

from attnlab.lessons import nb08_bahdanau_attention as nb08, nb10_encoder_decoder as nb10
from attnlab.lessons.nb08_bahdanau_attention import seq2seq as nb08_seq2seq
from attnlab.lessons.nb10_encoder_decoder import data as nb10_data, model as nb10_model, training as nb10_training
from attnlab.ui.trainer import one_thread

FORMAT = "d mon yyyy"             # 08's format
EVERY = 25                        # steps between two measurements of held-out exact match
GRU = dict(steps=300, batch_size=64, lr=1e-2, init_seed=0, data_seed=1)            # as nb08's _main
TRANSFORMER = dict(steps=nb10_training.SHIPPED_STEPS, seed=0, **nb10_training.DEFAULTS)     # as the shipped model
GRU_NAME, TRANSFORMER_NAME = "Bahdanau GRU (08)", "Transformer (10)"


def exact_match(outputs, pairs):
    return sum(o == t for o, (_s, t) in zip(outputs, pairs)) / len(pairs)


def as_shipped(pairs):
    sources = [s for s, _t in pairs]
    rows = {}
    gru = nb08.pretrained("additive")
    c0 = time.process_time()
    outputs, _w = nb08.translate(gru, sources)
    rows[GRU_NAME] = {"exact match": exact_match(outputs, pairs),
                      "parameters": sum(p.numel() for p in gru.parameters()),
                      "training steps": 300, "formats trained on": 1,
                      "translate cpu seconds": round(time.process_time() - c0, 2)}
    model = nb10.pretrained()
    c0 = time.process_time()
    outputs = nb10.translate(model, sources)
    rows[TRANSFORMER_NAME] = {"exact match": exact_match(outputs, pairs), "parameters": nb10.parameters(model),
                              "training steps": nb10.measured()["steps"], "formats trained on": len(nb10_data.FORMATS),
                              "translate cpu seconds": round(time.process_time() - c0, 2)}
    return rows


def timed_curve(steps, measure, total):
    """Drive a training generator ``steps`` (one step per next()); every EVERY steps and at the last, call
    measure() -> exact match. Training time only: the measuring is timed apart.
    -> (curve dict, the last thing the generator yielded)."""
    curve = {"steps": [], "exact match": [], "cpu seconds": [], "wall seconds": []}
    cpu = wall = 0.0
    row = None
    for step in range(1, total + 1):
        c0, w0 = time.process_time(), time.perf_counter()
        row = next(steps)
        cpu += time.process_time() - c0
        wall += time.perf_counter() - w0
        if step % EVERY == 0 or step == total:
            curve["steps"].append(step)
            curve["exact match"].append(round(measure(), 4))
            curve["cpu seconds"].append(round(cpu, 2))
            curve["wall seconds"].append(round(wall, 2))
            print(step, curve["exact match"][-1], curve["cpu seconds"][-1], flush=True)
    return curve, row


def first_at(curve, level=0.99):
    """(step, cpu seconds) of the first measurement at or above ``level``, or (None, None)."""
    for step, acc, cpu in zip(curve["steps"], curve["exact match"], curve["cpu seconds"]):
        if acc >= level:
            return step, cpu
    return None, None


def train_gru(pairs):
    sources = [s for s, _t in pairs]
    model = nb08_seq2seq.DateTranslator("additive", seed=GRU["init_seed"])
    steps = nb08_seq2seq.train_steps(model, GRU["steps"], batch_size=GRU["batch_size"], lr=GRU["lr"], seed=GRU["data_seed"])
    curve, _loss = timed_curve(steps, lambda: exact_match(nb08.translate(model, sources)[0], pairs), GRU["steps"])
    # 08 trains on nb08.random_dates(steps * batch_size, seed) with no held-out split
    seen = {t for _s, t in nb08.random_dates(GRU["steps"] * GRU["batch_size"], seed=GRU["data_seed"])}
    unseen = [p for p in pairs if p[1] not in seen]
    curve["held-out dates seen in training"] = round(1 - len(unseen) / len(pairs), 4)
    curve["exact match on the unseen ones"] = round(exact_match(nb08.translate(model, [s for s, _ in unseen])[0],
                                                                unseen), 4)
    curve["parameters"] = sum(p.numel() for p in model.parameters())
    curve["settings"] = dict(GRU, formats=[FORMAT], training="nb08.train_steps")
    return curve


def train_transformer(pairs):
    cfg = TRANSFORMER
    # eval_every beyond the last step: run() then measures (all formats) only at the last step, timed here
    steps = nb10_training.run(cfg["steps"], seed=cfg["seed"], eval_every=cfg["steps"] + 1, formats=(FORMAT,),
                     batch_size=cfg["batch_size"], lr=cfg["lr"])
    holder = {}

    def measure():
        return nb10.accuracy(holder["model"], pairs)["all"]

    def remember(gen):
        for row in gen:
            holder["model"] = row["model"]
            yield row

    curve, _row = timed_curve(remember(steps), measure, cfg["steps"])
    model = holder["model"]
    c0 = time.process_time()
    nb10.accuracy(model)                            # the same measurement run() made at its last step
    curve["of which run()'s own measuring at the last step, cpu seconds"] = round(time.process_time() - c0, 2)
    curve["parameters"] = nb10.parameters(model)
    curve["settings"] = dict(cfg, formats=[FORMAT], training="nb10.run", config=model.config)
    return curve


def main():
    pairs = [p for p in nb10_data.test_dates() if nb10.format_of(p[0]) == FORMAT]
    load_before = os.getloadavg()
    with one_thread():
        rows = as_shipped(pairs)
        curves = {GRU_NAME: train_gru(pairs), TRANSFORMER_NAME: train_transformer(pairs)}
    for curve in curves.values():
        step, cpu = first_at(curve)
        curve["first at >= 0.99"] = {"step": step, "cpu seconds": cpu}
    results = json.loads(nb10_model.RESULTS.read_text())
    results["bahdanau"] = {
        "dates": len(pairs), "format": FORMAT, "command": "nice -n 19 python bench/bench_nb10_vs_nb08.py",
        "models": rows, "every": EVERY, "curves": curves,
        "machine": {"cores": os.cpu_count(), "processor": platform.processor() or platform.machine(),
                    "threads": 1, "nice": os.nice(0),
                    "load average before (1, 5, 15 min)": [round(x, 2) for x in load_before],
                    "load average after": [round(x, 2) for x in os.getloadavg()], "torch": torch.__version__},
    }
    nb10_model.RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps({k: v for k, v in results["bahdanau"].items() if k != "curves"}, indent=1))
    for name, curve in curves.items():
        print(name, curve["parameters"], curve["first at >= 0.99"], curve["cpu seconds"][-1], curve["wall seconds"][-1])


if __name__ == "__main__":
    main()
