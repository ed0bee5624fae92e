"""Training the attention-only model on repeats: AdamW, batches of fresh random repeats every step."""
import torch

from ...core import checks
from ...ui.trainer import one_thread, run_to_end
from .circuits import scores_of
from .data import LENGTHS, repeats_unchecked
from .model import AttentionOnly, _run, accuracy

__all__ = ["DEFAULTS", "run", "train"]

DEFAULTS = dict(width=64, heads=4, positions="learned", lr=1e-3, batch_size=64, weight_decay=0.01)
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
            logits = _run(model, batch.tokens, need_weights=False)[0]
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
                row["scores"] = scores_of(_run(model, batch_probe.tokens, True)[1], batch_probe.lengths)
        row["accuracy"] = acc
        yield row
    return model.eval()


def train(steps, *, layers=2, seed=0, on_step=None, **options):
    """Run to the end: (model, history, seconds). ``on_step(row)`` is called after each step; a return
    value of False stops the training there (the model keeps what it learnt)."""
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
