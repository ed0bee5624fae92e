"""Scoring functions (评分函数): how well each query matches each key.

All take queries (..., Tq, d) and keys (..., Tk, d), whose leading dims broadcast, and return
scores (..., Tq, Tk). A softmax over the last dim turns scores into attention weights.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

from . import checks
from .masking import compute_dtype


def check_pair(queries, keys):
    """Queries (..., Tq, d) and keys (..., Tk, d): float tensors of one dtype and device, one d,
    broadcastable batch dims; raises ValueError/TypeError naming the argument."""
    checks.tensor(queries, "queries", min_dim=2)
    checks.tensor(keys, "keys", min_dim=2)
    checks.same_kind(queries, "queries", keys, "keys")
    if keys.shape[-1] != queries.shape[-1]:
        raise checks.error("keys", f"last dim {queries.shape[-1]} to match queries", keys.shape[-1])
    if queries.shape[-1] == 0:
        raise checks.error("queries", "at least one feature (last dim d >= 1)", f"shape {tuple(queries.shape)}")
    checks.batch_shape(("queries", queries), ("keys", keys))


def check_scores_size(queries, keys, extra=1, what="scores (..., Tq, Tk)"):
    """Refuse (ValueError naming queries, keys) scores, times ``extra``, larger than 1 GiB."""
    batch = torch.broadcast_shapes(queries.shape[:-2], keys.shape[:-2])
    checks.fits((*batch, queries.shape[-2], keys.shape[-2], extra), queries.element_size(), "queries, keys", what)


def dot_scores(queries, keys):
    """q · k for every query-key pair: (..., Tq, d), (..., Tk, d) -> (..., Tq, Tk)."""
    check_pair(queries, keys)
    check_scores_size(queries, keys)
    return queries @ keys.transpose(-2, -1)


def scaled_dot_scores(queries, keys):
    """q · k / sqrt(d): dividing by sqrt(d) keeps the variance at 1 when q, k have unit-variance entries."""
    check_pair(queries, keys)
    check_scores_size(queries, keys)
    return (queries @ keys.transpose(-2, -1)) / math.sqrt(queries.shape[-1])


def cosine_scores(queries, keys, eps=1e-8):
    """q · k / (|q| |k|), in [-1, 1]; a zero vector scores 0 against everything."""
    check_pair(queries, keys)
    check_scores_size(queries, keys)
    return cosine_scores_unchecked(queries, keys, checks.real(eps, "eps", positive=True))


def cosine_scores_unchecked(queries, keys, eps=1e-8):
    """``cosine_scores`` without its checks (queries, keys and eps already checked, e.g. by a live panel)."""
    return F.normalize(queries, dim=-1, eps=eps) @ F.normalize(keys, dim=-1, eps=eps).transpose(-2, -1)


def gaussian_scores(queries, keys, sigma=1.0):
    """-|q - k|^2 / (2 sigma^2): the Gaussian kernel's exponent (Nadaraya-Watson).

    softmax of these scores over the keys is exactly the normalised Gaussian kernel. Scores below
    the dtype's range are -inf (a tiny sigma, far keys in float16), never NaN; float16/bfloat16
    are computed in float32.
    1-D inputs (Tq,) and (Tk,) are read as scalar positions and give (Tq, Tk).
    """
    sigma = checks.real(sigma, "sigma", positive=True)
    checks.tensor(queries, "queries", min_dim=1)
    checks.tensor(keys, "keys", min_dim=1)
    if (queries.dim() == 1) != (keys.dim() == 1):
        raise checks.error("keys", f"1-D like queries {tuple(queries.shape)} or both >= 2-D", tuple(keys.shape))
    if queries.dim() == 1:
        queries, keys = queries[:, None], keys[:, None]           # (Tq, 1), (Tk, 1)
    check_pair(queries, keys)
    check_scores_size(queries, keys, 4 // queries.element_size() or 1)   # computed in >= float32
    return gaussian_scores_unchecked(queries, keys, sigma)


def gaussian_scores_unchecked(queries, keys, sigma=1.0):
    """``gaussian_scores`` of (..., Tq, d), (..., Tk, d) without its checks (already checked, e.g. by a
    live panel)."""
    sq = squared_distances(queries, keys)                         # (..., Tq, Tk), float32 for halves
    denom = 2 * sigma * sigma
    if denom < torch.finfo(sq.dtype).tiny:                        # 1 / denom is beyond the dtype's range:
        scores = torch.zeros_like(sq).masked_fill(sq > 0, float("-inf"))    # the limit sigma -> 0
    else:
        scores = -sq / denom
    return scores.to(queries.dtype)


def squared_distances(queries, keys):
    """|q - k|^2 for every pair, (..., Tq, d), (..., Tk, d) -> (..., Tq, Tk), unchecked; computed in
    float32 for float16/bfloat16 (whose range ends at 65504 / whose precision is 3 digits)."""
    dtype = compute_dtype(queries.dtype)
    queries, keys = queries.to(dtype), keys.to(dtype)
    batch = torch.broadcast_shapes(queries.shape[:-2], keys.shape[:-2])
    if batch.numel() * queries.shape[-2] * keys.shape[-2] * queries.shape[-1] <= _EXACT_LIMIT:
        diff = queries.unsqueeze(-2) - keys.unsqueeze(-3)         # (..., Tq, Tk, d): exact
        return (diff * diff).sum(-1)                              # (..., Tq, Tk)
    # |q|^2 + |k|^2 - 2 q·k: no (Tq, Tk, d) tensor, tiny rounding where q ≈ k
    return ((queries * queries).sum(-1, keepdim=True) + (keys * keys).sum(-1).unsqueeze(-2)
            - 2 * queries @ keys.transpose(-2, -1)).clamp_min(0)


_EXACT_LIMIT = 1 << 22   # elements of the (..., Tq, Tk, d) difference tensor (32 MiB in float64)


def additive_scores(queries, keys, W_q, W_k, w_v):
    """w_v^T tanh(W_q q + W_k k) for every pair (Bahdanau); the layers are given."""
    q = W_q(queries).unsqueeze(-2)                                # (..., Tq, 1, h)
    k = W_k(keys).unsqueeze(-3)                                   # (..., 1, Tk, h)
    return w_v(torch.tanh(q + k)).squeeze(-1)                     # (..., Tq, Tk)


def check_additive_inputs(queries, keys, query_size, key_size):
    """Checks for the additive score's inputs, whose sizes may differ."""
    checks.tensor(queries, "queries", min_dim=2)
    checks.tensor(keys, "keys", min_dim=2)
    checks.same_kind(queries, "queries", keys, "keys")
    if queries.shape[-1] != query_size:
        raise checks.error("queries", f"last dim query_size={query_size}", queries.shape[-1])
    if keys.shape[-1] != key_size:
        raise checks.error("keys", f"last dim key_size={key_size}", keys.shape[-1])
    checks.batch_shape(("queries", queries), ("keys", keys))


class AdditiveScores(nn.Module):
    """Additive (加性) scores w_v^T tanh(W_q q + W_k k): queries and keys may have different sizes.

    Args:
        query_size, key_size: last dims of queries and keys.
        num_hiddens: h, the size of the hidden layer.
    forward(queries (..., Tq, query_size), keys (..., Tk, key_size)) -> scores (..., Tq, Tk).
    """

    def __init__(self, query_size, key_size, num_hiddens):
        super().__init__()
        self.query_size = checks.count(query_size, "query_size", low=1)
        self.key_size = checks.count(key_size, "key_size", low=1)
        num_hiddens = checks.count(num_hiddens, "num_hiddens", low=1)
        self.W_q = nn.Linear(self.query_size, num_hiddens, bias=False)
        self.W_k = nn.Linear(self.key_size, num_hiddens, bias=False)
        self.w_v = nn.Linear(num_hiddens, 1, bias=False)

    def forward(self, queries, keys):
        check_additive_inputs(queries, keys, self.query_size, self.key_size)
        check_scores_size(queries, keys, self.W_q.out_features, "the hidden layer (..., Tq, Tk, num_hiddens)")
        checks.module_kind(self, queries, "queries")
        return additive_scores(queries, keys, self.W_q, self.W_k, self.w_v)
