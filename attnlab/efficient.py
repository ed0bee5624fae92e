"""Attention that avoids the Tq x Tk weight matrix: tiled (flash-attention's online softmax) and
linear (kernel feature maps). Shape legend as in attention.py."""
import math

import torch
from torch.nn import functional as F

from . import _checks
from .attention import check_qkv
from .masking import causal_mask


def tiled_attention(queries, keys, values, mask=None, *, causal=False, block_size=128):
    """softmax(q·k / sqrt(d)) · v computed tile by tile, never building the Tq x Tk matrix.

    Flash attention's online softmax in plain torch: for each block of queries, walk over blocks of
    keys keeping a running max m, a running denominator l and an unnormalised output acc; when a
    new block raises the max, rescale l and acc by exp(m_old - m_new). Exact up to rounding.

    Args:
        queries (..., Tq, d), keys (..., Tk, d), values (..., Tk, dv); mask bool broadcastable to
        (..., Tq, Tk), True = may attend; causal: top-left aligned; block_size: tile edge, >= 1.
    Returns:
        output (..., Tq, dv); a query with no visible key gets a zero output.
    """
    shape = check_qkv(queries, keys, values)
    block = _checks.count(block_size, "block_size", low=1)
    if mask is not None:
        _checks.bool_mask(mask, "mask", shape)
        mask = mask.to(queries.device)
        if mask.dim() < 2:                                                        # (Tk,) or () -> (1, Tk|1)
            mask = mask.reshape((1,) * (2 - mask.dim()) + tuple(mask.shape))
    if not isinstance(causal, bool):
        raise TypeError(f"causal: expected a bool, got {type(causal).__name__}")
    batch, (Tq, Tk) = shape[:-2], shape[-2:]
    q = queries.expand(*batch, Tq, queries.shape[-1]) * (1.0 / math.sqrt(queries.shape[-1]))
    k = keys.expand(*batch, Tk, keys.shape[-1])
    v = values.expand(*batch, Tk, values.shape[-1])
    out = q.new_zeros(*batch, Tq, v.shape[-1])                                    # (..., Tq, dv)
    for q0 in range(0, Tq, block):
        q1 = min(q0 + block, Tq)
        m = q.new_full((*batch, q1 - q0, 1), float("-inf"))                      # running max
        l = q.new_zeros((*batch, q1 - q0, 1))                                     # running denominator
        acc = q.new_zeros((*batch, q1 - q0, v.shape[-1]))                         # running numerator
        for k0 in range(0, Tk if not causal else min(Tk, q1), block):
            k1 = min(k0 + block, Tk)
            s = q[..., q0:q1, :] @ k[..., k0:k1, :].transpose(-2, -1)             # (..., bq, bk)
            visible = _tile_mask(mask, causal, q0, q1, k0, k1, q.device)
            if visible is not None:
                s = s.masked_fill(~visible, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
            m_safe = m_new.masked_fill(torch.isinf(m_new), 0.0)                   # rows with nothing yet
            p = torch.exp(s - m_safe)                                             # masked -> 0
            rescale = torch.exp(m - m_safe)                                       # old partials -> new max
            l = l * rescale + p.sum(dim=-1, keepdim=True)
            acc = acc * rescale + p @ v[..., k0:k1, :]
            m = m_new
        out[..., q0:q1, :] = acc / l.masked_fill(l == 0, 1.0)
    return out


def _tile_mask(mask, causal, q0, q1, k0, k1, device):
    """The (…, bq, bk) slice of the combined mask, or None when the tile is fully visible."""
    visible = None
    if mask is not None:
        rows = mask if mask.shape[-2] == 1 else mask[..., q0:q1, :]
        visible = rows if rows.shape[-1] == 1 else rows[..., k0:k1]
    if causal and k1 - 1 > q0:
        tri = causal_mask(q1, k1, device=device)[q0:q1, k0:k1]
        visible = tri if visible is None else visible & tri
    return visible


def linear_attention(queries, keys, values, *, feature_map="elu"):
    """Linear attention: phi(Q) (phi(K)^T V), normalised by phi(Q) (phi(K)^T 1), in O(T d dv).

    phi = elu + 1 keeps features positive, so the "weights" phi(q)·phi(k) / sum are >= 0 and sum to
    1 per query, like a softmax; but they are not the softmax's weights, only a kernel stand-in.
    Args: queries (..., Tq, d), keys (..., Tk, d), values (..., Tk, dv); feature_map "elu" or a callable.
    Returns: output (..., Tq, dv).
    """
    check_qkv(queries, keys, values)
    if isinstance(feature_map, str) and feature_map == "elu":
        phi = _elu_plus_one
    elif callable(feature_map):
        phi = feature_map
    else:
        raise ValueError(f"feature_map: expected 'elu' or a callable, got {feature_map!r}")
    fq, fk = phi(queries), phi(keys)                                              # (..., T, d')
    kv = fk.transpose(-2, -1) @ values                                            # (..., d', dv)
    norm = fq @ fk.sum(dim=-2, keepdim=True).transpose(-2, -1)                    # (..., Tq, 1)
    return (fq @ kv) / norm.clamp_min(torch.finfo(norm.dtype).tiny)


def _elu_plus_one(x):
    return F.elu(x) + 1.0
