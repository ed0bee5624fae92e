"""Seed 001's ``DotProductAttention``, as the seed writes it and fixed (notebook 07, section 3).

The seed masks padding with ``scores.masked_fill_(mask == 0, float('-inf'))`` before the softmax, so
a sequence whose keys are all padding gets 0/0 = NaN weights, and it never divides the scores by
sqrt(d). The fixed version does both (attnlab's convention: an all-padding row gets zero weights).

Shapes as in the seed: query (B, input_dim) (one query per sequence), key, value (B, n, input_dim),
mask (B, n) with 1 = a real token, 0 = padding.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

from ...core import checks
from ...core.attention import scaled_dot_product_attention

__all__ = ["SeedDotProductAttention", "score_spread"]


class SeedDotProductAttention(nn.Module):
    """Seed 001's module (``fixed=False``: verbatim forward) or its fix (``fixed=True``).

    forward(query (B, D), key, value (B, n, D), mask (B, n) or None) -> (output (B, h), weights (B, n)).
    """

    @checks.arguments(input_dim=checks.Int(1, 4096), hidden_dim=checks.Optional(checks.Int(1, 4096)),
                       fixed=checks.Flag())
    def __init__(self, input_dim, hidden_dim=None, *, fixed=False):
        super().__init__()
        hidden_dim = input_dim if hidden_dim is None else hidden_dim
        self.fixed = bool(fixed)
        self.query = nn.Linear(input_dim, hidden_dim, bias=False)
        self.key = nn.Linear(input_dim, hidden_dim, bias=False)
        self.value = nn.Linear(input_dim, hidden_dim, bias=False)

    def forward(self, query, key, value, mask=None):
        Q = self.query(query)                                                # (B, h)
        K = self.key(key)                                                    # (B, n, h)
        V = self.value(value)                                                # (B, n, h)
        if self.fixed:
            keep = None if mask is None else (mask != 0)[:, None, :]         # (B, 1, n), True = may attend
            out, weights = scaled_dot_product_attention(Q[:, None, :], K, V, keep)   # scale 1/sqrt(h)
            return out[:, 0], weights[:, 0]
        scores = torch.bmm(Q.unsqueeze(1), K.transpose(1, 2)).squeeze(1)     # (B, n), no sqrt(h): as the seed
        if mask is not None:
            scores.masked_fill_(mask == 0, float("-inf"))                    # as the seed (scores is new)
        attn_weights = F.softmax(scores, dim=-1)                             # (B, n)
        attn_values = torch.bmm(attn_weights.unsqueeze(1), V).squeeze(1)     # (B, h)
        return attn_values, attn_weights


@checks.arguments(hidden_dim=checks.Int(1, 1 << 16), samples=checks.Int(2, 1 << 20), seed=checks.Int(0))
def score_spread(hidden_dim, *, samples=2000, seed=0):
    """Standard deviation of q·k for q, k with independent N(0, 1) entries of size ``hidden_dim``,
    without and with the 1/sqrt(d) scaling: (unscaled, scaled). Expected: (sqrt(d), 1)."""
    d = hidden_dim
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, samples, d, generator=g, dtype=torch.float64)
    dots = (q * k).sum(-1)
    return float(dots.std()), float((dots / math.sqrt(d)).std())
