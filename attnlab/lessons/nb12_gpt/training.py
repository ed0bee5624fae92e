"""Training the small GPT on the course's prose (notebook 12), on one CPU thread.

Each step draws ``batch_size`` windows of context + 1 characters from the training text at random
places (a generator seeded from ``seed``), predicts every next character, and takes one AdamW step
(cosine learning rate after a short warm-up, gradients clipped to norm 1). ``retrain_and_measure``
(``python -m attnlab.lessons.nb12_gpt``) trains the shipped model, converts it to 2 and 1 key/value heads
(mean-pooled, then a short fine-tune), measures all of them and writes checkpoints/.
"""
import math

import torch
from torch.nn import functional as F

from ...core import checks
from ...ui.trainer import one_thread, run_to_end
from . import corpus
from .model import GPT

__all__ = ["DEFAULTS", "FINE_TUNE_LR", "FINE_TUNE_STEPS", "SHIPPED", "SHIPPED_STEPS", "add_shipped_measurements", "batches", "retrain_and_measure", "run",
           "train"]

DEFAULTS = dict(batch_size=16, lr=3e-3, warmup=50, copy_share=0.0, words=3)
SHIPPED = dict(d_model=128, heads=4, layers=4, context=256)
_TRAIN = {}


def _train_ids():
    if "ids" not in _TRAIN:
        _TRAIN["ids"] = torch.tensor(corpus.encode(corpus.text("train")), dtype=torch.long)
    return _TRAIN["ids"]


def _made_up_alphabets():
    """The characters made-up words are drawn from: the Latin lowercase letters and the CJK characters of
    the course's vocabulary (their token ids)."""
    if "alphabets" not in _TRAIN:
        chars = corpus.vocab()
        latin = [c for c in "abcdefghijklmnopqrstuvwxyz" if c in chars]
        cjk = [c for c in chars if "\u4e00" <= c <= "\u9fff"]
        _TRAIN["alphabets"] = (torch.tensor(corpus.encode("".join(latin))), torch.tensor(corpus.encode("".join(cjk))),
                               corpus.encode(" ")[0])
    return _TRAIN["alphabets"]


def _with_repeats(window, generator, words):
    """``window`` (T + 1,) of real text with ``words`` made-up words (Latin letters between spaces in a window
    with more Latin letters than CJK characters, else CJK characters) spliced in, each twice (the second
    copies after all the first ones, in shuffled order), cut back to T + 1: (ids (T + 1,), ignore (T + 1,)
    bool, True where a character is a letter of a first copy -- unpredictable, so not a target)."""
    latin, cjk, space = _made_up_alphabets()
    n = len(window)
    chinese = bool((window > cjk[0]).sum() > torch.isin(window, latin).sum())    # the window's script: CJK or Latin
    cuts = torch.randint(0, n, (2 * words,), generator=generator).sort().values.tolist()
    pieces = []
    for _ in range(words):
        length = int(torch.randint(3, 10, (1,), generator=generator))
        if not chinese:
            word = latin[torch.randint(0, len(latin), (length,), generator=generator)].tolist()
            word = [space] + word + [space]
        else:
            word = cjk[torch.randint(0, len(cjk), (length,), generator=generator)].tolist()
        pieces.append(word)
    order = list(range(words)) + [words + i for i in torch.randperm(words, generator=generator).tolist()]
    ids, ignore, last = [], [], 0
    for cut, which in zip(cuts, order):
        ids += window[last:cut].tolist()
        ignore += [False] * (cut - last)
        word = pieces[which % words]
        ids += word
        ignore += [which < words] * len(word)
        last = cut
    ids += window[last:].tolist()
    ignore += [False] * (n - last)
    return torch.tensor(ids[:n]), torch.tensor(ignore[:n])


def batches(batch_size, context, generator, copy_share=0.0, words=3):
    """An endless stream of (inputs (B, T), targets (B, T)): random windows of the training text. With
    ``copy_share`` > 0, that share of the windows (drawn per window) get ``words`` made-up words spliced in,
    each twice (see _with_repeats): their second copies can only be predicted by copying from the first,
    which is what induction heads do. The first copies' letters are no targets (-100, ignored)."""
    ids = _train_ids()
    while True:
        starts = torch.randint(0, len(ids) - context - 1, (batch_size,), generator=generator)
        window = torch.stack([ids[s:s + context + 1] for s in starts.tolist()])                # (B, T + 1)
        targets = window[:, 1:].clone()
        if copy_share > 0:
            for b in range(batch_size):
                if torch.rand(1, generator=generator).item() < copy_share:
                    window[b], ignore = _with_repeats(window[b], generator, words)
                    targets[b] = window[b, 1:].masked_fill(ignore[1:], -100)
        yield window[:, :-1], targets


@checks.arguments(steps=checks.Int(1, 1_000_000), seed=checks.Int(0), model=checks.Optional(checks.Instance(GPT, "a GPT")))
def run(steps, *, seed=0, model=None, eval_every=0, **options):
    """Train ``model`` (default a fresh GPT(SHIPPED, seed=seed)); yield {"loss", "step", "model"} per step
    (and "heldout bits" every ``eval_every`` steps when > 0); return the model in eval mode.
    ``options``: DEFAULTS' keys (batch_size, lr, warmup; copy_share and words: see batches) and, for a fresh
    model, GPT's config."""
    opts = dict(DEFAULTS)
    opts.update({k: options.pop(k) for k in list(options) if k in DEFAULTS})
    opts["copy_share"] = checks.real(opts["copy_share"], "copy_share", low=0.0, high=1.0)
    opts["words"] = checks.count(opts["words"], "words", low=1, high=20)
    if model is None:
        model = GPT(len(corpus.vocab()), **dict(SHIPPED, **options), seed=seed)
    elif options:
        raise checks.error("options", f"none besides {sorted(DEFAULTS)} for a given model", sorted(options))
    from .measure import bits_per_char_unchecked
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=opts["lr"], weight_decay=0.1, betas=(0.9, 0.95))
    warmup = min(opts["warmup"], steps)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: (s + 1) / warmup if s < warmup else
                                                 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * (s - warmup) / max(1, steps - warmup))))
    stream = batches(opts["batch_size"], model.config["context"], generator, opts["copy_share"], opts["words"])
    for step in range(steps):
        inputs, targets = next(stream)
        with one_thread():
            model.train()
            logits = model(inputs)                                                             # (B, T, V)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
        row = {"loss": loss.item(), "step": step + 1, "model": model}
        if eval_every and ((step + 1) % eval_every == 0 or step + 1 == steps):
            row["heldout bits"] = bits_per_char_unchecked(model, "heldout")
        yield row
    return model.eval()


def train(steps, **options):
    """Run to the end: (model, history {name: [floats]}, {"wall": s, "cpu": s})."""
    return run_to_end(run(steps, **options))


SHIPPED_STEPS = 1200
FINE_TUNE_STEPS = 100
FINE_TUNE_LR = 1e-3


def _save(model, path):
    from ...core.gpt.shipped import save
    save(model, path)


@checks.arguments(steps=checks.Int(1, 1_000_000), fine_tune_steps=checks.Int(1, 1_000_000), seed=checks.Int(0))
def retrain_and_measure(steps=SHIPPED_STEPS, fine_tune_steps=FINE_TUNE_STEPS, seed=0):
    """Retrain the shipped checkpoints and measure them: python -m attnlab.lessons.nb12_gpt"""
    import json
    import platform
    import time

    from . import induction
    from .checkpoints import CHECKPOINTS, RESULTS
    from .measure import bigram_bits, bits_per_char_unchecked, unigram_bits
    from .model import with_kv_heads
    c0, t0 = time.process_time(), time.perf_counter()
    results = {"command": "python -m attnlab.lessons.nb12_gpt", "machine": platform.processor() or platform.machine(),
               "torch": torch.__version__, "seed": seed, "threads": 1, "config": dict(SHIPPED, **DEFAULTS),
               "corpus": {"train characters": len(corpus.text("train")), "heldout characters": len(corpus.text("heldout")),
                          "train paragraphs": len(corpus.paragraphs("train")),
                          "heldout paragraphs": len(corpus.paragraphs("heldout")), "vocabulary": len(corpus.vocab())},
               "baselines": {"unigram heldout bits": unigram_bits("heldout"), "bigram heldout bits": bigram_bits("heldout"),
                             "unigram train bits": unigram_bits("train"), "bigram train bits": bigram_bits("train"),
                             "smoothing": "add-one (Laplace), counts over the training text"}}
    print(json.dumps(results["baselines"]), flush=True)
    model, history, seconds = train(steps, seed=seed, eval_every=100)
    results["models"] = {"kv4": {"steps": steps, "cpu seconds": round(seconds["cpu"], 1),
                                 "wall seconds": round(seconds["wall"], 1),
                                 "loss every 10 steps": [round(x, 4) for x in history["loss"][9::10]],
                                 "heldout bits every 100 steps": [round(x, 4) for x in history["heldout bits"]],
                                 "heldout bits": bits_per_char_unchecked(model, "heldout"),
                                 "train bits": bits_per_char_unchecked(model, "train"),
                                 "parameters": sum(p.numel() for p in model.parameters())}}
    print(json.dumps({k: v for k, v in results["models"]["kv4"].items() if "every" not in k}), flush=True)
    _save(model, CHECKPOINTS[4])
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    for kv in (2, 1):
        pooled = with_kv_heads(model, kv)
        entry = {"pooled heldout bits": bits_per_char_unchecked(pooled, "heldout")}
        tuned, hist, sec = train(fine_tune_steps, seed=seed + kv, model=pooled, lr=FINE_TUNE_LR, warmup=10,
                                 eval_every=fine_tune_steps)
        entry.update({"fine-tune steps": fine_tune_steps, "fine-tune lr": FINE_TUNE_LR,
                      "cpu seconds": round(sec["cpu"], 1), "wall seconds": round(sec["wall"], 1),
                      "loss": [round(x, 4) for x in hist["loss"]],
                      "heldout bits": bits_per_char_unchecked(tuned, "heldout"),
                      "parameters": sum(p.numel() for p in tuned.parameters())})
        results["models"][f"kv{kv}"] = entry
        print(kv, json.dumps({k: v for k, v in entry.items() if k != "loss"}), flush=True)
        _save(tuned, CHECKPOINTS[kv])
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    results["induction"] = induction.measure_all(model)
    add_shipped_measurements(results)
    results["cpu seconds"] = round(time.process_time() - c0, 1)
    results["wall seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(results["induction"]["summary"]), results["cpu seconds"], results["wall seconds"], flush=True)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")


def add_shipped_measurements(results):
    """Measure the models as shipped (stored in float16, loaded as float32): held-out bits per character
    of each, into ``results["shipped heldout bits"]``."""
    from .measure import bits_per_char_unchecked
    from .shipped import load_unchecked
    results["shipped heldout bits"] = {f"kv{kv}": bits_per_char_unchecked(load_unchecked(kv), "heldout")
                                       for kv in (4, 2, 1)}
