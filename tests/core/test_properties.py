"""Invariants checked with hypothesis (docs/api.md, "What works means")."""
import numpy as np
import torch
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import attnlab as al

SETTINGS = settings(max_examples=min(50, settings.default.max_examples), deadline=None)  # make check: fewer
DTYPES = st.sampled_from([torch.float32, torch.float64])
TEMPERATURES = st.floats(1e-3, 1e3)


@st.composite
def scores_and_mask(draw, bound=1e4):
    Tq, Tk = draw(st.integers(1, 5)), draw(st.integers(1, 6))
    s = draw(hnp.arrays(np.float64, (Tq, Tk), elements=st.floats(-bound, bound)))
    m = draw(hnp.arrays(np.bool_, (Tq, Tk)))
    return torch.from_numpy(s), torch.from_numpy(m)


@SETTINGS
@given(scores_and_mask(), TEMPERATURES, DTYPES)
def test_weights_nonnegative_rows_sum_to_one_or_zero_and_finite(sm, temperature, dtype):
    s, mask = sm
    s = s.to(dtype)
    w = al.masked_softmax(s, mask, temperature=temperature)
    assert torch.isfinite(w).all()
    assert (w >= 0).all()
    sums = w.double().sum(-1)
    expected = mask.any(-1).double()
    torch.testing.assert_close(sums, expected, atol=1e-5, rtol=0)
    assert (w[~mask] == 0).all()
    w_all = al.masked_softmax(s, temperature=temperature)
    assert torch.isfinite(w_all).all()
    torch.testing.assert_close(w_all.double().sum(-1), torch.ones(s.shape[0], dtype=torch.float64), atol=1e-5, rtol=0)


@st.composite
def qkv(draw, bound=100.0, max_T=5, d=None):
    B, Tq, Tk = draw(st.integers(1, 2)), draw(st.integers(1, max_T)), draw(st.integers(1, max_T))
    d = d or draw(st.integers(1, 4))
    el = st.floats(-bound, bound)
    q = draw(hnp.arrays(np.float64, (B, Tq, d), elements=el))
    k = draw(hnp.arrays(np.float64, (B, Tk, d), elements=el))
    v = draw(hnp.arrays(np.float64, (B, Tk, 2), elements=st.floats(-10, 10)))
    return tuple(torch.from_numpy(a) for a in (q, k, v))


@SETTINGS
@given(qkv(), TEMPERATURES, DTYPES, st.booleans(), st.data())
def test_sdpa_never_nan_or_inf(t, temperature, dtype, causal, data):
    q, k, v = (x.to(dtype) for x in t)
    lens = torch.tensor(data.draw(st.lists(st.integers(0, k.shape[1]), min_size=q.shape[0], max_size=q.shape[0])))
    out, w = al.scaled_dot_product_attention(q, k, v, valid_lens=lens, causal=causal, temperature=temperature)
    assert torch.isfinite(out).all() and torch.isfinite(w).all() and (w >= 0).all()
    rows = w.double().sum(-1)
    assert ((rows - 1).abs() < 1e-5).logical_or(rows == 0).all()
    fused, _ = al.scaled_dot_product_attention(q, k, v, valid_lens=lens, causal=causal, temperature=temperature,
                                               need_weights=False)
    assert torch.isfinite(fused).all()


@SETTINGS
@given(hnp.arrays(np.float64, st.integers(1, 4), elements=st.floats(-10, 10)),
       st.integers(1, 7), st.floats(0.1, 10), st.data())
def test_identical_keys_give_uniform_weights_for_any_query(q_row, n_keys, temperature, data):
    key = data.draw(hnp.arrays(np.float64, q_row.shape[0], elements=st.floats(-10, 10)))
    q = torch.from_numpy(q_row)[None]                                            # (1, d)
    k = torch.from_numpy(key)[None].repeat(n_keys, 1)                           # (n, d), all rows equal
    v = torch.arange(n_keys, dtype=torch.float64)[:, None]
    out, w = al.scaled_dot_product_attention(q, k, v, temperature=temperature)
    torch.testing.assert_close(w, torch.full((1, n_keys), 1.0 / n_keys, dtype=torch.float64), atol=1e-9, rtol=0)
    torch.testing.assert_close(out, v.mean(0, keepdim=True), atol=1e-8, rtol=0)


@SETTINGS
@given(st.integers(1, 6), st.integers(1, 4), st.permutations(range(6)), st.integers(0, 2**31 - 1))
def test_self_attention_without_positions_is_permutation_equivariant(T, d, perm6, seed):
    perm = torch.tensor([p for p in perm6 if p < T])
    X = torch.randn(2, T, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    Xp = X[:, perm]
    out, w = al.scaled_dot_product_attention(X, X, X)
    out_p, w_p = al.scaled_dot_product_attention(Xp, Xp, Xp)
    torch.testing.assert_close(out_p, out[:, perm])
    torch.testing.assert_close(w_p, w[:, perm][:, :, perm])
    torch.manual_seed(seed)
    mha = al.MultiHeadAttention(d, d, d, 4, 2).double().eval()
    out_p = mha(Xp, Xp, Xp)
    w_p = mha.attention_weights                                                  # (B, H, T, T)
    torch.testing.assert_close(out_p, mha(X, X, X)[:, perm])
    torch.testing.assert_close(w_p, mha.attention_weights[:, :, perm][:, :, :, perm])


@SETTINGS
@given(st.integers(1, 3), st.integers(1, 5), st.integers(1, 4), st.integers(1, 4))
def test_split_merge_round_trip(B, T, H, per_head):
    X = torch.randn(B, T, H * per_head, generator=torch.Generator().manual_seed(B * 100 + T))
    S = al.split_heads(X, H)
    assert S.shape == (B, H, T, per_head)
    assert torch.equal(al.merge_heads(S), X)
    assert torch.equal(al.split_heads(al.merge_heads(S), H), S)


@SETTINGS
@given(qkv(bound=10.0, max_T=9), st.integers(1, 5), st.booleans())
def test_tiled_equals_sdpa(t, block_size, causal):
    q, k, v = t
    ref, _ = al.scaled_dot_product_attention(q, k, v, causal=causal)
    torch.testing.assert_close(al.tiled_attention(q, k, v, causal=causal, block_size=block_size), ref,
                               atol=1e-10, rtol=1e-10)
