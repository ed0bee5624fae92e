"""tiled_steps.py: the replayed online softmax ends equal to al.tiled_attention and to torch's
F.scaled_dot_product_attention at 1e-10 (float64); its running max and denominator match the
closed forms max_j s_ij and sum_j exp(s_ij - m_i) over the keys seen so far."""
import math

import pytest
import torch
from torch.nn import functional as F

import attnlab as al
from attnlab.lessons.nb07_masks_and_efficient_attention.tiles import implied_weights, tiled_attention_steps


def _qkv(Tq, Tk, d=4, dv=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(Tq, d, generator=g, dtype=torch.float64) * 2,
            torch.randn(Tk, d, generator=g, dtype=torch.float64) * 2,
            torch.randn(Tk, dv, generator=g, dtype=torch.float64))


@pytest.mark.parametrize("Tq,Tk", [(1, 1), (8, 8), (5, 11), (10, 4), (7, 7)])
@pytest.mark.parametrize("block_size", [1, 2, 3, 16])
@pytest.mark.parametrize("causal", [False, True])
def test_steps_end_equal_to_dense(Tq, Tk, block_size, causal):
    q, k, v = _qkv(Tq, Tk)
    states = list(tiled_attention_steps(q, k, v, block_size=block_size, causal=causal))
    out = states[-1]["out"]
    ref_mask = torch.ones(Tq, Tk, dtype=torch.bool).tril() if causal else None
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=ref_mask)
    torch.testing.assert_close(out, ref, atol=1e-10, rtol=1e-10)
    torch.testing.assert_close(out, al.tiled_attention(q, k, v, causal=causal, block_size=block_size),
                               atol=1e-10, rtol=1e-10)


def test_running_max_and_denominator_match_closed_form():
    q, k, v = _qkv(4, 9)
    s_all = q @ k.T / math.sqrt(q.shape[1])                                    # (4, 9)
    for st in tiled_attention_steps(q, k, v, block_size=2):
        (q0, q1), (_, k1) = st["q_block"], st["k_block"]
        seen = s_all[q0:q1, :k1]
        m = seen.amax(-1)
        torch.testing.assert_close(st["m"], m)
        torch.testing.assert_close(st["l"], torch.exp(seen - m[:, None]).sum(-1))
        ref_partial = torch.softmax(seen, -1) @ v[:k1]                          # attention over keys seen
        torch.testing.assert_close(st["output"], ref_partial)


def test_tile_count_and_causal_skips_tiles():
    q, k, v = _qkv(8, 8)
    assert len(list(tiled_attention_steps(q, k, v, block_size=2))) == 16
    assert len(list(tiled_attention_steps(q, k, v, block_size=2, causal=True))) == 4 + 3 + 2 + 1


def test_implied_weights_end_equal_to_softmax():
    q, k, v = _qkv(6, 6)
    states = list(tiled_attention_steps(q, k, v, block_size=2, causal=True))
    w = implied_weights(states, 6)
    _, ref = al.scaled_dot_product_attention(q, k, v, causal=True)
    torch.testing.assert_close(w, ref)
    part = implied_weights(states[:1], 6)                     # block 0 done (1 tile), rows 2..5 not started
    assert torch.isnan(part[2:]).all() and not torch.isnan(part[:2]).any()


def test_bad_inputs_raise():
    q, k, v = _qkv(4, 4)
    with pytest.raises(ValueError, match="unbatched"):
        next(tiled_attention_steps(q[None], k[None], v[None]))
    with pytest.raises(ValueError, match="block_size"):
        next(tiled_attention_steps(q, k, v, block_size=0))
    with pytest.raises(TypeError, match="causal"):
        next(tiled_attention_steps(q, k, v, causal=1))
