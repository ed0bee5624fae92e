"""Copying from the prompt (notebook 12, section 4): the induction heads of notebook 11 in the GPT.

A probe is a stretch of held-out prose, a made-up word W (random lowercase letters, never a word of the
course), more held-out prose, and W again. Once the second W has begun, its next letter can only be read
off the first W: an induction head at the letter W[i] of the second copy attends to W[i+1] of the first
(the position just after the current character's previous occurrence) and copies it.
Scores as notebook 11 defines them, averaged over the second copy's letters W[0] ... W[L-2]:
- induction score: the weight a query there puts on the position just after the same letter in the first W;
- previous-token score: the weight a query puts on the position just before it.
Copying is measured teacher-forced: the fraction of W[1] ... W[L-1] in the second copy that the model's most
probable next character gets right, and their mean bits. ``ablate`` (model.ablate) zeroes heads; the
strongest induction heads removed, the copy fails.
"""
import random
from typing import NamedTuple

import torch

from ...core import checks
from ...ui.trainer import one_thread
from . import corpus
from .model import GPT, ablate

__all__ = ["LETTERS", "Probe", "copied", "copying", "induction_scores", "measure_all", "probes"]

LETTERS = "abcdefghijklmnopqrstuvwxyz"


class Probe(NamedTuple):
    """A probe text and where its two copies of the made-up word start: ``first``, ``second``, ``length``."""
    text: str
    first: int
    second: int
    length: int


@checks.arguments(n=checks.Int(1, 10_000), seed=checks.Int(0), length=checks.Int(2, 20), gap=checks.Int(1, 200))
def probes(n, *, seed=0, length=7, gap=60):
    """``n`` probes: about 30 characters of held-out prose, W, ``gap`` characters of held-out prose, W."""
    rng = random.Random(seed)
    heldout = corpus.text("heldout").replace("\n", " ")
    words = set(corpus.text("all").split())
    out = []
    while len(out) < n:
        word = "".join(rng.choice(LETTERS) for _ in range(length))
        if word in words:
            continue
        a, b = rng.randrange(len(heldout) - 30), rng.randrange(len(heldout) - gap)
        before, middle = heldout[a:a + 30], heldout[b:b + gap]
        text = f"{before} {word} {middle} {word}"
        out.append(Probe(text, len(before) + 1, len(text) - length, length))
    return out


def _run(model, batch, need_weights):
    tokens = torch.tensor([corpus.encode(p.text) for p in batch], dtype=torch.long)        # (n, T)
    with torch.no_grad(), one_thread():
        logits = model(tokens, need_weights=need_weights)                                  # (n, T, V)
    return tokens, logits


def _same_length(items):
    lengths = {len(p.text) for p in items}
    if len(lengths) != 1:
        raise checks.error("items", "probes of one length (same length and gap)", f"lengths {sorted(lengths)}")


def induction_scores(model, items):
    """(previous_token, induction): two tensors (layers, heads), averaged over the probes ``items``."""
    checks.instance(model, "model", GPT, "a GPT (e.g. pretrained())")
    _same_length(items)
    was = model.training
    model.eval()
    _run(model, items, True)
    model.train(was)
    W = torch.stack(model.attention(), 1)                                                  # (n, layers, H, T, T)
    prev, ind = [], []
    for i, p in enumerate(items):
        t = torch.arange(p.second, p.second + p.length - 1)                                 # W[0] .. W[L-2], second copy
        prev.append(W[i][..., t, t - 1].mean(-1))                                           # (layers, H)
        ind.append(W[i][..., t, t - p.second + p.first + 1].mean(-1))
    return torch.stack(prev).mean(0), torch.stack(ind).mean(0)


def copying(model, items):
    """{"accuracy": the share of W[1:] in the second copies predicted right (most probable next character),
    "bits": their mean bits} over the probes ``items``."""
    checks.instance(model, "model", GPT, "a GPT (e.g. pretrained())")
    _same_length(items)
    tokens, logits = _run(model, items, False)
    right, bits = [], []
    for i, p in enumerate(items):
        t = torch.arange(p.second, p.second + p.length - 1)                                 # predicts t + 1
        target = tokens[i, t + 1]
        right.append((logits[i, t].argmax(-1) == target).double())
        bits.append(-torch.log_softmax(logits[i, t].double(), -1).gather(-1, target[:, None])[:, 0] / torch.log(torch.tensor(2.0)))
    return {"accuracy": torch.cat(right).mean().item(), "bits": torch.cat(bits).mean().item()}


def copied(model, probe):
    """The second copy of ``probe``'s made-up word as ``model`` reads it, teacher-forced: its first letter,
    then at each letter the model's most probable next character (a str of the word's length)."""
    checks.instance(model, "model", GPT, "a GPT (e.g. pretrained())")
    checks.instance(probe, "probe", Probe, "a Probe (an item of probes())")
    tokens, logits = _run(model, [probe], False)
    t = torch.arange(probe.second, probe.second + probe.length - 1)
    return probe.text[probe.second] + corpus.decode(logits[0, t].argmax(-1).tolist())


def measure_all(model, n=64, seed=0, top=2):
    """What results.json stores: the scores of every head, copying with all heads, without the ``top``
    strongest induction heads, and (the control) without ``top`` heads chosen from the weakest."""
    items = probes(n, seed=seed)
    prev, ind = induction_scores(model, items)
    H = model.config["heads"]
    ranked = sorted(range(ind.numel()), key=lambda j: -ind.flatten()[j].item())
    strongest = [divmod(j, H) for j in ranked[:top]]
    weakest = [divmod(j, H) for j in ranked[-top:]]

    def without(heads):
        m = model
        for layer, head in heads:
            m = ablate(m, layer, head)
        return copying(m, items)
    return {"probes": {"n": n, "seed": seed, "word length": items[0].length, "gap": 60},
            "previous token": [[round(x, 4) for x in row] for row in prev.tolist()],
            "induction": [[round(x, 4) for x in row] for row in ind.tolist()],
            "copying": copying(model, items),
            "ablated strongest": {"heads (layer, head)": strongest, "copying": without(strongest)},
            "ablated weakest": {"heads (layer, head)": weakest, "copying": without(weakest)},
            "summary": {"top induction head": strongest[0], "score": round(ind.max().item(), 4),
                        "copy accuracy": copying(model, items)["accuracy"],
                        "copy accuracy without strongest": without(strongest)["accuracy"]}}
