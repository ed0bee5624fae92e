"""Flash attention's tiled loop, one tile at a time, keeping every intermediate (notebook 07).

``al.tiled_attention`` is the kernel; this module replays the same online softmax on a small,
unbatched problem and yields its state after each tile, so a notebook can show the running max m,
the running denominator l and the partial output acc / l moving towards exact attention.
The figures that show them are in ``figures``.
"""
import math

import torch

from ...core import checks
from ...core.attention import check_qkv

__all__ = ["tiled_attention_steps", "implied_weights", "toy_problem", "tiled_attention_steps_unchecked"]


def tiled_attention_steps(queries, keys, values, *, block_size=2, causal=False):
    """Yield the online-softmax state after each (query block, key block) tile.

    For each block of queries, walk over blocks of keys:
        s     = q_blk k_blk^T / sqrt(d)                  the tile's scores      (bq, bk)
        m_new = max(m, rowmax(s))                         running max            (bq, 1)
        p     = exp(s - m_new)                            unnormalised weights   (bq, bk)
        l     = l * exp(m - m_new) + rowsum(p)            running denominator    (bq, 1)
        acc   = acc * exp(m - m_new) + p v_blk            running numerator      (bq, dv)
    After the last key block, the block's output is acc / l: exactly softmax(q k^T / sqrt(d)) v.

    Args:
        queries (Tq, d), keys (Tk, d), values (Tk, dv); block_size b >= 1 (tiles are b x b);
        causal: top-left causal mask (query i sees keys 0..i); tiles wholly above the diagonal
            are skipped, as the kernel does.
    Yields:
        dict with q_block (q0, q1), k_block (k0, k1), last (True on a query block's last tile),
        scores (bq, bk) (masked -> -inf), m (bq,), l (bq,), rescale (bq,) = exp(m_old - m_new),
        acc (bq, dv), output (bq, dv) = acc / l (0 where l = 0), and out (Tq, dv): every
        query's current output (finished blocks final, current block partial, later blocks 0).
    """
    check_qkv(queries, keys, values)
    if queries.dim() != 2 or keys.dim() != 2 or values.dim() != 2:
        raise checks.error("queries, keys, values", "unbatched (T, d) tensors",
                           f"shapes {tuple(queries.shape)}, {tuple(keys.shape)}, {tuple(values.shape)}")
    b = checks.count(block_size, "block_size", low=1)
    return tiled_attention_steps_unchecked(queries, keys, values, b, checks.flag(causal, "causal"))


def tiled_attention_steps_unchecked(queries, keys, values, b, causal):
    """``tiled_attention_steps`` for checked arguments (the Play's update calls this)."""
    Tq, d = queries.shape
    Tk, dv = values.shape
    out = queries.new_zeros(Tq, dv)                                                 # (Tq, dv)
    for q0 in range(0, Tq, b):
        q1 = min(q0 + b, Tq)
        q = queries[q0:q1] / math.sqrt(d)                                           # (bq, d)
        m = queries.new_full((q1 - q0,), float("-inf"))                             # (bq,)
        l = queries.new_zeros(q1 - q0)                                              # (bq,)
        acc = queries.new_zeros(q1 - q0, dv)                                        # (bq, dv)
        k_end = min(Tk, q1) if causal else Tk
        k_starts = list(range(0, k_end, b)) or [None]
        for k0 in k_starts:
            if k0 is None:                                                          # no visible key at all
                yield _state(q0, q1, 0, 0, True, q.new_zeros(q1 - q0, 0), m, l, l, acc, out)
                continue
            k1 = min(k0 + b, Tk)
            s = q @ keys[k0:k1].T                                                   # (bq, bk)
            if causal:
                i = torch.arange(q0, q1, device=s.device)[:, None]
                j = torch.arange(k0, k1, device=s.device)[None, :]
                s = s.masked_fill(j > i, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=-1))                                # (bq,)
            m_safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
            p = torch.exp(s - m_safe[:, None])                                      # (bq, bk), masked -> 0
            rescale = torch.exp(m - m_safe)                                         # (bq,), 0 on the first tile
            l = l * rescale + p.sum(dim=-1)
            acc = acc * rescale[:, None] + p @ values[k0:k1]                        # (bq, dv)
            m = m_new
            out = out.clone()
            out[q0:q1] = acc / torch.where(l == 0, torch.ones_like(l), l)[:, None]
            yield _state(q0, q1, k0, k1, k0 == k_starts[-1], s, m, l, rescale, acc, out)


def _state(q0, q1, k0, k1, last, s, m, l, rescale, acc, out):
    return {"q_block": (q0, q1), "k_block": (k0, k1), "last": last, "scores": s, "m": m.clone(),
            "l": l.clone(), "rescale": rescale.clone(), "acc": acc.clone(),
            "output": out[q0:q1].clone(), "out": out}


@checks.arguments(states=checks.Items(checks.Dict(), min_len=1), num_keys=checks.Int(1))
def implied_weights(states, num_keys):
    """The weights the running m and l imply after each state, for display only (never stored).

    Row i, key j visited so far: exp(s_ij - m_i) / l_i; keys not yet visited are NaN (blank in a
    heatmap). After a query block's last tile these are exactly its softmax weights.
    Returns: (Tq, Tk) float for the last state in ``states``; earlier query blocks final.
    """
    states = list(states)
    seen = max(st["k_block"][1] for st in states)
    if num_keys < seen:
        raise checks.error("num_keys", f"at least {seen}, the keys the states have visited", num_keys)
    Tq = states[-1]["out"].shape[0]
    checks.fits((Tq, num_keys), 8, "num_keys", "weights")
    w = states[-1]["out"].new_full((Tq, num_keys), float("nan"))
    scores = {}
    for st in states:
        (q0, q1), (k0, k1) = st["q_block"], st["k_block"]
        scores[(q0, k0)] = (st["scores"], k1)
        m, l = st["m"][:, None], st["l"][:, None]
        row = w.new_full((q1 - q0, num_keys), float("nan"))
        for (r0, c0), (s, c1) in scores.items():
            if r0 == q0 and c1 > c0:
                m_safe = torch.where(torch.isinf(m), torch.zeros_like(m), m)
                row[:, c0:c1] = torch.exp(s - m_safe) / torch.where(l == 0, torch.ones_like(l), l)
        w[q0:q1] = row.nan_to_num(0.0) if st["last"] else row                 # skipped tiles: masked
    return w


@checks.arguments(length=checks.Int(1, 1024), d=checks.Int(1, 1024), seed=checks.Int(0),
                   scale=checks.Real(positive=True, high=1e3))
def toy_problem(length=8, d=4, *, seed=4, scale=1.5):
    """Float64 queries, keys (L, d) and scalar values (L, 1) for the step-through; seed 4 makes
    row 0's running max rise on tiles 2 and 3 and stay on tile 4 (block size 2)."""
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(length, d, generator=g, dtype=torch.float64) * scale
    k = torch.randn(length, d, generator=g, dtype=torch.float64) * scale
    v = torch.randn(length, 1, generator=g, dtype=torch.float64)
    return q, k, v
