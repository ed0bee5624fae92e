"""The contract's invariants in every supported dtype (float16, bfloat16, float32, float64), searched
with hypothesis: for finite input at temperatures 1e-3 .. 1e3 and scores up to ±1e4 there is no NaN or
inf, weights are >= 0, rows sum to 1 (0 for fully masked rows), the dtype is kept, and the two paths
of scaled_dot_product_attention (need_weights True / False) agree within what one rounding of the
logits can change. Plus the extreme cases of issue 15, and no global RNG use."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import attnlab as al
from attnlab.lessons.nb01_kernel_regression import data as nb01_data
from attnlab.lessons.nb04_self_attention_walkthrough import data as nb04_data
from attnlab.lessons.nb05_cat_milk_it import data as nb05_data
from attnlab.ui import plotting, selfcheck

SETTINGS = settings(max_examples=min(40, settings.default.max_examples), deadline=None)  # make check: fewer
ALL_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
DTYPES = st.sampled_from(ALL_DTYPES)
TEMPERATURES = st.one_of(st.sampled_from([1e-3, 1e3]), st.floats(1e-3, 1e3))     # the ends, often
# how far a row sum of weights rounded to the dtype may be from 1
SUM_TOL = {torch.float16: 2e-2, torch.bfloat16: 6e-2, torch.float32: 1e-5, torch.float64: 1e-12}
EPS = {torch.float16: 2**-10, torch.bfloat16: 2**-7, torch.float32: 2**-23, torch.float64: 2**-52}


@st.composite
def scores_and_mask(draw, bound=1e4):
    Tq, Tk = draw(st.integers(1, 4)), draw(st.integers(1, 6))
    s = draw(hnp.arrays(np.float64, (Tq, Tk), elements=st.one_of(st.sampled_from([-bound, bound]),
                                                                st.floats(-bound, bound))))
    m = draw(hnp.arrays(np.bool_, (Tq, Tk)))
    return torch.from_numpy(s), torch.from_numpy(m)


def _check_weights(w, mask, dtype):
    assert w.dtype == dtype
    assert torch.isfinite(w).all() and (w >= 0).all()
    rows = w.double().sum(-1)
    expected = mask.any(-1).double() if mask is not None else torch.ones_like(rows)
    torch.testing.assert_close(rows, expected, atol=SUM_TOL[dtype], rtol=0)
    if mask is not None:
        assert (w[~mask.expand_as(w)] == 0).all()


@SETTINGS
@given(scores_and_mask(), TEMPERATURES, DTYPES)
def test_masked_softmax_in_every_dtype(sm, temperature, dtype):
    s, mask = sm
    s = s.to(dtype)                                            # ±1e4 fits float16 and bfloat16
    _check_weights(al.masked_softmax(s, mask, temperature=temperature), mask, dtype)
    _check_weights(al.masked_softmax(s, temperature=temperature), None, dtype)


@st.composite
def qkv(draw, bound=50.0):
    B, Tq, Tk, d = (draw(st.integers(1, n)) for n in (2, 4, 5, 4))
    el = st.one_of(st.sampled_from([-bound, bound]), st.floats(-bound, bound))   # |q·k| <= 50 * 50 * 4 = 1e4
    q = draw(hnp.arrays(np.float64, (B, Tq, d), elements=el))
    k = draw(hnp.arrays(np.float64, (B, Tk, d), elements=el))
    v = draw(hnp.arrays(np.float64, (B, Tk, 2), elements=st.floats(-10, 10)))
    return tuple(torch.from_numpy(a) for a in (q, k, v))


def _allowed(q, k, v, temperature, dtype):
    """What one rounding of the logits (in the compute dtype) can change in the output, plus the
    output's own rounding: |v| * min(2, 8 |logit| eps) + |v| eps."""
    compute_eps = EPS[torch.float32] if dtype in (torch.float16, torch.bfloat16) else EPS[dtype]
    d = q.shape[-1]
    logit = (q.double().abs().amax() * k.double().abs().amax() * d / math.sqrt(d) / temperature).item()
    vmax = v.double().abs().amax().item()
    return vmax * min(2.0, 8 * logit * compute_eps) + 4 * vmax * EPS[dtype] + 1e-12


@SETTINGS
@given(qkv(), TEMPERATURES, DTYPES, st.booleans(), st.data())
def test_sdpa_both_paths_in_every_dtype(t, temperature, dtype, causal, data_):
    q, k, v = (x.to(dtype) for x in t)
    lens = torch.tensor(data_.draw(st.lists(st.integers(0, k.shape[1]), min_size=q.shape[0], max_size=q.shape[0])))
    out, w = al.scaled_dot_product_attention(q, k, v, valid_lens=lens, causal=causal, temperature=temperature)
    mask = torch.arange(k.shape[1])[None, None, :] < lens[:, None, None]
    if causal:
        mask = mask & al.causal_mask(q.shape[1], k.shape[1])
    mask = mask.expand(w.shape)
    _check_weights(w, mask, dtype)
    assert out.dtype == dtype and torch.isfinite(out).all()
    assert (out[~mask.any(-1)] == 0).all()                             # no visible key: zero output
    fused, none = al.scaled_dot_product_attention(q, k, v, valid_lens=lens, causal=causal, temperature=temperature,
                                                  need_weights=False)
    assert none is None and fused.dtype == dtype and torch.isfinite(fused).all()
    torch.testing.assert_close(fused.double(), out.double(), atol=_allowed(q, k, v, temperature, dtype), rtol=0)


@SETTINGS
@given(hnp.arrays(np.float64, st.integers(1, 5), elements=st.floats(-300, 300)),
       hnp.arrays(np.float64, st.integers(1, 6), elements=st.floats(-300, 300)),
       st.floats(1e-3, 1e3), DTYPES)
def test_nadaraya_watson_in_every_dtype(xq, xk, sigma, dtype):
    xq, xk = torch.from_numpy(xq).to(dtype), torch.from_numpy(xk).to(dtype)
    y = torch.linspace(-1, 1, xk.shape[0], dtype=torch.float64).to(dtype)
    y_hat, w = al.nadaraya_watson(xq, xk, y, sigma=sigma)
    _check_weights(w, None, dtype)
    assert y_hat.dtype == dtype and torch.isfinite(y_hat).all()
    assert (y_hat.double() >= y.double().min() - 1e-2).all() and (y_hat.double() <= y.double().max() + 1e-2).all()


@SETTINGS
@given(qkv(bound=10.0), DTYPES, st.integers(1, 4), st.booleans())
def test_tiled_and_linear_attention_finite_in_every_dtype(t, dtype, block, causal):
    q, k, v = (x.to(dtype) for x in t)
    out = al.tiled_attention(q, k, v, causal=causal, block_size=block)
    ref, _ = al.scaled_dot_product_attention(q, k, v, causal=causal)
    assert out.dtype == dtype and torch.isfinite(out).all()
    torch.testing.assert_close(out.double(), ref.double(), atol=_allowed(q, k, v, 1.0, dtype), rtol=0)
    lin = al.linear_attention(q, k, v)
    assert lin.dtype == dtype and torch.isfinite(lin).all()


@SETTINGS
@given(st.floats(-80, 80), st.floats(-80, 80))
def test_elu_plus_one_matches_its_closed_form_and_has_finite_gradient(a, b):
    x = torch.tensor([a, b], dtype=torch.float64, requires_grad=True)
    q = x[None, :1]
    out = al.linear_attention(q, x[:, None], torch.tensor([[1.0], [3.0]], dtype=torch.float64))
    fq = math.exp(a) if a <= 0 else a + 1
    fk = [math.exp(z) if z <= 0 else z + 1 for z in (a, b)]
    expected = (fk[0] * 1.0 + fk[1] * 3.0) / (fk[0] + fk[1])        # fq cancels, but must not be 0
    assert fq > 0
    torch.testing.assert_close(out, torch.tensor([[expected]], dtype=torch.float64), atol=1e-12, rtol=1e-12)
    out.sum().backward()
    assert torch.isfinite(x.grad).all()


# ---- the cases of issue 15, each one compared with its exact value
def test_extreme_temperature_and_scale_give_the_one_hot_limit():
    q, k, v = torch.tensor([[1.0]]), torch.tensor([[1.0], [2.0]]), torch.tensor([[1.0], [3.0]])
    for kw in (dict(temperature=1e-39), dict(scale=1e300), dict(scale=1e300, temperature=1e-300)):
        for need in (True, False):
            out, _ = al.scaled_dot_product_attention(q, k, v, need_weights=need, **kw)
            assert out.tolist() == [[3.0]], (kw, need)
    assert al.masked_softmax(torch.tensor([1.0, 2.0]), temperature=1e-39).tolist() == [0.0, 1.0]
    out, _ = al.scaled_dot_product_attention(q, k, v, scale=-1e300)        # the smaller key wins
    assert out.tolist() == [[1.0]]
    out, w = al.scaled_dot_product_attention(q, k, v, scale=0.0)           # uniform
    assert w.tolist() == [[0.5, 0.5]] and out.tolist() == [[2.0]]


def test_tiny_sigma_follows_the_nearest_key():
    y_hat, w = al.nadaraya_watson(torch.tensor([0.4]), torch.tensor([0.0, 1.0]), torch.tensor([5.0, 7.0]), sigma=1e-30)
    assert w.tolist() == [[1.0, 0.0]] and y_hat.tolist() == [5.0]
    s = al.gaussian_scores(torch.tensor([0.0, 1.0]), torch.tensor([0.0, 1.0]), sigma=1e-30)
    assert s.tolist() == [[0.0, float("-inf")], [float("-inf"), 0.0]]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_cases_of_the_issue(dtype):
    x = torch.full((1, 2, 4), 10.0, dtype=dtype)
    v = torch.tensor([[[1.0], [3.0]]], dtype=dtype)
    for need in (True, False):
        out, w = al.scaled_dot_product_attention(x, x, v, temperature=1e-3, need_weights=need)
        assert out.dtype == dtype and out.float().tolist() == [[[2.0], [2.0]]]
    assert w is None
    y_hat, w = al.nadaraya_watson(torch.tensor([0.0], dtype=dtype), torch.tensor([300.0, 310.0], dtype=dtype),
                                  torch.tensor([1.0, 2.0], dtype=dtype))
    assert y_hat.dtype == dtype and y_hat.float().tolist() == [1.0] and w.float().tolist() == [[1.0, 0.0]]
    w = al.masked_softmax(torch.tensor([1e4, -1e4, 9000.0], dtype=dtype), temperature=1e-3)
    assert w.float().tolist() == [1.0, 0.0, 0.0]
    torch.manual_seed(0)
    mha = al.MultiHeadAttention(4, 4, 4, 8, 2).to(dtype)
    out = mha(x, x, x, temperature=1e-3)
    assert out.dtype == dtype and torch.isfinite(out).all() and torch.isfinite(mha.attention_weights).all()


def test_linear_attention_large_negative_features_do_not_cancel():
    q = torch.tensor([[-20.0]], requires_grad=True)
    out = al.linear_attention(q, torch.tensor([[-20.0], [-20.0]]), torch.tensor([[1.0], [3.0]]))
    assert out.tolist() == [[2.0]]                                      # elu(-20) + 1 = 2e-9, not 0
    out.sum().backward()
    assert torch.isfinite(q.grad).all() and q.grad.abs().max() < 1


def test_fully_masked_rows_and_no_keys_give_zero_weights_and_output():
    q, k, v = torch.ones(1, 2, 3), torch.ones(1, 4, 3), torch.ones(1, 4, 2)
    mask = torch.tensor([[True, False, False, False], [False] * 4])
    for dtype in ALL_DTYPES:
        for need in (True, False):
            out, w = al.scaled_dot_product_attention(q.to(dtype), k.to(dtype), v.to(dtype), mask, need_weights=need)
            assert out[0, 1].tolist() == [0.0, 0.0] and out[0, 0].tolist() == [1.0, 1.0]
            if need:
                assert w[0, 1].tolist() == [0.0] * 4
    for need in (True, False):                                          # Tk = 0: nothing to attend
        out, _ = al.scaled_dot_product_attention(q, torch.ones(1, 0, 3), torch.ones(1, 0, 2), need_weights=need)
        assert out.tolist() == [[[0.0, 0.0], [0.0, 0.0]]]


# ---- no library code consumes or seeds the global RNG
def _library_calls():
    q, k, v = torch.ones(2, 3, 4), torch.ones(2, 5, 4), torch.ones(2, 5, 6)
    mha = al.MultiHeadAttention(4, 4, 6, 8, 2, dropout=0.5).eval()
    add = al.AdditiveAttention(4, 4, 3, dropout=0.5).eval()
    pe = al.PositionalEncoding(4, dropout=0.5).eval()
    scores = al.AdditiveScores(4, 4, 3)
    dpa = al.DotProductAttention(0.5).eval()
    yield from (
        lambda: al.causal_mask(3, 5), lambda: al.local_mask(3, 5, 1), lambda: al.sequence_mask(torch.tensor([1, 2]), 5),
        lambda: al.masked_softmax(q @ k.transpose(1, 2), temperature=0.5), lambda: al.dot_scores(q, k),
        lambda: al.scaled_dot_scores(q, k), lambda: al.cosine_scores(q, k), lambda: al.gaussian_scores(q, k),
        lambda: scores(q, k), lambda: al.nadaraya_watson(q[0, :, 0], k[0, :, 0], v[0]),
        lambda: al.scaled_dot_product_attention(q, k, v, causal=True),
        lambda: al.scaled_dot_product_attention(q, k, v, need_weights=False),
        lambda: al.scaled_dot_product_attention(q, k, v, dropout=0.5, generator=torch.Generator().manual_seed(1)),
        lambda: dpa(q, k, v), lambda: add(q, k, v), lambda: mha(q, k, v, causal=True), lambda: pe(q),
        lambda: al.merge_heads(al.split_heads(q, 2)), lambda: al.sinusoidal_encoding(5, 4),
        lambda: al.tiled_attention(q, k, v, block_size=2), lambda: al.linear_attention(q, k, v),
        lambda: nb01_data.kernel_regression_data(), lambda: nb05_data.cat_milk_it(), lambda: nb04_data.thinking_machines(),
        lambda: nb04_data.toy_sentence(), lambda: nb04_data.translation_pair(), lambda: al.default_device(),
        lambda: plotting.heatmap(torch.rand(3, 3, generator=torch.Generator())),
        lambda: plotting.heads_grid(torch.ones(2, 2, 2)), lambda: plotting.weights_summary(torch.ones(2, 2)),
        lambda: selfcheck.numeric("?", 1).check(2), lambda: selfcheck.multiple_choice("?", {"a": "", "b": ""}, "a").check("b"),
        lambda: selfcheck.check_function(lambda x: x, lambda x: x * 2, [(torch.ones(2),)]),
    )


def test_no_library_call_consumes_or_seeds_the_global_rng(capsys):
    import matplotlib.pyplot as plt

    calls = list(_library_calls())                       # modules are built (nn.Linear draws) before the check
    for call in calls:
        before = torch.random.get_rng_state()
        call()
        assert torch.equal(torch.random.get_rng_state(), before), call
    plt.close("all")
