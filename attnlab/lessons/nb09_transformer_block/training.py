"""Training the "it" resolver: a generator that yields one dict of numbers per step and returns the model.

    model = yield from run(300)          # or: drive it with attnlab.ui.trainer.Trainer
The loss is -log(pointer weight on the referent): the model is taught where "it" should look.
"""

import torch

from ...core import checks
from ...i18n import N_
from ...ui.trainer import one_thread, run_to_end
from . import data
from .model import ItResolver

__all__ = [
    "DEFAULTS", "ABLATIONS", "DEPTH_ABLATIONS", "encoded", "batches", "accuracy", "run", "train",
    "head_accuracy", "peak_kinds", "SHIPPED_STEPS", "retrain_and_measure"
]

DEFAULTS = dict(batch_size=64, lr=1e-2, word_dropout=0.2, weight_decay=0.0)
# The names are keys (the menu's values, results.json's rows); marked N_, shown with _(name).
ABLATIONS = {
    N_("full model"): {},
    N_("no positional encoding"): {"positions": False},
    N_("one head"): {"num_heads": 1},
    N_("no residual"): {"residual": False},
    N_("no FFN"): {"ffn": False},
}
# Residual connections earn their keep with depth: measured in results.json, too slow to train live.
DEPTH_ABLATIONS = {
    N_("6 blocks"): {"num_layers": 6},
    N_("6 blocks, no residual"): {"num_layers": 6, "residual": False},
}


_NOUNS = torch.tensor([data.KIND_OF.get(w) in ("animals", "objects") for w in data.INDEX])   # by word id
_ENCODED = {}


def encoded(split):
    """A whole split, encoded once: (ids (N, T), valid_lens (N,), it_pos (N,), referent positions (N,))."""
    if split not in _ENCODED:
        pairs = data.examples(split)
        ids, valid_lens, it_pos = data.encode([s for s, _ in pairs])
        target = torch.tensor([s.split().index(r) for s, r in pairs])
        _ENCODED[split] = ids, valid_lens, it_pos, target
    return _ENCODED[split]


_MODEL = checks.Instance(ItResolver, "an ItResolver (e.g. pretrained())")
_STEPS = checks.Int(1, 100_000)


@checks.arguments(batch_size=checks.Int(1), seed=checks.Int(0))
def batches(split, batch_size, seed):
    """Endless shuffled batches of an example split: (ids, valid_lens, it_pos, target positions)."""
    ids, valid_lens, it_pos, target = encoded(split)
    g = torch.Generator().manual_seed(seed)
    while True:
        for chunk in torch.randperm(len(ids), generator=g).split(batch_size):
            T = int(valid_lens[chunk].max())
            yield ids[chunk, :T], valid_lens[chunk], it_pos[chunk], target[chunk]


@checks.arguments(model=_MODEL)
def accuracy(model, split="test"):
    """Fraction of a split whose pointer peak is the referent."""
    ids, valid_lens, it_pos, target = encoded(split)
    was = model.training
    model.eval()
    with torch.no_grad(), one_thread():
        pointer = model(ids, valid_lens, it_pos)
    model.train(was)
    return (pointer.argmax(-1) == target).double().mean().item()


@checks.arguments(steps=_STEPS, seed=checks.Int(0), eval_every=checks.Int(1))
def run(steps=300, *, seed=0, eval_every=10, **options):
    """Train a fresh ItResolver for ``steps`` steps; yield {"loss", "accuracy", "test accuracy", "model"} per step
    (accuracy: on the step's batch; test accuracy: on the whole test split, at the first step, every
    ``eval_every`` steps and at the last, held in between);
    return the model (in eval mode). ``options``: ItResolver's config and DEFAULTS' keys.
    Every argument is checked at the call, before the first step (the model is built then too)."""
    opts = dict(DEFAULTS)
    opts.update({k: options.pop(k) for k in list(options) if k in DEFAULTS})
    for name, spec in _OPTION_SPECS.items():
        spec(opts[name], name)
    model = ItResolver(seed=seed, **options)     # checks its config; data and word dropout use their own generators
    return _train(model, steps, seed, eval_every, opts)


_OPTION_SPECS = {"batch_size": checks.Int(1, 4096), "lr": checks.Real(positive=True, high=1.0),
                 "word_dropout": checks.Real(low=0.0, below=1.0), "weight_decay": checks.Real(low=0.0)}


def _train(model, steps, seed, eval_every, opts):
    """run's steps, as a generator (its arguments already checked)."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=opts["lr"], weight_decay=opts["weight_decay"])
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=opts["lr"], total_steps=steps,
                                                   pct_start=0.2)
    g = torch.Generator().manual_seed(seed + 1)
    stream = batches("train", opts["batch_size"], seed)
    test_acc = 0.0
    for step in range(steps):
        ids, valid_lens, it_pos, target = next(stream)
        keep = 1.0 - (_NOUNS[ids] & (torch.rand(ids.shape, generator=g) < opts["word_dropout"])).float()
        model.train()
        with one_thread():
            pointer = model(ids, valid_lens, it_pos, word_dropout=keep)           # (B, T)
            picked = pointer.gather(1, target[:, None]).squeeze(1)
            loss = -torch.log(picked.clamp_min(1e-9)).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
        acc = (pointer.argmax(-1) == target).double().mean().item()
        if step % eval_every == 0 or step + 1 == steps:
            test_acc = accuracy(model, "test")
        yield {"loss": loss.item(), "accuracy": acc, "test accuracy": test_acc, "model": model}
    return model.eval()


@checks.arguments(steps=_STEPS)
def train(steps=300, **options):
    """Run to the end; returns (model, history {name: [floats]}, {"wall": seconds, "cpu": seconds}).

    CPU seconds (this process, one thread) are what an idle core would take; wall seconds grow when
    other programs share the machine."""
    return run_to_end(run(steps, **options))


@checks.arguments(model=_MODEL)
def head_accuracy(model, split="test"):
    """(layers, heads): how often each head's "it" weights peak on the referent, over a split."""
    ids, valid_lens, it_pos, target = encoded(split)
    was = model.training
    model.eval()
    with torch.no_grad(), one_thread():
        model(ids, valid_lens, it_pos)
    model.train(was)
    rows = torch.arange(len(ids))
    it_rows = model.attention[rows, :, :, it_pos]                     # (N, L, H, T)
    return (it_rows.argmax(-1) == target[:, None, None]).double().mean(0)


@checks.arguments(model=_MODEL, layer=checks.Int(0))
def peak_kinds(model, split="test", layer=0):
    """{head: {kind of word: fraction}}: what kind of word each head's "it" weights peak on. The kinds
    are English (marked N_): show them with _(kind)."""
    if layer >= len(model.blocks):
        raise checks.error("layer",
                           f"an index in [0, {len(model.blocks) - 1}] (the model has {len(model.blocks)} blocks)",
                           layer)
    pairs = data.examples(split)
    ids, valid_lens, it_pos, _target = encoded(split)
    was = model.training
    model.eval()
    with torch.no_grad(), one_thread():
        model(ids, valid_lens, it_pos)
    model.train(was)
    peaks = model.attention[torch.arange(len(pairs)), layer, :, it_pos].argmax(-1)   # (N, H)
    out = {}
    for h in range(peaks.shape[1]):
        counts = {}
        for (s, r), p in zip(pairs, peaks[:, h].tolist()):
            words = s.split()
            w = words[p]
            if w == r:
                kind = N_("the referent")
            elif w in data.VOCAB["animal_adjectives"] + data.VOCAB["object_adjectives"]:
                kind = N_("the deciding adjective") if p > words.index("it") else N_("a describing adjective")
            else:
                kind = "it" if w == "it" else data.KIND_NAMES[data.KIND_OF[w]]
            counts[kind] = counts.get(kind, 0) + 1
        out[h] = {k: n / len(pairs) for k, n in sorted(counts.items(), key=lambda kv: -kv[1])}
    return out


SHIPPED_STEPS = 300


def retrain_and_measure():
    """Retrain the shipped checkpoint and measure every ablation:
    python -m attnlab.lessons.nb09_transformer_block"""
    import json
    import platform

    from .model import CHECKPOINT, RESULTS
    results = {"steps": SHIPPED_STEPS, "command": "python -m attnlab.lessons.nb09_transformer_block",
               "machine": platform.processor() or platform.machine(), "torch": torch.__version__, "ablations": {}}
    for name, config in {**ABLATIONS, **DEPTH_ABLATIONS}.items():
        model, history, seconds = train(SHIPPED_STEPS, eval_every=10 ** 9, **config)
        row = {"train": accuracy(model, "train"), "test": accuracy(model, "test"),
               "cpu seconds": round(seconds["cpu"], 1), "wall seconds": round(seconds["wall"], 1),
               "final loss": round(history["loss"][-1], 6)}
        results["ablations"][name] = row
        print(f"{name:>24}: {seconds['cpu']:5.1f} s CPU ({seconds['wall']:.1f} s wall), "
              f"train accuracy {row['train']:.3f}, test accuracy {row['test']:.3f}", flush=True)
        if name == "full model":
            torch.save({"config": model.config, "state": model.state_dict()}, CHECKPOINT)
            results["head accuracy"] = head_accuracy(model).tolist()
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    retrain_and_measure()
