"""Generation (notebook 12): the model predicts the next character, a filter keeps some of the
candidates, one is drawn, appended, and the loop goes on.

The distribution a character is drawn from, for logits z (V,) at temperature T:
    p = softmax(z / T)                                  (computed in float64)
    top-k:  keep the k most probable characters, set the rest to 0, renormalise
    top-p:  keep the smallest set of the most probable characters whose mass reaches p (nucleus
            sampling: sorted by probability, a character is kept when the mass before it is < p),
            set the rest to 0, renormalise
Top-k comes first; top-p then works on what top-k kept. Ties: characters of equal probability are
ordered by token id (lower first), so the kept set is always a prefix of one fixed order.
The draw: one uniform u in [0, 1) from a torch.Generator seeded with ``seed``, the character is the
first whose cumulative probability exceeds u (inverse CDF). The same seed gives the same text with and
without the KV cache. T -> 0, top_k = 1 and a tiny top_p each leave only the most probable character:
greedy decoding.
"""
from typing import NamedTuple

import torch

from ...core import checks
from ...ui.trainer import one_thread
from . import corpus
from .model import GPT, new_caches

__all__ = ["Generation", "filtered", "filtered_unchecked", "generate", "generate_unchecked", "next_logits"]


class Generation(NamedTuple):
    """What ``generate`` returns: ``text`` the prompt plus the generated characters; ``probs`` (steps, V)
    float64, the filtered distribution each character was drawn from; ``logits`` (steps, V) in the model's
    dtype, its raw next-character logits at each step; ``prompt`` the prompt."""
    text: str
    probs: torch.Tensor
    logits: torch.Tensor
    prompt: str


# the filters' bounds (see the module docstring): temperature > 0, top_k >= 1, top_p in (0, 1]
_FILTERS = dict(temperature=checks.Real(positive=True), top_k=checks.Optional(checks.Int(1)),
                top_p=checks.Optional(checks.Real(positive=True, high=1.0)))


def _numbers(temperature, top_k, top_p):
    """The checked filters as plain numbers (a 0-d tensor passes the checks too)."""
    return float(temperature), None if top_k is None else int(top_k), None if top_p is None else float(top_p)


@checks.arguments(**_FILTERS)
def filtered(logits, *, temperature=1.0, top_k=None, top_p=None):
    """softmax(logits / temperature), then top-k, then top-p, renormalised (see the module docstring).

    logits: float (..., V). temperature > 0; top_k an int >= 1 or None; top_p in (0, 1] or None.
    Returns float64 (..., V): non-negative, each row summing to 1.
    """
    checks.tensor(logits, "logits", min_dim=1)
    if logits.shape[-1] == 0:
        raise checks.error("logits", "at least one candidate (last dim >= 1)", "0")
    return filtered_unchecked(logits, *_numbers(temperature, top_k, top_p))


def filtered_unchecked(logits, temperature, top_k, top_p):
    """``filtered`` for checked arguments."""
    probs = torch.softmax(logits.double() / temperature, dim=-1)                          # (..., V)
    V = probs.shape[-1]
    # one fixed order: probability descending, equal probabilities by token id ascending
    order = torch.sort(probs, dim=-1, descending=True, stable=True).indices                # (..., V)
    sorted_p = probs.gather(-1, order)
    keep = torch.ones_like(sorted_p, dtype=torch.bool)
    if top_k is not None and top_k < V:
        keep[..., top_k:] = False
    if top_p is not None:
        sorted_p = sorted_p * keep
        sorted_p = sorted_p / sorted_p.sum(-1, keepdim=True)
        before = sorted_p.cumsum(-1) - sorted_p                                             # mass before each
        keep &= before < top_p
    mask = torch.zeros_like(keep).scatter(-1, order, keep)                                 # back to token order
    probs = probs * mask
    return probs / probs.sum(-1, keepdim=True)


def next_logits(model, ids, caches):
    """Logits (V,) for the character after ``ids`` (a list of token ids). With ``caches`` (a list of
    KVCache), only the positions not yet cached are run; without, the whole sequence is."""
    start = 0 if caches is None else len(caches[0])
    tokens = torch.tensor([ids[start:]], dtype=torch.long)                                # (1, T)
    return model(tokens, caches)[0, -1]                                                    # (V,)


@checks.arguments(model=checks.Instance(GPT, "a GPT (e.g. pretrained())"), prompt=checks.Text(),
                  steps=checks.Int(0), **_FILTERS, seed=checks.Optional(checks.Int(0)), cache=checks.Flag())
def generate(model, prompt, steps, *, temperature=1.0, top_k=None, top_p=None, seed=None, cache=True):
    """Continue ``prompt`` by ``steps`` characters, each drawn from the filtered distribution.

    Args:
        model: a GPT; prompt: a non-empty str of characters in vocab(); steps: int >= 0, with
            len(prompt) + steps <= the model's context.
        temperature > 0, top_k (int >= 1 or None), top_p (in (0, 1] or None): see ``filtered``.
        seed: an int >= 0 seeds the draws' torch.Generator (None: a fresh random seed);
        cache: True keeps every layer's keys and values (a KV cache) and runs only the new position
            at each step; False runs the whole sequence again at each step. Same text either way.
    Returns:
        Generation(text, probs (steps, V), logits (steps, V), prompt).
    Raises:
        ValueError naming ``prompt`` (empty, or characters outside the vocabulary, listed), ``steps``
        (past the context), ``temperature``, ``top_k`` or ``top_p``; TypeError for the wrong kind.
    """
    if not prompt:
        raise checks.error("prompt", "at least one character", "''")
    known = set(corpus.vocab())
    unknown = "".join(dict.fromkeys(c for c in prompt if c not in known))
    if unknown:
        raise checks.error("prompt", "characters of the vocabulary (vocab())",
                           f"{len(unknown)} outside it: {unknown!r}")
    context = model.config["context"]
    if len(prompt) > context:
        raise checks.error("prompt", f"at most context={context} characters", len(prompt))
    if len(prompt) + steps > context:
        raise checks.error("steps", f"at most context - len(prompt) = {context - len(prompt)}", steps)
    generator = torch.Generator()
    if seed is None:
        generator.seed()                                             # a fresh seed from the OS, not the global RNG
    else:
        generator.manual_seed(seed)
    return generate_unchecked(model, prompt, steps, *_numbers(temperature, top_k, top_p), generator, cache)


def generate_unchecked(model, prompt, steps, temperature, top_k, top_p, generator, cache):
    """``generate`` for checked arguments and a ready generator."""
    ids = corpus.encode(prompt)
    caches = new_caches(model) if cache else None
    V = len(corpus.vocab())
    probs = torch.zeros(steps, V, dtype=torch.float64)
    logits = torch.zeros(steps, V, dtype=next(model.parameters()).dtype)
    was = model.training
    model.eval()
    with torch.no_grad(), one_thread():
        for i in range(steps):
            z = next_logits(model, ids, caches)                                                # (V,)
            p = filtered_unchecked(z, temperature, top_k, top_p)                               # (V,)
            u = torch.rand((), generator=generator, dtype=torch.float64).item()
            cdf = p.cumsum(0)
            token = min(int(torch.searchsorted(cdf, torch.tensor([u * cdf[-1].item()], dtype=torch.float64),
                                               right=True)), V - 1)
            logits[i], probs[i] = z, p
            ids.append(token)
    model.train(was)
    return Generation(corpus.decode(ids), probs, logits, prompt)

