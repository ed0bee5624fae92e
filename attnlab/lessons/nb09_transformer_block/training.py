"""Training the "it" resolver: a generator that yields one dict of numbers per step and returns the model.

    model = yield from run(300)          # or: drive it with attnlab.trainer.Trainer
The loss is -log(pointer weight on the referent): the model is taught where "it" should look.
"""
import contextlib
import time

import torch

from . import data
from .model import ItResolver

DEFAULTS = dict(batch_size=64, lr=1e-2, word_dropout=0.2, weight_decay=0.0)
ABLATIONS = {
    "full model": {},
    "no positional encoding": {"positions": False},
    "one head": {"num_heads": 1},
    "no residual": {"residual": False},
    "no FFN": {"ffn": False},
}
# Residual connections earn their keep with depth: measured in results.json, too slow to train live.
DEPTH_ABLATIONS = {
    "6 blocks": {"num_layers": 6},
    "6 blocks, no residual": {"num_layers": 6, "residual": False},
}


@contextlib.contextmanager
def one_thread():
    """Tiny matrices: one thread is faster than threads fighting, and gives the same bits anywhere."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _nouns_mask(ids):
    """(B, T) bool: where the animals and objects are (what word dropout may blank)."""
    nouns = torch.tensor([data.KIND_OF.get(w) in ("animals", "objects") for w in data.INDEX])
    return nouns[ids]


def batches(split, batch_size, seed):
    """Endless shuffled batches of an example split: (ids, valid_lens, it_pos, target positions)."""
    pairs = data.examples(split)
    g = torch.Generator().manual_seed(seed)
    while True:
        for chunk in torch.randperm(len(pairs), generator=g).split(batch_size):
            sents = [pairs[i][0] for i in chunk.tolist()]
            ids, valid_lens, it_pos = data.encode(sents)
            target = torch.tensor([s.split().index(pairs[i][1]) for s, i in zip(sents, chunk.tolist())])
            yield ids, valid_lens, it_pos, target


def accuracy(model, split="test"):
    """Fraction of a split whose pointer peak is the referent."""
    pairs = data.examples(split)
    ids, valid_lens, it_pos = data.encode([s for s, _ in pairs])
    target = torch.tensor([s.split().index(r) for s, r in pairs])
    was = model.training
    model.eval()
    with torch.no_grad(), one_thread():
        pointer = model(ids, valid_lens, it_pos)
    model.train(was)
    return (pointer.argmax(-1) == target).double().mean().item()


def run(steps=300, *, seed=0, eval_every=25, **options):
    """Train a fresh ItResolver for ``steps`` steps; yield {"loss", "accuracy", "test accuracy"} per step
    (accuracy: on the step's batch; test accuracy: on the test split, every ``eval_every`` steps);
    return the model (in eval mode). ``options``: ItResolver's config and DEFAULTS' keys."""
    opts = dict(DEFAULTS)
    opts.update({k: options.pop(k) for k in list(options) if k in DEFAULTS})
    torch.manual_seed(seed)          # the initial weights; data and word dropout use their own generators
    model = ItResolver(**options)
    optimizer = torch.optim.AdamW(model.parameters(), lr=opts["lr"], weight_decay=opts["weight_decay"])
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=opts["lr"], total_steps=steps,
                                                   pct_start=0.2)
    g = torch.Generator().manual_seed(seed + 1)
    stream = batches("train", opts["batch_size"], seed)
    test_acc = 0.0
    for step in range(steps):
        ids, valid_lens, it_pos, target = next(stream)
        keep = 1.0 - (_nouns_mask(ids) & (torch.rand(ids.shape, generator=g) < opts["word_dropout"])).float()
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
        if (step + 1) % eval_every == 0 or step + 1 == steps:
            test_acc = accuracy(model, "test")
        yield {"loss": loss.item(), "accuracy": acc, "test accuracy": test_acc}
    return model.eval()


def train(steps=300, **options):
    """Run to the end; returns (model, history {name: [floats]}, seconds)."""
    history = {}
    t0 = time.perf_counter()
    gen = run(steps, **options)
    while True:
        try:
            row = next(gen)
        except StopIteration as stop:
            return stop.value, history, time.perf_counter() - t0
        for k, v in row.items():
            history.setdefault(k, []).append(v)


def head_accuracy(model, split="test"):
    """(layers, heads): how often each head's "it" weights peak on the referent, over a split."""
    pairs = data.examples(split)
    ids, valid_lens, it_pos = data.encode([s for s, _ in pairs])
    target = torch.tensor([s.split().index(r) for s, r in pairs])
    was = model.training
    model.eval()
    with torch.no_grad(), one_thread():
        model(ids, valid_lens, it_pos)
    model.train(was)
    rows = torch.arange(len(pairs))
    it_rows = model.attention[rows, :, :, it_pos]                     # (N, L, H, T)
    return (it_rows.argmax(-1) == target[:, None, None]).double().mean(0)


def peak_kinds(model, split="test", layer=0):
    """{head: {kind of word: fraction}}: what kind of word each head's "it" weights peak on."""
    pairs = data.examples(split)
    ids, valid_lens, it_pos = data.encode([s for s, _ in pairs])
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
            w = s.split()[p]
            kind = "the referent" if w == r else ("it" if w == "it" else data.KIND_NAMES[data.KIND_OF[w]])
            counts[kind] = counts.get(kind, 0) + 1 / len(pairs)
        out[h] = dict(sorted(counts.items(), key=lambda kv: -kv[1]))
    return out


SHIPPED_STEPS = 300


def _main():
    """Retrain the shipped checkpoint and measure every ablation:
    python -m attnlab.lessons.nb09_transformer_block.training"""
    import json
    import platform

    from .model import CHECKPOINT, RESULTS
    results = {"steps": SHIPPED_STEPS, "command": "python -m attnlab.lessons.nb09_transformer_block.training",
               "machine": platform.processor() or platform.machine(), "torch": torch.__version__, "ablations": {}}
    for name, config in {**ABLATIONS, **DEPTH_ABLATIONS}.items():
        model, history, seconds = train(SHIPPED_STEPS, eval_every=10 ** 9, **config)
        row = {"train": accuracy(model, "train"), "test": accuracy(model, "test"), "seconds": round(seconds, 1),
               "final loss": history["loss"][-1]}
        results["ablations"][name] = row
        print(f"{name:>24}: {seconds:5.1f} s, train accuracy {row['train']:.3f}, test accuracy {row['test']:.3f}",
              flush=True)
        if name == "full model":
            torch.save({"config": model.config, "state": model.state_dict()}, CHECKPOINT)
            results["head accuracy"] = head_accuracy(model).tolist()
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    _main()
