"""Training the date Transformer on the CPU, with teacher forcing or free running.

Teacher forcing (强制教学): the decoder's input at position t is the TRUE character t-1, so all
positions train in one parallel pass. Free running: its input is the model's OWN previous guess (as at
test time), found by greedy decoding first; early in training those guesses are wrong, and every
later position learns from a wrong prefix.
"""

import torch

from ...core import checks
from ...i18n import N_
from ...ui.trainer import one_thread, run_to_end
from . import data
from .model import DateTransformer, greedy

__all__ = [
    "DEFAULTS", "LIVE", "LIVE_SECONDS_PER_STEP", "LIVE_STEPS", "SHIPPED_STEPS", "accuracy",
    "compare_teacher_forcing", "retrain_and_measure", "run", "test_split", "train"
]

DEFAULTS = dict(batch_size=128, lr=3e-3)
SHIPPED_STEPS = 4000
# The Train button's model: smaller and trained faster, so that it reaches >= 99% held-out exact match
# in about a minute of one CPU core (measured by bench/bench_nb10_live.py; the shipped model is bigger).
LIVE = dict(num_hiddens=32, num_heads=4, num_layers=1, ffn_hiddens=64, lr=1e-2, batch_size=128)
LIVE_STEPS = 1600
LIVE_SECONDS_PER_STEP = 0.052         # CPU seconds per step of the live model, evaluation included
_STEPS = checks.Int(1, 100_000)
_OPTION_SPECS = {"batch_size": checks.Int(1, 4096), "lr": checks.Real(positive=True, high=1.0)}
_TEST = {}


def test_split():
    """The held-out split, encoded once: (pairs, src ids, valid_lens)."""
    if "test" not in _TEST:
        pairs = data.test_dates()
        src, valid = data.encode_sources([s for s, _ in pairs])
        _TEST["test"] = pairs, src, valid
    return _TEST["test"]


@checks.arguments(model=checks.Instance(DateTransformer, "a DateTransformer (e.g. pretrained())"),
                   pairs=checks.Optional(checks.Items(min_len=1)))
def accuracy(model, pairs=None):
    """Exact match (the whole ISO string right) on ``pairs`` (default: the held-out split), overall
    and per format: {"all": fraction, format: fraction, ...}."""
    if pairs is None:
        pairs, src, valid = test_split()
    else:
        src, valid = data.encode_sources([s for s, _ in pairs])
    was = model.training
    model.eval()
    with torch.no_grad(), one_thread():
        tokens, _, _ = greedy(model, src, valid)
    model.train(was)
    right = [out == t for out, (_, t) in zip(data.decode_targets(tokens), pairs)]
    result = {"all": sum(right) / len(right)}
    for fmt in data.FORMATS:
        hits = [r for r, (s, _) in zip(right, pairs) if data.format_of(s) == fmt]
        if hits:
            result[fmt] = sum(hits) / len(hits)
    return result


@checks.arguments(steps=_STEPS, teacher_forcing=checks.Flag(), seed=checks.Int(0), eval_every=checks.Int(1),
                   formats=data._FORMATS_SPEC)
def run(steps=SHIPPED_STEPS, *, teacher_forcing=True, seed=0, eval_every=100, formats=data.FORMATS, **options):
    """Train a fresh DateTransformer; yield {"loss", "accuracy" (held-out exact match, measured every
    ``eval_every`` steps and at the last), "model"} per step; return the model in eval mode.
    ``formats``: the formats trained on (default all; ("d mon yyyy",) is notebook 08's alone).
    ``options``: DateTransformer's config and DEFAULTS' keys (batch_size, lr), checked at the call."""
    opts = dict(DEFAULTS, formats=tuple(formats))
    opts.update({k: options.pop(k) for k in list(options) if k in DEFAULTS})
    for name, spec in _OPTION_SPECS.items():
        spec(opts[name], name)
    model = DateTransformer(seed=seed, **options)
    return _train(model, steps, teacher_forcing, seed, eval_every, opts)


def _train(model, steps, teacher_forcing, seed, eval_every, opts):
    optimizer = torch.optim.AdamW(model.parameters(), lr=opts["lr"], weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=opts["lr"], total_steps=steps, pct_start=0.1)
    loss_fn = torch.nn.CrossEntropyLoss()
    acc = 0.0
    for step in range(steps):
        pairs = data.training_dates(opts["batch_size"], seed=seed * 1_000_003 + step, formats=opts["formats"])
        src, valid = data.encode_sources([s for s, _ in pairs])
        dec_in, labels = data.encode_targets([t for _, t in pairs])
        with one_thread():
            if not teacher_forcing:                        # feed the model its own guesses instead
                model.eval()
                with torch.no_grad():
                    guesses, _, _ = greedy(model, src, valid, steps=labels.shape[1] - 1)
                dec_in = torch.cat([dec_in[:, :1], guesses], dim=1)
            model.train()
            logits = model(src, valid, dec_in)                                      # (B, T, V)
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
        if (step + 1) % eval_every == 0 or step + 1 == steps:
            acc = accuracy(model)["all"]
        yield {"loss": loss.item(), "accuracy": acc, "model": model}
    return model.eval()


@checks.arguments(steps=_STEPS)
def train(steps=SHIPPED_STEPS, **options):
    """Run to the end: (model, history {name: [floats]}, {"wall": s, "cpu": s})."""
    return run_to_end(run(steps, **options))


@checks.arguments(steps=_STEPS, compare_steps=_STEPS)
def retrain_and_measure(steps=SHIPPED_STEPS, compare_steps=400):
    """Retrain the shipped checkpoint and measure: python -m attnlab.lessons.nb10_encoder_decoder"""
    import json
    import platform

    from .model import CHECKPOINT, RESULTS, parameters
    results = {"steps": steps, "command": "python -m attnlab.lessons.nb10_encoder_decoder",
               "machine": platform.processor() or platform.machine(), "torch": torch.__version__}
    model, history, seconds = train(steps, eval_every=500)
    results["shipped"] = {"held-out exact match": accuracy(model), "parameters": parameters(model),
                          "cpu seconds": round(seconds["cpu"], 1), "wall seconds": round(seconds["wall"], 1),
                          "accuracy every 500 steps": history["accuracy"][499::500]}
    print(json.dumps(results["shipped"], indent=1), flush=True)
    torch.save({"config": model.config, "state": {k: v.half() for k, v in model.state_dict().items()}}, CHECKPOINT)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")          # the shipped model's numbers first
    results["teacher forcing"] = compare_teacher_forcing(compare_steps)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")


@checks.arguments(steps=_STEPS, every=checks.Int(1))
def compare_teacher_forcing(steps=400, every=50):
    """Train two fresh models the same number of steps on the same batches, one with teacher forcing and
    one free running: {name: {"steps": [...], "accuracy": [held-out exact match...], "cpu seconds": s}}."""
    out = {}
    for name, forcing in ((N_("teacher forcing"), True), (N_("free running"), False)):   # shown with _(name)
        _, hist, sec = train(steps, teacher_forcing=forcing, eval_every=every)
        out[name] = {"steps": list(range(every, steps + 1, every)),
                     "accuracy": hist["accuracy"][every - 1::every], "cpu seconds": round(sec["cpu"], 1)}
        print(name, out[name], flush=True)
    return out
