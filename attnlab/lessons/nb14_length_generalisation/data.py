"""The two tasks of notebook 14, as next-token prediction on sequences of any length n (the positions the model
reads). Token 0 is BOS (every sequence starts with it); the other tokens are symbols.

    "copy"    BOS x_1 … x_m x_1 x_2 …          x: m = ceil((n-1)/2) distinct symbols, then x again, cut at n
              scored: the second copy but its first symbol (nothing says where the copy starts); the answer
              is the symbol after the earlier occurrence of the current one (notebook 11's induction head)
    "latest"  BOS k v k v k v …                 pairs: a key k (one of KEYS = 4 keys) and a value v
              A pair is a read with probability 1/2 when its key was written before: v is then the value that
              key holds now, the v of its LATEST pair, and it is scored; otherwise it is a write, v a fresh
              random value (not scored). The same key comes back many times: its order decides the answer.

``targets`` marks the scored tokens: targets[i, t] is True when token t of sequence i is predicted (from the
tokens before it) and counted. TRAIN_LENGTH is the longest sequence the shipped models saw; they trained on
lengths from TRAIN_LENGTH / 2 to TRAIN_LENGTH and are tested up to 4 · TRAIN_LENGTH.
"""
from typing import NamedTuple

import torch

from ...core import checks

__all__ = ["BOS", "KEYS", "MAX_LENGTH", "MIN_LENGTH", "READ", "TASKS", "TRAIN_LENGTH", "VOCAB", "Batch", "batch",
           "batch_unchecked"]

VOCAB = 64
BOS = 0
KEYS = 4                              # "latest": keys are tokens 1 .. KEYS, values KEYS + 1 .. VOCAB - 1
READ = 0.5                            # "latest": the probability that a pair of a written key is a read
TASKS = ("copy", "latest")
TRAIN_LENGTH = 20
MAX_LENGTH = 4 * TRAIN_LENGTH         # the longest test the notebook runs (any length up to 4096 works)
MIN_LENGTH = 5                        # the shortest copy with a scored token


class Batch(NamedTuple):
    """``tokens`` (n, length) int64; ``targets`` (n, length) bool, True where the token there is scored."""
    tokens: torch.Tensor
    targets: torch.Tensor


@checks.arguments(task=checks.Choice(TASKS), n=checks.Int(1, 100_000), length=checks.Int(MIN_LENGTH, 4096),
                  seed=checks.Int(0))
def batch(task, n, length, *, seed):
    """``n`` sequences of ``task`` with ``length`` tokens each (the same on every machine for a seed)."""
    if n * length > 50_000_000:
        raise checks.error("n", f"n * length <= 50,000,000 tokens, got {n} * {length}")
    return batch_unchecked(task, n, length, torch.Generator().manual_seed(seed))


def batch_unchecked(task, n, length, generator):
    """``batch`` without its checks (training draws from its own generator)."""
    return _copy(n, length, generator) if task == "copy" else _latest(n, length, generator)


def _copy(n, length, generator):
    m = length // 2                                            # ceil((length - 1) / 2)
    symbols = VOCAB - 1
    if m > symbols:                                            # longer than the symbols: repeat them
        x = torch.randint(1, VOCAB, (n, m), generator=generator)
    else:
        x = torch.argsort(torch.rand(n, symbols, generator=generator), dim=1)[:, :m] + 1     # distinct
    tokens = torch.cat([torch.full((n, 1), BOS), x, x[:, : length - 1 - m]], dim=1)        # (n, length)
    targets = torch.zeros(n, length, dtype=torch.bool)
    targets[:, m + 2:] = True
    return Batch(tokens, targets)


def _latest(n, length, generator):
    pairs = length // 2                                        # k v, k v, ... (the last pair may be cut)
    keys = torch.randint(1, KEYS + 1, (n, pairs), generator=generator)
    fresh = torch.randint(KEYS + 1, VOCAB, (n, pairs), generator=generator)
    read = torch.rand(n, pairs, generator=generator) < READ
    holds = torch.zeros(n, KEYS + 1, dtype=torch.long)        # the value each key holds now (0: never written)
    values, scored = torch.empty(n, pairs, dtype=torch.long), torch.zeros(n, pairs, dtype=torch.bool)
    rows = torch.arange(n)
    for p in range(pairs):
        k = keys[:, p]
        now = holds[rows, k]
        scored[:, p] = read[:, p] & (now > 0)
        values[:, p] = torch.where(scored[:, p], now, fresh[:, p])
        holds[rows, k] = values[:, p]
    body = torch.stack([keys, values], dim=2).reshape(n, 2 * pairs)           # k v k v ...
    tokens = torch.cat([torch.full((n, 1), BOS), body], dim=1)[:, :length]
    marks = torch.stack([torch.zeros_like(scored), scored], dim=2).reshape(n, 2 * pairs)
    targets = torch.cat([torch.zeros(n, 1, dtype=torch.bool), marks], dim=1)[:, :length]
    return Batch(tokens, targets)
