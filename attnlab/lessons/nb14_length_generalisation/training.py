"""Training one model of notebook 14 on one task: AdamW, a one-cycle learning rate (a short warm-up, then a cosine
decay), batches of fresh sequences whose length is drawn for each step from half the training length to the
training length (TRAIN_LENGTH for the shipped models), one CPU thread. The same seed gives the same model on every
machine. ``retrain_and_measure`` (python -m attnlab.lessons.nb14_length_generalisation) trains and measures the
shipped runs.
"""
from typing import NamedTuple

import torch
from torch.nn import functional as F

from ...core import checks
from ...ui.trainer import one_thread, run_to_end
from .data import MIN_LENGTH, TASKS, TRAIN_LENGTH, batch_unchecked
from .model import ENCODINGS, Decoder, run_unchecked

__all__ = ["CURVE", "DEFAULTS", "EVERY", "LIVE_STEPS", "MAX_TRAIN_LENGTH", "PROBE", "SEEDS", "SHIPPED_STEPS", "Trained",
           "loss_and_right", "probe", "retrain_and_measure", "run", "train"]

DEFAULTS = dict(batch_size=64, lr=3e-3, weight_decay=0.01, warmup=0.1)
SHIPPED_STEPS = 800
LIVE_STEPS = 800
EVERY = 50                      # steps between two measurements of the probe's accuracy
PROBE = dict(n=256, seed=12345)  # the held-out batch the training curve is measured on, at the training length
MAX_TRAIN_LENGTH = 40           # the live trainer's longest training length
SEEDS = (0, 1, 2)               # the shipped runs of each task and encoding (seed 0's model is shipped)
# The curves' lengths, and the sequences each point is measured on (data seeds CURVE["seed"] + length)
CURVE = dict(lengths=(5, 10, 15, 20, 25, 30, 40, 50, 60, 70, 80), n=500, seed=1000)
_PROBES = {}


class Trained(NamedTuple):
    """What ``train`` returns: the model (eval mode), the history {name: [floats per step]} and the seconds
    {"wall", "cpu"} it took."""
    model: Decoder
    history: dict
    seconds: dict


def probe(task, length):
    """The fixed held-out batch (PROBE) of ``task`` at ``length``, made once."""
    key = (task, length)
    if key not in _PROBES:
        _PROBES[key] = batch_unchecked(task, PROBE["n"], length, torch.Generator().manual_seed(PROBE["seed"]))
    return _PROBES[key]


def loss_and_right(model, b, scale=1.0):
    """The cross-entropy over ``b``'s scored tokens and how many of them the argmax gets right (a tensor and
    an int). Row t of the logits predicts token t + 1, so targets[:, 1:] picks the rows that count."""
    logits = run_unchecked(model, b.tokens, scale)[0][:, :-1]                 # (B, T-1, V)
    scored = b.targets[:, 1:]                                                  # (B, T-1)
    answers = b.tokens[:, 1:][scored]
    loss = F.cross_entropy(logits[scored], answers)
    return loss, int((logits[scored].argmax(-1) == answers).sum())


@checks.arguments(encoding=checks.Choice(ENCODINGS), task=checks.Choice(TASKS), steps=checks.Int(1, 100_000),
                  seed=checks.Int(0), length=checks.Int(2 * MIN_LENGTH, MAX_TRAIN_LENGTH), every=checks.Int(1, 100_000))
def run(encoding, task, steps, *, seed=0, length=TRAIN_LENGTH, every=EVERY):
    """Train a fresh model, one step per ``next()``: yields {"loss", "accuracy" (on the probe at ``length``,
    measured every ``every`` steps and at the last), "model"}; returns the model in eval mode."""
    o = DEFAULTS
    model = Decoder(encoding, seed=seed, max_length=length)
    optimizer = torch.optim.AdamW(model.parameters(), lr=o["lr"], weight_decay=o["weight_decay"])
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=o["lr"], total_steps=steps,
                                                   pct_start=o["warmup"])
    generator = torch.Generator().manual_seed(seed + 1)
    held_out, accuracy = probe(task, length), 0.0
    for step in range(steps):
        n = int(torch.randint(length // 2, length + 1, (1,), generator=generator))
        b = batch_unchecked(task, o["batch_size"], n, generator)
        with one_thread():
            model.train()
            loss = loss_and_right(model, b)[0]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
        if (step + 1) % every == 0 or step + 1 == steps:
            with one_thread(), torch.no_grad():
                model.eval()
                accuracy = loss_and_right(model, held_out)[1] / int(held_out.targets[:, 1:].sum())
        yield {"loss": loss.item(), "accuracy": accuracy, "model": model}
    return model.eval()


def train(encoding, task, *, steps=SHIPPED_STEPS, seed=0, length=TRAIN_LENGTH, on_step=None):
    """Train a fresh model to the end: Trained(model, history, seconds). ``length``: the longest training
    sequence (a learned model gets that many position vectors). ``on_step(row)`` is called after each
    step; a return value of False stops the training there (the model keeps what it learnt)."""
    checks.Optional(checks.Function())(on_step, "on_step")
    gen = run(encoding, task, steps, seed=seed, length=length)
    if on_step is None:
        return Trained(*run_to_end(gen))

    def watched():
        row = None
        for row in gen:
            yield row
            if on_step(row) is False:
                break
        return row["model"].eval()
    return Trained(*run_to_end(watched()))


def retrain_and_measure(seeds=SEEDS, steps=SHIPPED_STEPS):
    """Train every task x encoding x seed, measure the accuracy against the length (and RoPE's with position
    interpolation), save seed 0's models and write results.json: python -m attnlab.lessons.nb14_length_generalisation"""
    import json
    import os
    import platform
    import time

    from .checkpoints import RESULTS, checkpoint
    from .measure import curve_unchecked
    from .model import MODEL
    results = {"command": "python -m attnlab.lessons.nb14_length_generalisation", "train length": TRAIN_LENGTH,
               "steps": steps, "seeds": list(seeds), "model": MODEL, "training": DEFAULTS, "curve": CURVE,
               "machine": {"cores": os.cpu_count(), "processor": platform.processor() or platform.machine(),
                           "torch": torch.__version__, "load average before": [round(x, 2) for x in os.getloadavg()]},
               "runs": {}}
    c_all, t_all = time.process_time(), time.perf_counter()
    for task in TASKS:
        for encoding in ENCODINGS:
            entry = results["runs"].setdefault(task, {}).setdefault(encoding, {})
            for seed in seeds:
                t0, c0 = time.perf_counter(), time.process_time()
                model, history, _ = run_to_end(run(encoding, task, steps, seed=seed))
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                state = {k: v.half() for k, v in model.state_dict().items()}          # what a checkpoint holds
                model.load_state_dict({k: v.float() for k, v in state.items()})      # measured as shipped
                curve = curve_unchecked(model, task, CURVE["lengths"], CURVE["n"], CURVE["seed"])
                row = {"curve": {str(k): round(v, 4) for k, v in curve.items()},
                       "probe accuracy": round(history["accuracy"][-1], 4),
                       "cpu seconds": round(cpu, 1), "wall seconds": round(wall, 1)}
                if encoding == "rope":
                    pi = curve_unchecked(model, task, CURVE["lengths"], CURVE["n"], CURVE["seed"], interpolate=True,
                                         train_length=TRAIN_LENGTH)
                    row["interpolated"] = {str(k): round(v, 4) for k, v in pi.items()}
                entry[str(seed)] = row
                print(task, encoding, seed, row, flush=True)
                if seed == seeds[0]:
                    torch.save({"config": model.config, "state": state}, checkpoint(task, encoding))
            RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    results["cpu seconds"] = round(time.process_time() - c_all, 1)
    results["wall seconds"] = round(time.perf_counter() - t_all, 1)
    results["machine"]["load average after"] = [round(x, 2) for x in os.getloadavg()]
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    return results
