"""Training the attention-only model on repeats: AdamW, batches of fresh random repeats every step."""
import torch

from ...core import checks
from ...ui.trainer import one_thread, run_to_end
from .circuits import scores_of
from .data import LENGTHS, repeats_unchecked
from .model import AttentionOnly, accuracy, run_unchecked

__all__ = ["DEFAULTS", "EVERY", "EXAMPLE_SEED", "SECONDS_PER_STEP", "SHIPPED_STEPS", "example", "length_table", "probe", "retrain_and_measure", "run", "train"]

DEFAULTS = dict(width=64, heads=4, positions="learned", lr=1e-3, batch_size=64, weight_decay=0.01)
SECONDS_PER_STEP = 0.045       # CPU seconds per step of the 2-layer model (bench/bench_nb11_live.py: 38-52 s to step 900-1200)
_PROBE = {}


def probe():
    """The fixed held-out batch the training curves are measured on (512 repeats, seed 12345)."""
    if "batch" not in _PROBE:
        _PROBE["batch"] = repeats_unchecked(512, *LENGTHS, torch.Generator().manual_seed(12345))
    return _PROBE["batch"]


@checks.arguments(steps=checks.Int(1, 100_000), layers=checks.Int(1, 4), seed=checks.Int(0),
                  every=checks.Int(1, 100_000), lengths=checks.Items(checks.Int(2, 23), min_len=2, max_len=2))
def run(steps, *, layers=2, seed=0, every=50, lengths=LENGTHS, **options):
    """Train a fresh model, one step per ``next()``: yields {"loss", "accuracy" (on the probe's
    predictable positions, measured every ``every`` steps), "model"} and, every ``every`` steps,
    "scores" (previous-token, induction) too; returns the model in eval mode."""
    opts = dict(DEFAULTS, **options)
    model = AttentionOnly(layers=layers, width=opts["width"], heads=opts["heads"], positions=opts["positions"],
                          seed=seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=opts["lr"], weight_decay=opts["weight_decay"])
    generator = torch.Generator().manual_seed(seed + 1)
    batch_probe, acc = probe(), 0.0
    for step in range(steps):
        batch = repeats_unchecked(opts["batch_size"], lengths[0], lengths[1], generator)
        with one_thread():
            model.train()
            logits = run_unchecked(model, batch.tokens, need_weights=False)[0]
            loss = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]),
                                                     batch.tokens[:, 1:].reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        row = {"loss": loss.item(), "model": model}
        if (step + 1) % every == 0 or step + 1 == steps:
            with one_thread(), torch.no_grad():
                model.eval()
                acc = accuracy(model, batch_probe)
                row["scores"] = scores_of(run_unchecked(model, batch_probe.tokens, True)[1], batch_probe.lengths)
        row["accuracy"] = acc
        yield row
    return model.eval()


def train(steps, *, layers=2, seed=0, on_step=None, **options):
    """Run to the end: (model, history, seconds). ``on_step(row)`` is called after each step; a return
    value of False stops the training there (the model keeps what it learnt)."""
    checks.Optional(checks.Function())(on_step, "on_step")
    if on_step is None:
        return run_to_end(run(steps, layers=layers, seed=seed, **options))

    def watched():
        gen = run(steps, layers=layers, seed=seed, **options)
        for row in gen:
            yield row
            if on_step(row) is False:
                return row["model"].eval()
        return row["model"].eval()
    return run_to_end(watched())


SHIPPED_STEPS = 2500
EVERY = 50                      # steps between two measurements (curves, scores, snapshots)
EXAMPLE_SEED = 2024             # the one sequence whose attention patterns the snapshots keep


def example():
    """The sequence the snapshot slider shows: one repeat of L = 10."""
    return repeats_unchecked(1, 10, 10, torch.Generator().manual_seed(EXAMPLE_SEED))


def length_table(model, lengths=range(2, 24), n=500, seed=99):
    """{L: accuracy on the predictable positions of n repeats of exactly L}."""
    return {L: round(accuracy(model, repeats_unchecked(n, L, L, torch.Generator().manual_seed(seed + L))), 4)
            for L in lengths}


def _shipped_run(steps, layers, seed, **options):
    """Train, keeping the curves, the scores and the example's attention patterns every EVERY steps."""
    ex, curves, snapshots = example(), {"step": [], "loss": [], "accuracy": [], "previous_token": [], "induction": []}, []
    losses = []
    gen = run(steps, layers=layers, seed=seed, every=EVERY, **options)
    while True:
        try:
            row = next(gen)
        except StopIteration as stop:
            model = stop.value
            break
        losses.append(row["loss"])
        if "scores" in row:
            curves["step"].append(len(losses))
            curves["loss"].append(round(sum(losses[-EVERY:]) / len(losses[-EVERY:]), 4))
            curves["accuracy"].append(round(row["accuracy"], 4))
            curves["previous_token"].append([[round(v, 4) for v in r] for r in row["scores"].previous_token.tolist()])
            curves["induction"].append([[round(v, 4) for v in r] for r in row["scores"].induction.tolist()])
            snapshots.append(torch.stack(row["model"].attention(ex.tokens[:, :2 * 10 + 1]))[:, 0].half())
    return model, curves, torch.stack(snapshots)


def retrain_and_measure(steps=SHIPPED_STEPS):
    """Retrain the shipped models and measure them: python -m attnlab.lessons.nb11_induction_heads"""
    import json
    import platform
    import time

    from .checkpoints import CHECKPOINTS, RESULTS, SNAPSHOTS
    from .circuits import k_composition, scores
    from .data import repeats
    from .model import ablate
    held_out = repeats(2000, seed=777)
    results = {"command": "python -m attnlab.lessons.nb11_induction_heads", "steps": steps,
               "machine": platform.processor() or platform.machine(), "torch": torch.__version__}
    runs = {"two_layer": dict(layers=2), "one_layer": dict(layers=1), "rope": dict(layers=2, positions="rope"),
            "fixed_length": dict(layers=2, lengths=(12, 12))}
    for name, kwargs in runs.items():
        t0, c0 = time.perf_counter(), time.process_time()
        model, curves, snaps = _shipped_run(steps, seed=0, **kwargs)
        s = scores(model, held_out)
        entry = {"config": model.config, "lengths": list(kwargs.get("lengths", LENGTHS)),
                 "held-out accuracy": round(accuracy(model, held_out), 4),
                 "previous_token": [[round(v, 4) for v in r] for r in s.previous_token.tolist()],
                 "induction": [[round(v, 4) for v in r] for r in s.induction.tolist()],
                 "by length": length_table(model), "curves": curves,
                 "wall seconds": round(time.perf_counter() - t0, 1), "cpu seconds": round(time.process_time() - c0, 1)}
        if model.config["layers"] == 2:
            entry["k_composition"] = [[round(v, 4) for v in r] for r in k_composition(model).tolist()]
            entry["ablations"] = {f"{layer}.{head}": round(accuracy(ablate(model, layer, head), held_out), 4)
                                  for layer in range(2) for head in range(model.config["heads"])}
        results[name] = entry
        print(name, {k: v for k, v in entry.items() if k not in ("curves", "by length")}, flush=True)
        torch.save({"config": model.config, "state": {k: v.half() for k, v in model.state_dict().items()}},
                   CHECKPOINTS[name])
        if name == "two_layer":
            torch.save({"tokens": example().tokens[0, :21], "steps": curves["step"], "patterns": snaps}, SNAPSHOTS)
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")
