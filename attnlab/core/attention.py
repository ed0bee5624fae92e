"""Attention pooling (注意力汇聚): scaled dot-product attention, Nadaraya-Watson, and the
d2l-style modules built on them.

Shape legend: B batch, Tq queries, Tk keys/values, d query/key size, dv value size.
Masks are bool with True = may attend; mask, valid_lens and causal combine with AND.
A query whose keys are all masked gets zero weights and a zero output, never NaN.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

from . import checks
from .masking import (
    causal_unchecked,
    compute_dtype,
    sequence_mask,
    sequence_mask_unchecked,
    softmax_unchecked,
    stable_softmax,
)
from .scoring import (
    AdditiveScores,
    additive_scores,
    check_additive_inputs,
    check_pair,
    check_scores_size,
    squared_distances,
)


def check_qkv(queries, keys, values):
    """Check q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv); return the weights' shape (..., Tq, Tk)."""
    check_pair(queries, keys)
    checks.tensor(values, "values", min_dim=2)
    checks.same_kind(queries, "queries", values, "values")
    if values.shape[-2] != keys.shape[-2]:
        raise checks.error("values", f"{keys.shape[-2]} rows to match keys (dim -2)", values.shape[-2])
    batch = checks.batch_shape(("queries", queries), ("keys", keys), ("values", values))
    return batch + (queries.shape[-2], keys.shape[-2])


def combine_masks(shape, device, mask=None, valid_lens=None, causal=False):
    """AND of a bool mask, a padding mask from valid_lens and a causal mask; None if all are off.

    ``shape`` is the weights' shape (..., Tq, Tk). valid_lens (B,) or (B, Tq) refers to the first
    batch dim, as in d2l; for 4-D weights (B, H, Tq, Tk) it applies to every head.
    """
    Tq, Tk = shape[-2], shape[-1]
    combined = None
    if mask is not None:
        combined = checks.bool_mask(mask, "mask", shape).to(device)
    if valid_lens is not None:
        if len(shape) < 3:
            raise checks.error("valid_lens", "batched inputs (B, T, d)", f"weights of shape {tuple(shape)}")
        if isinstance(valid_lens, torch.Tensor) and valid_lens.dim() >= 1 and valid_lens.shape[0] != shape[0]:
            raise checks.error("valid_lens", f"first dim {shape[0]} (the batch)", tuple(valid_lens.shape))
        if isinstance(valid_lens, torch.Tensor) and valid_lens.dim() == 2 and valid_lens.shape[1] != Tq:
            raise checks.error("valid_lens", f"shape ({shape[0]}, {Tq}) for per-query lengths",
                               tuple(valid_lens.shape))
        pad = sequence_mask(valid_lens, Tk).to(device)                           # (B, 1|Tq, Tk)
        pad = pad.reshape(pad.shape[:1] + (1,) * (len(shape) - 3) + pad.shape[1:])  # (B, 1.., 1|Tq, Tk)
        combined = pad if combined is None else combined & pad
    checks.flag(causal, "causal")
    if causal:
        tri = causal_unchecked(Tq, Tk, device)                                   # (Tq, Tk)
        combined = tri if combined is None else combined & tri
    return combined


def scaled_dot_product_attention(queries, keys, values, mask=None, *, valid_lens=None, causal=False,
                                 temperature=1.0, scale=None, dropout=0.0, generator=None,
                                 need_weights=True):
    """softmax(q·k * scale / temperature) · v, with masks.

    Args:
        queries: (..., Tq, d); keys: (..., Tk, d); values: (..., Tk, dv). Leading dims broadcast.
        mask: bool broadcastable to (..., Tq, Tk), True = may attend.
        valid_lens: int (B,) or (B, Tq): keys at positions >= the length are padding.
        causal: query i sees keys 0..i (top-left aligned, like torch's is_causal).
        temperature: finite, > 0, divides the logits.
        scale: multiplies q·k; defaults to 1/sqrt(d).
        dropout: probability in [0, 1) of zeroing a weight (survivors scaled by 1/(1-p)).
        generator: torch.Generator for the dropout, so results can be reproduced.
        need_weights: False may take torch's fused kernel (flash attention on a GPU) and returns
            (output, None) with the same output.
    Returns:
        (output (..., Tq, dv), weights (..., Tq, Tk) or None).
    """
    shape = check_qkv(queries, keys, values)
    temperature = checks.real(temperature, "temperature", positive=True)
    scale = 1.0 / math.sqrt(queries.shape[-1]) if scale is None else checks.real(scale, "scale")
    dropout = checks.real(dropout, "dropout", low=0.0, below=1.0)
    checks.instance(generator, "generator", torch.Generator, "a torch.Generator or None", optional=True)
    checks.flag(need_weights, "need_weights")
    combined = combine_masks(shape, queries.device, mask, valid_lens, causal)
    return attend_unchecked(queries, keys, values, combined, scale / temperature, dropout, generator, need_weights)


def attend_unchecked(queries, keys, values, combined, factor, dropout=0.0, generator=None, need_weights=True):
    """The unchecked core of scaled_dot_product_attention: ``combined`` is the bool mask (or None),
    ``factor`` = scale / temperature (a Python float: may be 0 or inf past float64). For callers
    that have checked their inputs (MultiHeadAttention)."""
    shape = torch.broadcast_shapes(queries.shape[:-2], keys.shape[:-2]) + (queries.shape[-2], keys.shape[-2])
    if not need_weights and (dropout == 0.0 or generator is None) and _logits_fit(queries, keys, factor, queries.dtype):
        output = F.scaled_dot_product_attention(queries, keys, values, attn_mask=combined,
                                                dropout_p=dropout, scale=factor)
        if combined is not None:                        # fused GPU kernels may not zero empty rows
            output = output.masked_fill(~combined.any(dim=-1, keepdim=True), 0.0)   # (..., Tq, dv)
        return output, None

    # The weights path (and the fallback when the fused kernel's logits could overflow): q·k in
    # float32 for halves, each row's top visible logit subtracted before scaling by scale/temperature.
    dtype = compute_dtype(queries.dtype)
    checks.fits(shape, torch.finfo(dtype).bits // 8, "queries, keys",
                 "attention weights (..., Tq, Tk) (pass need_weights=False, or use tiled_attention)")
    return _with_weights(queries, keys, values, combined, factor, dropout, generator, need_weights)


def _with_weights(queries, keys, values, combined, factor, dropout=0.0, generator=None, need_weights=True):
    """attend_unchecked's weights path, past its memory guard (for weights a model's own step makes)."""
    dtype = compute_dtype(queries.dtype)
    q, k = queries.to(dtype), keys.to(dtype)
    if _logits_fit(q, k, factor, dtype):                 # the usual case: scale q, then torch's softmax
        weights = softmax_unchecked((q * factor) @ k.transpose(-2, -1), combined)   # (..., Tq, Tk)
    else:                                                # extreme scale/temperature: shift, then scale
        weights = stable_softmax(q @ k.transpose(-2, -1), factor, combined)         # (..., Tq, Tk)
    dropped = _dropout(weights, dropout, generator, queries.dtype) if dropout > 0 else weights
    output = (dropped @ values.to(dtype)).to(values.dtype)                       # (..., Tq, dv)
    return output, (weights.to(queries.dtype) if need_weights else None)


def _weights_shape(queries, keys):
    return torch.broadcast_shapes(queries.shape[:-2], keys.shape[:-2]) + (queries.shape[-2], keys.shape[-2])


def padding_unchecked(shape, device, valid_lens):
    """``combine_masks(shape, device, valid_lens=valid_lens)`` without its checks: the padding mask, or None."""
    if valid_lens is None:
        return None
    pad = sequence_mask_unchecked(valid_lens, shape[-1]).to(device)               # (B, 1|Tq, Tk)
    return pad.reshape(pad.shape[:1] + (1,) * (len(shape) - 3) + pad.shape[1:])  # (B, 1.., 1|Tq, Tk)


def _logits_fit(queries, keys, factor, dtype):
    """True when factor * q·k cannot overflow ``dtype``: |factor| d max|q| max|k| stays well inside
    its range and factor is an ordinary number of it. Costs two reductions over q and k."""
    info = torch.finfo(dtype)
    if not info.tiny <= abs(factor) <= info.max or queries.numel() == 0 or keys.numel() == 0:
        return False
    q, k = queries.detach(), keys.detach()            # amax/amin: much faster than abs().amax() on CPU
    qhi, qlo, khi, klo = torch.stack([q.amax(), q.amin(), k.amax(), k.amin()]).float().tolist()
    return abs(factor) * q.shape[-1] * max(qhi, -qlo) * max(khi, -klo) < info.max / 4


def _dropout(weights, p, generator, draw_dtype):
    keep = torch.rand(weights.shape, generator=generator, device=weights.device, dtype=draw_dtype) >= p
    return weights * keep / (1.0 - p)


def nadaraya_watson(x_queries, x_keys, y_values, sigma=1.0):
    """Nadaraya-Watson kernel regression: y_hat = sum_i softmax(-(x - x_i)^2 / (2 sigma^2)) y_i.

    Args:
        x_queries: (Tq,) or (Tq, d); x_keys: (Tk,) or (Tk, d), like x_queries.
        y_values: (Tk,) or (Tk, dv).
        sigma: kernel width, > 0. Small sigma follows the nearest key; large sigma averages.
    Returns:
        (y_hat (Tq,) or (Tq, dv), weights (Tq, Tk)), in the inputs' dtype; never NaN for finite
        inputs (the nearest key's score is subtracted before dividing by 2 sigma^2, float16 and
        bfloat16 are computed in float32).
    """
    checks.tensor(y_values, "y_values", min_dim=1)
    checks.tensor(x_keys, "x_keys", min_dim=1)
    if y_values.dim() > 2:
        raise checks.error("y_values", "shape (Tk,) or (Tk, dv)", tuple(y_values.shape))
    if y_values.shape[0] != x_keys.shape[0]:
        raise checks.error("y_values", f"{x_keys.shape[0]} rows to match x_keys", y_values.shape[0])
    checks.tensor(x_queries, "x_queries", min_dim=1)
    if x_queries.dim() > 2 or x_keys.dim() > 2:
        raise checks.error("x_queries, x_keys", "(T,) or (T, d)",
                           f"{tuple(x_queries.shape)} and {tuple(x_keys.shape)}")
    checks.same_kind(x_keys, "x_keys", y_values, "y_values")
    checks.same_kind(x_keys, "x_keys", x_queries, "x_queries")
    if x_queries.shape[1:] != x_keys.shape[1:]:
        raise checks.error("x_queries", f"rows shaped like x_keys' {tuple(x_keys.shape[1:])}",
                           tuple(x_queries.shape[1:]))
    if x_queries.dim() == 2 and x_queries.shape[1] == 0:
        raise checks.error("x_queries", "at least one feature (d >= 1)", f"shape {tuple(x_queries.shape)}")
    sigma = checks.real(sigma, "sigma", positive=True)
    checks.fits((x_queries.shape[0], x_keys.shape[0]), 8, "x_queries, x_keys", "weights (Tq, Tk)")
    q = x_queries[:, None] if x_queries.dim() == 1 else x_queries                   # (Tq, d)
    k = x_keys[:, None] if x_keys.dim() == 1 else x_keys                            # (Tk, d)
    sq = squared_distances(q, k)                                                    # (Tq, Tk), float32 for halves
    denom = 2 * sigma * sigma
    weights = stable_softmax(-sq, math.inf if denom == 0 else 1.0 / denom)         # nearest key first: no NaN
    y_hat = weights @ y_values.to(weights.dtype)
    return y_hat.to(y_values.dtype), weights.to(x_keys.dtype)


class DotProductAttention(nn.Module):
    """Scaled dot-product attention as a d2l-style module (dropout on the weights while training).

    forward(queries (B, Tq, d), keys (B, Tk, d), values (B, Tk, dv), valid_lens=None) -> (B, Tq, dv);
    the weights of the last call are kept in ``.attention_weights`` (B, Tq, Tk).
    """

    def __init__(self, dropout=0.0):
        super().__init__()
        self.dropout = checks.real(dropout, "dropout", low=0.0, below=1.0)
        self.attention_weights = None

    def forward(self, queries, keys, values, valid_lens=None):
        p = self.dropout if self.training else 0.0
        output, self.attention_weights = scaled_dot_product_attention(
            queries, keys, values, valid_lens=valid_lens, dropout=p)
        return output

    def forward_unchecked(self, queries, keys, values, valid_lens=None):
        """``forward`` without its checks, for inputs a model made itself (a decoder's step)."""
        p = self.dropout if self.training else 0.0
        combined = padding_unchecked(_weights_shape(queries, keys), queries.device, valid_lens)
        output, self.attention_weights = _with_weights(queries, keys, values, combined,
                                                       1.0 / math.sqrt(queries.shape[-1]), p)
        return output


class AdditiveAttention(nn.Module):
    """Additive (Bahdanau) attention: weights = softmax(w_v^T tanh(W_q q + W_k k)), output = weights · v.

    Bias-free layers W_q (query_size -> h), W_k (key_size -> h), w_v (h -> 1), as in d2l.
    forward(queries (B, Tq, query_size), keys (B, Tk, key_size), values (B, Tk, dv), valid_lens=None)
    -> (B, Tq, dv); ``.attention_weights`` (B, Tq, Tk).
    """

    def __init__(self, key_size, query_size, num_hiddens, dropout=0.0):
        super().__init__()
        scores = AdditiveScores(query_size, key_size, num_hiddens)
        self.query_size, self.key_size = scores.query_size, scores.key_size
        self.W_q, self.W_k, self.w_v = scores.W_q, scores.W_k, scores.w_v
        self.dropout = nn.Dropout(checks.real(dropout, "dropout", low=0.0, below=1.0))
        self.attention_weights = None

    def forward(self, queries, keys, values, valid_lens=None):
        check_additive_inputs(queries, keys, self.query_size, self.key_size)
        check_scores_size(queries, keys, self.W_q.out_features, "the hidden layer (..., Tq, Tk, num_hiddens)")
        checks.tensor(values, "values", min_dim=2)
        checks.same_kind(queries, "queries", values, "values")
        checks.module_kind(self, queries, "queries")
        if values.shape[-2] != keys.shape[-2]:
            raise checks.error("values", f"{keys.shape[-2]} rows to match keys (dim -2)", values.shape[-2])
        batch = checks.batch_shape(("queries", queries), ("keys", keys), ("values", values))
        shape = batch + (queries.shape[-2], keys.shape[-2])                       # (B, Tq, Tk)
        mask = combine_masks(shape, queries.device, valid_lens=valid_lens)       # checked before any matmul
        return self._attend(queries, keys, values, mask)

    def forward_unchecked(self, queries, keys, values, valid_lens=None):
        """``forward`` without its checks, for inputs a model made itself (a decoder's step)."""
        return self._attend(queries, keys, values,
                            padding_unchecked(_weights_shape(queries, keys), queries.device, valid_lens))

    def _attend(self, queries, keys, values, mask):
        scores = additive_scores(queries, keys, self.W_q, self.W_k, self.w_v)    # (B, Tq, Tk)
        self.attention_weights = stable_softmax(scores, 1.0, mask)                         # (B, Tq, Tk)
        return self.dropout(self.attention_weights) @ values                       # (B, Tq, dv)
