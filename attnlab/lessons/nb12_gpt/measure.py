"""Measuring the small GPT (notebook 12): bits per character against count models, the KV cache's bytes.

Bits per character on a split: the text of the split (its paragraphs joined by a blank line) is cut into
windows of context + 1 characters that overlap by one, so that every character but the first is predicted
exactly once, from the characters before it in its window; the mean of -log2 p(character).
The count models predict the same characters:
- unigram: p(c) = (n(c) + 1) / (N + V), counts n over the training text, add-one (Laplace) smoothing;
- bigram:  p(c | b) = (n(b c) + 1) / (n(b ·) + V), pairs counted over the training text, add-one smoothing.
Cache bytes: layers x 2 (keys and values) x kv_heads x head size x length x bytes per number.
"""
import functools

import torch

from ...core import checks
from ...core.gpt.measure import bits_per_char_unchecked as core_bits_per_char, split_ids
from ...ui.trainer import one_thread
from . import corpus
from .model import GPT, new_caches

__all__ = ["SPLITS", "bigram_bits", "bits_per_char", "bits_per_char_unchecked", "cache_bytes", "held_bytes",
           "unigram_bits"]

SPLITS = ("heldout", "train")
_MODEL = checks.Instance(GPT, "a GPT (e.g. pretrained())")


def _ids(split):
    return split_ids(split)


@checks.arguments(model=_MODEL, split=checks.Choice(SPLITS))
def bits_per_char(model, split="heldout"):
    """The model's mean bits per character on ``split`` ("heldout" or "train"), a float."""
    return bits_per_char_unchecked(model, split)


def bits_per_char_unchecked(model, split, batch_size=32):
    """bits_per_char for checked arguments (attnlab.core.gpt.measure's, on one thread)."""
    with one_thread():
        return core_bits_per_char(model, split, batch_size)


@functools.cache
def _counts():
    V = len(corpus.vocab())
    train = _ids("train")
    unigram = torch.bincount(train, minlength=V).double()                                  # (V,)
    bigram = torch.bincount(train[:-1] * V + train[1:], minlength=V * V).double().reshape(V, V)   # (V, V)
    return unigram, bigram


@checks.arguments(split=checks.Choice(SPLITS))
def unigram_bits(split="heldout"):
    """Bits per character of the add-one unigram model (counts over the training text) on ``split``'s
    characters after the first (the ones the GPT predicts)."""
    unigram, _ = _counts()
    p = (unigram + 1) / (unigram.sum() + len(unigram))
    return -torch.log2(p[_ids(split)[1:]]).mean().item()


@checks.arguments(split=checks.Choice(SPLITS))
def bigram_bits(split="heldout"):
    """Bits per character of the add-one bigram model p(c | previous character) on ``split``."""
    _, bigram = _counts()
    p = (bigram + 1) / (bigram.sum(1, keepdim=True) + bigram.shape[1])                    # (V, V) rows sum to 1
    ids = _ids(split)
    return -torch.log2(p[ids[:-1], ids[1:]]).mean().item()


@checks.arguments(model=_MODEL, length=checks.Int(0))
def cache_bytes(model, length, *, dtype=None):
    """The KV cache's bytes after ``length`` positions: layers x 2 x kv_heads x head size x length x the
    bytes of one number of ``dtype`` (default the model's parameters' dtype)."""
    c = model.config
    dtype = next(model.parameters()).dtype if dtype is None else dtype
    size = torch.tensor([], dtype=dtype).element_size()
    return c["layers"] * 2 * c["kv_heads"] * (c["d_model"] // c["heads"]) * length * size


@checks.arguments(model=_MODEL, length=checks.Int(1))
def held_bytes(model, length):
    """The bytes of the cache tensors actually held after running ``length`` positions through ``model``
    with a KV cache (the first as a prompt, then one position at a time)."""
    caches = new_caches(model)
    tokens = torch.zeros(1, length, dtype=torch.long)
    with torch.no_grad(), one_thread():
        model(tokens[:, :1], caches)
        for t in range(1, length):
            model(tokens[:, t:t + 1], caches)
    return sum(t.numel() * t.element_size() for c in caches for t in (c.keys, c.values))
