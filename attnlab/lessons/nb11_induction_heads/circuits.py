"""Measuring the circuit: which heads look at the previous token, which ones at what came after the
current token last time, and how strongly a layer-2 head's keys read what a layer-1 head wrote.

Scores as ARENA defines them (a head "is" a previous-token head or an induction head above 0.4), on
the repeated part of each sequence (ARENA's sequences are BOS, x, x and nothing after):
- previous-token score: the mean weight a query at t puts on t-1, t = 1 … 2L;
- induction score: the mean weight a query in the second copy (t = L+1 … 2L) puts on t-L+1, the
  position just after the current token's first occurrence.
The filler after 2L is left out: no key there is one the induction head needs, and the trained
previous-token head does something else there (notebook 11 shows it).
K-composition (Elhage et al. 2021): ‖W_QK² W_OV¹‖_F / (‖W_QK²‖_F ‖W_OV¹‖_F) for a layer-2 head's
query-key matrix and a layer-1 head's output-value matrix.
"""
from typing import NamedTuple

import torch

from ...core import checks
from .data import BATCH
from .model import AttentionOnly, run_unchecked

__all__ = ["Scores", "k_composition", "scores", "scores_of"]


class Scores(NamedTuple):
    """``previous_token`` and ``induction``: tensors (layers, heads)."""
    previous_token: torch.Tensor
    induction: torch.Tensor


def scores(model, batch):
    """Each head's previous-token and induction score on ``batch`` (a ``repeats(...)`` batch)."""
    checks.instance(model, "model", AttentionOnly, "an AttentionOnly model (e.g. pretrained())")
    BATCH(batch, "batch")
    with torch.no_grad():
        patterns = run_unchecked(model, batch.tokens, need_weights=True)[1]
    return scores_of(patterns, batch.lengths)


def scores_of(patterns, lengths):
    """The two scores from attention patterns (a list per layer of (n, heads, T, T)) and each sequence's L."""
    W = torch.stack(patterns, 1)                                   # (n, layers, heads, T, T)
    T = W.shape[-1]
    t = torch.arange(T)
    L = lengths[:, None]
    repeated = ((t[None, 1:] >= 1) & (t[None, 1:] <= 2 * L)).to(W.dtype)          # t = 1..2L, (n, T-1)
    back = W.diagonal(offset=-1, dim1=-2, dim2=-1)                                # weights[t, t-1], t = 1..T-1
    previous = (back * repeated[:, None, None, :]).sum((0, -1)) / repeated.sum()
    in_second = (t[None, :] > L) & (t[None, :] <= 2 * L)                 # (n, T)
    source = (t[None, :] - L + 1).clamp(min=0)                           # t - L + 1
    picked = W.gather(-1, source[:, None, None, :, None].expand(*W.shape[:-1], 1)).squeeze(-1)  # (n, l, h, T)
    mask = in_second[:, None, None, :].to(W.dtype)
    induction = (picked * mask).sum((0, -1)) / mask.sum((0, -1))
    return Scores(previous, induction)


def k_composition(model):
    """(layers-1 pairs) K-composition of every layer-2 head (rows) with every layer-1 head (columns):
    a tensor (heads, heads), each entry in [0, 1]."""
    if not isinstance(model, AttentionOnly) or model.config["layers"] < 2:
        raise checks.error("model", "an AttentionOnly model with at least 2 layers")
    with torch.no_grad():
        W_QK = torch.einsum("hdw,hdv->hwv", model.W_Q[1], model.W_K[1])      # score = x^T W_QK y
        W_OV = torch.einsum("hwd,hdv->hwv", model.W_O[0], model.W_V[0])      # written = W_OV y
        composed = torch.einsum("awv,bvu->abwu", W_QK, W_OV)
        norm = torch.linalg.matrix_norm
        return norm(composed) / (norm(W_QK)[:, None] * norm(W_OV)[None, :])
