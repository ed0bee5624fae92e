"""Attention that avoids the Tq x Tk weight matrix: tiled (flash-attention's online softmax) and
linear (kernel feature maps). Shape legend as in attention.py."""
import math
import warnings

import torch

from . import checks
from .attention import check_qkv
from .masking import causal_unchecked, compute_dtype

WARN_TILES = 10_000        # tiles (one Python step each) past which tiled_attention warns
MAX_TILES = 1_000_000      # ... and past which it refuses: minutes of Python loop


def tiled_attention(queries, keys, values, mask=None, *, causal=False, block_size=128):
    """softmax(q·k / sqrt(d)) · v computed tile by tile, never building the Tq x Tk matrix.

    Flash attention's online softmax in plain torch: for each block of queries, walk over blocks of
    keys keeping a running max m, a running denominator l and an unnormalised output acc; when a
    new block raises the max, rescale l and acc by exp(m_old - m_new). Exact up to rounding.

    Args:
        queries (..., Tq, d), keys (..., Tk, d), values (..., Tk, dv); mask bool broadcastable to
        (..., Tq, Tk), True = may attend; causal: top-left aligned; block_size: tile edge, >= 1.
    Returns:
        output (..., Tq, dv), in the inputs' dtype (float16/bfloat16 computed in float32); a query
        with no visible key gets a zero output.
    Each tile is one step of a Python loop: more than WARN_TILES tiles warns, more than MAX_TILES
    is refused (a ValueError naming block_size, with the numbers).
    """
    shape = check_qkv(queries, keys, values)
    block = checks.count(block_size, "block_size", low=1)
    Tq, Tk = shape[-2:]
    tiles = -(-Tq // block) * -(-Tk // block)
    if tiles > WARN_TILES:
        need = max(Tq, Tk) // 100 + 1                       # a block size giving about 10^4 tiles
        message = (f"block_size={block} with Tq={Tq}, Tk={Tk} makes {tiles} tiles, one Python step each; "
                   f"block_size >= {need} makes at most {-(-Tq // need) * -(-Tk // need)}")
        if tiles > MAX_TILES:
            raise checks.error("block_size", f"at most {MAX_TILES} tiles", message)
        warnings.warn(f"tiled_attention is slow here: {message}", stacklevel=2)
    if mask is not None:
        checks.bool_mask(mask, "mask", shape)
        mask = mask.to(queries.device)
        if mask.dim() < 2:                                                        # (Tk,) or () -> (1, Tk|1)
            mask = mask.reshape((1,) * (2 - mask.dim()) + tuple(mask.shape))
    checks.flag(causal, "causal")
    batch = shape[:-2]
    dtype = compute_dtype(queries.dtype)
    q = queries.to(dtype).expand(*batch, Tq, queries.shape[-1]) * (1.0 / math.sqrt(queries.shape[-1]))
    k = keys.to(dtype).expand(*batch, Tk, keys.shape[-1])
    v = values.to(dtype).expand(*batch, Tk, values.shape[-1])
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
    return out.to(values.dtype)


def _tile_mask(mask, causal, q0, q1, k0, k1, device):
    """The (…, bq, bk) slice of the combined mask, or None when the tile is fully visible."""
    visible = None
    if mask is not None:
        rows = mask if mask.shape[-2] == 1 else mask[..., q0:q1, :]
        visible = rows if rows.shape[-1] == 1 else rows[..., k0:k1]
    if causal and k1 - 1 > q0:
        tri = causal_unchecked(q1, k1, device)[q0:q1, k0:k1]
        visible = tri if visible is None else visible & tri
    return visible


def linear_attention(queries, keys, values, *, feature_map="elu"):
    """Linear attention: phi(Q) (phi(K)^T V), normalised by phi(Q) (phi(K)^T 1), in O(T d dv).

    phi = elu + 1 keeps features positive, so the "weights" phi(q)·phi(k) / sum are >= 0 and sum to
    1 per query, like a softmax; but they are not the softmax's weights, only a kernel stand-in.
    elu(x) + 1 is computed as exp(x) for x <= 0 (no cancellation: -20 gives 2e-9, not 0), x + 1 above.
    Args: queries (..., Tq, d), keys (..., Tk, d), values (..., Tk, dv); feature_map "elu" or a
        callable mapping (..., T, d) to (..., T, d') with the same d' for queries and keys.
    Returns: output (..., Tq, dv) in the inputs' dtype (float16/bfloat16 computed in float32).
    """
    check_qkv(queries, keys, values)
    if isinstance(feature_map, str) and feature_map == "elu":
        phi = elu_plus_one
    elif callable(feature_map) and not isinstance(feature_map, str):
        phi = feature_map
    else:
        raise checks.error("feature_map", "'elu' or a callable", repr(feature_map))
    dtype = compute_dtype(queries.dtype)
    fq, fk = phi(queries.to(dtype)), phi(keys.to(dtype))                          # (..., T, d')
    for name, f, x in (("queries", fq, queries), ("keys", fk, keys)):
        if not isinstance(f, torch.Tensor) or f.shape[:-1] != x.shape[:-1] or f.shape[-1] != fq.shape[-1]:
            got = tuple(f.shape) if isinstance(f, torch.Tensor) else type(f).__name__
            raise checks.error("feature_map",
                               f"a tensor shaped like {name} {tuple(x.shape[:-1])} + (d',) with one d' for queries "
                               "and keys", f"{got} for {name}")
    kv = fk.transpose(-2, -1) @ values.to(fk.dtype)                               # (..., d', dv)
    norm = fq @ fk.sum(dim=-2, keepdim=True).transpose(-2, -1)                    # (..., Tq, 1)
    return ((fq @ kv) / norm.clamp_min(torch.finfo(norm.dtype).tiny)).to(values.dtype)


def elu_plus_one(x):
    """elu(x) + 1 without cancellation: exp(x) for x <= 0, x + 1 above; finite gradient everywhere."""
    return torch.where(x > 0, x + 1.0, torch.exp(x.clamp(max=0.0)))
