"""The task: a random sequence, then the same sequence again, then filler.

    BOS  x_1 x_2 … x_L  x_1 x_2 … x_L  filler …
    0    1   2     L    L+1         2L 2L+1     CONTEXT-1

The L symbols of x are distinct, drawn from 1..VOCAB-1 (token 0 is BOS, the start of every sequence).
The first copy cannot be predicted (each next symbol is a fresh draw: the best loss is ln of the
number of symbols left); in the second copy every next symbol but the first is written earlier in
the context, one place after the current symbol's first occurrence. ``predictable`` marks the
positions whose NEXT token is so determined: t = L+1 … 2L-1.
"""
from typing import NamedTuple

import torch

from ...core import checks

__all__ = ["BATCH", "BOS", "CONTEXT", "LENGTHS", "VOCAB", "Repeats", "repeats", "repeats_unchecked"]

VOCAB = 64                 # token 0 is BOS; symbols 1..63
CONTEXT = 48               # positions per sequence
LENGTHS = (6, 16)          # the repeat lengths L trained on, both ends included
BOS = 0


class Repeats(NamedTuple):
    """A batch of repeated sequences: ``tokens`` (n, CONTEXT) int64, ``predictable`` (n, CONTEXT) bool,
    ``lengths`` (n,) int64, the L of each sequence."""
    tokens: torch.Tensor
    predictable: torch.Tensor
    lengths: torch.Tensor


BATCH = checks.Instance(Repeats, "a batch of repeats(...)")     # the spec of a `batch` argument


def _lengths(lengths, name="lengths"):
    if not isinstance(lengths, (tuple, list)) or len(lengths) != 2:
        raise checks.error(name, "a pair (shortest, longest) of repeat lengths", repr(lengths), kind=TypeError)
    low = checks.count(lengths[0], f"{name}[0]", low=2)
    high = checks.count(lengths[1], f"{name}[1]", low=low)
    if 2 * high + 1 > CONTEXT:
        raise checks.error(name, f"repeats that fit the context (2 L + 1 <= {CONTEXT})", f"L up to {high}")
    if high > VOCAB - 1:
        raise checks.error(name, f"at most {VOCAB - 1} distinct symbols", f"L up to {high}")
    return low, high


@checks.arguments(n=checks.Int(1, 100_000), seed=checks.Optional(checks.Int(0)))
def repeats(n, *, lengths=LENGTHS, seed=None):
    """``n`` sequences BOS, x, x, filler, with L = len(x) drawn uniformly from ``lengths`` (shortest,
    longest; both included) and x of distinct symbols. ``seed``: None draws from torch's global
    generator (as torch's own samplers do); an int gives the same batch on every machine."""
    low, high = _lengths(lengths)
    generator = None if seed is None else torch.Generator().manual_seed(seed)
    return repeats_unchecked(n, low, high, generator)


def repeats_unchecked(n, low, high, generator=None):
    """``repeats`` without the checks (the training loop's batches)."""
    L = torch.randint(low, high + 1, (n,), generator=generator)
    # distinct symbols: the first L of a random permutation of 1..VOCAB-1, for each row
    symbols = torch.argsort(torch.rand(n, VOCAB - 1, generator=generator), dim=1) + 1
    filler = torch.randint(1, VOCAB, (n, CONTEXT), generator=generator)
    pos = torch.arange(CONTEXT)
    first = (pos >= 1) & (pos[None, :] <= L[:, None])                           # 1..L
    second = (pos[None, :] > L[:, None]) & (pos[None, :] <= 2 * L[:, None])     # L+1..2L
    index_first = (pos[None, :] - 1).clamp(min=0)
    index_second = (pos[None, :] - 1 - L[:, None]).clamp(min=0, max=VOCAB - 2)
    tokens = torch.where(first, symbols.gather(1, index_first.expand(n, -1).clamp(max=VOCAB - 2)), filler)
    tokens = torch.where(second, symbols.gather(1, index_second), tokens)
    tokens[:, 0] = BOS
    predictable = (pos[None, :] > L[:, None]) & (pos[None, :] < 2 * L[:, None])   # L+1..2L-1
    return Repeats(tokens, predictable, L)
