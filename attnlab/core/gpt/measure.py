"""Bits per character of a course GPT (or any model that maps tokens (B, T) to logits (B, T, V) and has a
``config["context"]``) on a split of the course's corpus, as notebooks 12 and 13 report it.

The split's text (its paragraphs joined by a blank line) is cut into windows of context + 1 characters that
overlap by one, so that every character but the first is predicted exactly once, from the characters before it
in its window; the mean of -log2 p(character).
"""
import functools
import math

import torch
from torch.nn import functional as F

from . import corpus

__all__ = ["SPLITS", "bits_per_char_unchecked", "split_ids"]

SPLITS = ("heldout", "train")


@functools.cache
def _ids(split):
    return torch.tensor(corpus.encode(corpus.text(split)), dtype=torch.long)


def split_ids(split):
    """The token ids of ``split`` ("heldout" or "train"), a 1-D int64 tensor (a copy)."""
    return _ids(split).clone()


def bits_per_char_unchecked(model, split, batch_size=32):
    """``model``'s mean bits per character on ``split`` (see the module docstring); the model is run in eval
    mode without gradients and left in the mode it had. Threads: the caller's."""
    ids = _ids(split)
    C = model.config["context"]
    starts = range(0, len(ids) - 1, C)
    total, count = 0.0, 0
    was = model.training
    model.eval()
    with torch.no_grad():
        for i in range(0, len(starts), batch_size):
            chunk = [ids[s:s + C + 1] for s in starts[i:i + batch_size]]
            for length in sorted({len(c) for c in chunk}):                       # the last window is shorter
                same = torch.stack([c for c in chunk if len(c) == length])      # (B, T + 1)
                logits = model(same[:, :-1])                                      # (B, T, V)
                nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).double(), same[:, 1:].reshape(-1),
                                      reduction="sum")
                total += nll.item()
                count += same[:, 1:].numel()
    model.train(was)
    return total / count / math.log(2)
