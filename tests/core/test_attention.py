"""attention.py against torch's F.scaled_dot_product_attention, numpy loops and d2l-style references."""
import math

import numpy as np
import pytest
import torch
from torch.nn import functional as F

import attnlab as al
from _refs import DEVICES, DTYPES, TOL, Untouched, call_untouched, lens_mask_loop, no_matmul, randn, torch_sdpa

# (q batch, k/v batch, Tq, Tk, d, dv): size-1 dims, Tq != Tk, broadcast batch dims
SHAPES = [((), (), 1, 1, 1, 1), ((2,), (2,), 3, 5, 4, 6), ((2,), (2,), 5, 3, 8, 1),
          ((1, 3), (2, 1), 4, 4, 8, 2), ((2, 1), (1,), 1, 6, 3, 3), ((), (3,), 2, 7, 5, 4)]


def _qkv(qb, kb, Tq, Tk, d, dv, dtype=torch.float64, device="cpu", requires_grad=False):
    return (randn(*qb, Tq, d, dtype=dtype, device=device, requires_grad=requires_grad),
            randn(*kb, Tk, d, dtype=dtype, device=device, seed=1, requires_grad=requires_grad),
            randn(*kb, Tk, dv, dtype=dtype, device=device, seed=2, requires_grad=requires_grad))


def _ref_weights(q, k, mask, scale, temperature):
    """softmax of the masked logits, fully masked rows set to 0 (torch's own ops, not attnlab's)."""
    logits = torch.matmul(q, k.transpose(-2, -1)) * (scale / temperature)
    if mask is not None:
        logits = logits.masked_fill(~mask, float("-inf"))
    return torch.nan_to_num(torch.softmax(logits, -1), nan=0.0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("masking", ["none", "mask", "causal", "mask+causal"])
@pytest.mark.parametrize("scale,temperature", [(None, 1.0), (0.5, 1.0), (None, 0.25), (2.0, 3.0)])
def test_sdpa_matches_torch(dtype, shape, masking, scale, temperature):
    q, k, v = _qkv(*shape, dtype=dtype)
    Tq, Tk = q.shape[-2], k.shape[-2]
    mask = torch.rand(Tq, Tk, generator=torch.Generator().manual_seed(7)) > 0.3 if "mask" in masking else None
    causal = "causal" in masking
    ref_mask = mask
    if causal:
        tri = torch.ones(Tq, Tk, dtype=torch.bool).tril()
        ref_mask = tri if mask is None else mask & tri
    guard = Untouched(q, k, v, mask)
    out, w = al.scaled_dot_product_attention(q, k, v, mask, causal=causal, scale=scale, temperature=temperature)
    out2, none = al.scaled_dot_product_attention(q, k, v, mask, causal=causal, scale=scale,
                                                 temperature=temperature, need_weights=False)
    guard.check()
    s = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    torch.testing.assert_close(out, torch_sdpa(q, k, v, ref_mask, scale=s, temperature=temperature), **TOL[dtype])
    torch.testing.assert_close(w, _ref_weights(q, k, ref_mask, s, temperature), **TOL[dtype])
    assert none is None
    torch.testing.assert_close(out2, out, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lens", [torch.tensor([3, 0]), torch.tensor([[1, 5, 0, 2], [4, 4, 4, 1]])],
                         ids=["per-sequence", "per-query"])
@pytest.mark.parametrize("with_mask", [False, True])
@pytest.mark.parametrize("causal", [False, True])
def test_valid_lens_mask_and_causal_combine_with_and(dtype, lens, with_mask, causal):
    q, k, v = _qkv((2,), (2,), 4, 5, 3, 2, dtype=dtype)
    mask = (torch.rand(2, 4, 5, generator=torch.Generator().manual_seed(1)) > 0.3) if with_mask else None
    ref_mask = lens_mask_loop(lens, 4, 5)
    if with_mask:
        ref_mask = ref_mask & mask
    if causal:
        ref_mask = ref_mask & torch.ones(4, 5, dtype=torch.bool).tril()
    out, w = call_untouched(al.scaled_dot_product_attention, q, k, v, mask, valid_lens=lens, causal=causal)
    ref = torch_sdpa(q, k, v, ref_mask)
    torch.testing.assert_close(out, ref, **TOL[dtype])
    torch.testing.assert_close(w, _ref_weights(q, k, ref_mask, 1 / math.sqrt(3), 1.0), **TOL[dtype])
    out2, _ = al.scaled_dot_product_attention(q, k, v, mask, valid_lens=lens, causal=causal, need_weights=False)
    torch.testing.assert_close(out2, out, **TOL[dtype])
    empty = ~ref_mask.any(-1)                                                   # fully masked rows
    assert empty.any()
    assert (w[empty] == 0).all() and (out[empty] == 0).all()


def test_valid_lens_apply_to_every_head_of_4d_inputs():
    q, k, v = _qkv((2, 3), (2, 3), 4, 5, 4, 2)
    lens = torch.tensor([2, 4])
    out, w = al.scaled_dot_product_attention(q, k, v, valid_lens=lens)
    ref_mask = lens_mask_loop(lens, 4, 5)[:, None]                               # (B, 1, Tq, Tk)
    torch.testing.assert_close(out, torch_sdpa(q, k, v, ref_mask))
    assert (w[0, :, :, 2:] == 0).all() and (w[1, :, :, 4:] == 0).all()


@pytest.mark.parametrize("need_weights", [True, False])
def test_fully_masked_rows_zero_output_and_finite_gradients(need_weights):
    q, k, v = _qkv((2,), (2,), 3, 4, 5, 2, requires_grad=True)
    mask = torch.ones(2, 3, 4, dtype=torch.bool)
    mask[0, 2] = False
    guard = Untouched(q, k, v, mask)
    out, w = al.scaled_dot_product_attention(q, k, v, mask, valid_lens=torch.tensor([4, 0]),
                                             need_weights=need_weights)
    guard.check()
    assert not torch.isnan(out).any()
    assert (out[0, 2] == 0).all() and (out[1] == 0).all()
    if need_weights:
        assert (w[0, 2] == 0).all() and (w[1] == 0).all()
    (out * randn(2, 3, 2, seed=9)).sum().backward()
    for t in (q, k, v):
        assert torch.isfinite(t.grad).all()
    assert (q.grad[1] == 0).all() and (v.grad[1] == 0).all()


def test_identical_keys_give_uniform_weights_seed_000_example():
    q = torch.tensor([[1.0, 0.0]])
    k = torch.tensor([[1.0, 1.0]] * 3)
    v = torch.tensor([[1.0], [2.0], [6.0]])
    for scale in (None, 1.0):                             # seed 000 uses the plain dot product
        out, w = al.scaled_dot_product_attention(q, k, v, scale=scale)
        torch.testing.assert_close(w, torch.full((1, 3), 1 / 3))
        torch.testing.assert_close(out, torch.tensor([[3.0]]))
    torch.testing.assert_close(al.masked_softmax(al.dot_scores(q, k)), torch.full((1, 3), 1 / 3))


def test_dropout_is_reproducible_with_a_generator_and_off_at_zero():
    q, k, v = _qkv((2,), (2,), 3, 4, 5, 2)
    a = al.scaled_dot_product_attention(q, k, v, dropout=0.5, generator=torch.Generator().manual_seed(3))
    b = al.scaled_dot_product_attention(q, k, v, dropout=0.5, generator=torch.Generator().manual_seed(3),
                                        need_weights=False)
    c, _ = al.scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(a[0], b[0])
    torch.testing.assert_close(a[1], _ref_weights(q, k, None, 1 / math.sqrt(5), 1.0))  # weights before dropout
    assert not torch.allclose(a[0], c)
    # dropout keeps the expectation: average over many draws approaches the plain output
    g = torch.Generator().manual_seed(0)
    draws, _ = al.scaled_dot_product_attention(q.expand(3000, *q.shape), k, v, dropout=0.3, generator=g)
    mean = draws.mean(0)                                   # 3000 independent dropout masks
    torch.testing.assert_close(mean, c, atol=0.06, rtol=0)
    # without a generator, the fused path still returns an output of the right shape
    out, none = al.scaled_dot_product_attention(q, k, v, dropout=0.3, need_weights=False)
    assert out.shape == c.shape and none is None


# --- Nadaraya-Watson --------------------------------------------------------------------------

def _nw_loop(xq, xk, y, sigma):
    xq, xk, y = (np.asarray(a, dtype=np.float64) for a in (xq, xk, y))
    xq = xq[:, None] if xq.ndim == 1 else xq
    xk = xk[:, None] if xk.ndim == 1 else xk
    W = np.empty((len(xq), len(xk)))
    for i in range(len(xq)):
        kern = np.array([math.exp(-np.sum((xq[i] - xk[j]) ** 2) / (2 * sigma ** 2)) for j in range(len(xk))])
        W[i] = kern / kern.sum()
    return W @ y, W


@pytest.mark.parametrize("dims", ["1d", "2d-x", "2d-y"])
@pytest.mark.parametrize("sigma", [0.3, 1.0, 2.5])
def test_nadaraya_watson_against_a_numpy_loop(dims, sigma):
    xk, xq = randn(12).abs() * 3, torch.linspace(0, 4, 7, dtype=torch.float64)
    y = randn(12, seed=3)
    if dims == "2d-x":
        xk, xq = randn(12, 2), randn(7, 2, seed=4)
    if dims == "2d-y":
        y = randn(12, 3, seed=3)
    y_hat, w = call_untouched(al.nadaraya_watson, xq, xk, y, sigma=sigma)
    ref_y, ref_w = _nw_loop(xq.numpy(), xk.numpy(), y.numpy(), sigma)
    np.testing.assert_allclose(w.numpy(), ref_w, atol=1e-12)
    np.testing.assert_allclose(y_hat.numpy(), ref_y, atol=1e-12)
    assert y_hat.shape == y.shape[:0] + (7,) + y.shape[1:]


# --- d2l-style modules --------------------------------------------------------------------------

def _d2l_masked_softmax(X, valid_lens):
    """d2l's masked_softmax (valid_lens (B,) or (B, Tq)), re-typed from the book on a copy."""
    if valid_lens is None:
        return torch.softmax(X, dim=-1)
    shape = X.shape
    valid_lens = torch.repeat_interleave(valid_lens, shape[1]) if valid_lens.dim() == 1 else valid_lens.reshape(-1)
    X = X.reshape(-1, shape[-1]).clone()
    mask = torch.arange(shape[-1])[None, :] < valid_lens[:, None]
    X[~mask] = -1e6
    return torch.softmax(X.reshape(shape), dim=-1)


@pytest.mark.parametrize("lens", [None, torch.tensor([2, 5]), torch.tensor([[1, 2, 3], [5, 4, 1]])])
def test_dot_product_attention_like_d2l(lens):
    q, k, v = _qkv((2,), (2,), 3, 5, 4, 6)
    m = al.DotProductAttention(dropout=0.5).eval()
    out = call_untouched(m, q, k, v, lens)
    w = _d2l_masked_softmax(q @ k.transpose(1, 2) / math.sqrt(4), lens)
    torch.testing.assert_close(m.attention_weights, w)
    torch.testing.assert_close(out, w @ v)
    m.train()
    torch.manual_seed(0)
    assert not torch.allclose(m(q, k, v, lens), out)                    # dropout on while training


@pytest.mark.parametrize("lens", [None, torch.tensor([2, 6]), torch.tensor([[1, 6, 3, 2], [6, 6, 1, 1]])])
def test_additive_attention_like_d2l(lens):
    torch.manual_seed(0)
    m = al.AdditiveAttention(key_size=3, query_size=5, num_hiddens=8, dropout=0.1).double().eval()
    q, k, v = randn(2, 4, 5), randn(2, 6, 3, seed=1), randn(2, 6, 2, seed=2)
    out = call_untouched(m, q, k, v, lens)
    Wq, Wk, wv = m.W_q.weight, m.W_k.weight, m.w_v.weight                      # (h, 5), (h, 3), (1, h)
    feats = torch.tanh((q @ Wq.T)[:, :, None, :] + (k @ Wk.T)[:, None, :, :])  # d2l: (B, Tq, Tk, h)
    scores = (feats @ wv.T).squeeze(-1)
    w = _d2l_masked_softmax(scores, lens)
    torch.testing.assert_close(m.attention_weights, w)
    torch.testing.assert_close(out, w @ v)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("need_weights", [True, False])
def test_sdpa_on_device_matches_cpu(device, need_weights):
    q, k, v = _qkv((2,), (2,), 3, 5, 4, 6, dtype=torch.float32)
    mask = torch.rand(3, 5, generator=torch.Generator().manual_seed(2)) > 0.3
    ref, _ = al.scaled_dot_product_attention(q, k, v, mask, causal=True, valid_lens=torch.tensor([4, 2]))
    out, _ = al.scaled_dot_product_attention(q.to(device), k.to(device), v.to(device), mask.to(device),
                                             causal=True, valid_lens=torch.tensor([4, 2], device=device),
                                             need_weights=need_weights)
    assert out.device.type == device
    torch.testing.assert_close(out.cpu(), ref, atol=1e-5, rtol=1e-4)


# --- bad input (all raised before any matmul) ---------------------------------------------------

q3, k3, v3 = torch.ones(2, 3, 4), torch.ones(2, 5, 4), torch.ones(2, 5, 6)
sdpa = al.scaled_dot_product_attention


@pytest.mark.parametrize("call,exc,match", [
    (lambda: sdpa(q3, torch.ones(2, 5, 3), v3), ValueError, r"keys: expected last dim 4 to match queries, got 3"),
    (lambda: sdpa(q3, k3, torch.ones(2, 4, 6)), ValueError, r"values: expected 5 rows to match keys \(dim -2\), got 4"),
    (lambda: sdpa(q3, k3, v3.double()), TypeError, r"values: expected dtype torch.float32 to match queries, got torch.float64"),
    (lambda: sdpa(q3, k3.int(), v3), TypeError, r"keys: expected a floating-point tensor, got dtype torch.int32"),
    (lambda: sdpa(q3.tolist(), k3, v3), TypeError, r"queries: expected a torch.Tensor, got list"),
    (lambda: sdpa(q3, k3, torch.ones(6)), ValueError, r"values: expected at least 2 dims, got shape \(6,\)"),
    (lambda: sdpa(q3, torch.ones(3, 5, 4), torch.ones(3, 5, 6)), ValueError, r"batch dims: expected broadcastable leading dims"),
    (lambda: sdpa(q3, k3, v3, torch.ones(3, 5)), TypeError, r"mask: expected dtype torch.bool"),
    (lambda: sdpa(q3, k3, v3, torch.ones(5, 3, dtype=torch.bool)), ValueError, r"mask: expected a shape that broadcasts to \(2, 3, 5\), got \(5, 3\)"),
    (lambda: sdpa(q3, k3, v3, valid_lens=torch.tensor([2.0, 3.0])), TypeError, r"valid_lens: expected an integer tensor, got dtype torch.float32"),
    (lambda: sdpa(q3, k3, v3, valid_lens=torch.tensor([1, 2, 3])), ValueError, r"valid_lens: expected first dim 2 \(the batch\), got \(3,\)"),
    (lambda: sdpa(q3, k3, v3, valid_lens=torch.tensor([[1, 2], [3, 4]])), ValueError, r"valid_lens: expected shape \(2, 3\) for per-query lengths, got \(2, 2\)"),
    (lambda: sdpa(q3, k3, v3, valid_lens=torch.tensor([1, -2])), ValueError, r"valid_lens: expected lengths >= 0, got -2"),
    (lambda: sdpa(q3, k3, v3, valid_lens=[1, 2]), TypeError, r"valid_lens: expected a torch.Tensor, got list"),
    (lambda: sdpa(q3[0], k3[0], v3[0], valid_lens=torch.tensor([1])), ValueError, r"valid_lens: expected batched inputs \(B, T, d\), got weights of shape \(3, 5\)"),
    (lambda: sdpa(q3, k3, v3, causal=1), TypeError, r"causal: expected True or False, got int 1"),
    (lambda: sdpa(q3, k3, v3, temperature=0.0), ValueError, r"temperature: expected a number > 0, got 0.0"),
    (lambda: sdpa(q3, k3, v3, temperature=float("nan")), ValueError, r"temperature: expected a finite number, got nan"),
    (lambda: sdpa(q3, k3, v3, scale="big"), TypeError, r"scale: expected a real number, got str"),
    (lambda: sdpa(q3, k3, v3, scale=float("inf")), ValueError, r"scale: expected a finite number, got inf"),
    (lambda: sdpa(q3, k3, v3, dropout=1.0), ValueError, r"dropout: expected a number < 1.0, got 1.0"),
    (lambda: sdpa(q3, k3, v3, dropout=-0.1), ValueError, r"dropout: expected a number >= 0.0, got -0.1"),
    (lambda: sdpa(q3, k3, v3, dropout=0.1, generator=0), TypeError, r"generator: expected a torch.Generator or None, got int"),
    (lambda: al.nadaraya_watson(torch.ones(3), torch.ones(4), torch.ones(4, 2, 1)), ValueError, r"y_values: expected shape \(Tk,\) or \(Tk, dv\), got \(4, 2, 1\)"),
    (lambda: al.nadaraya_watson(torch.ones(3), torch.ones(4), torch.ones(5)), ValueError, r"y_values: expected 4 rows to match x_keys, got 5"),
    (lambda: al.nadaraya_watson(torch.ones(3, 1, 1), torch.ones(4), torch.ones(4)), ValueError, r"x_queries, x_keys: expected \(T,\) or \(T, d\), got \(3, 1, 1\) and \(4,\)"),
    (lambda: al.nadaraya_watson(torch.ones(3), torch.ones(4).double(), torch.ones(4)), TypeError, r"y_values: expected dtype torch.float64 to match x_keys, got torch.float32"),
    (lambda: al.nadaraya_watson(torch.ones(3).double(), torch.ones(4), torch.ones(4)), TypeError, r"x_queries: expected dtype torch.float32 to match x_keys, got torch.float64"),
    (lambda: al.nadaraya_watson(torch.ones(3, 2), torch.ones(4), torch.ones(4)), ValueError, r"x_queries: expected rows shaped like x_keys' \(\), got \(2,\)"),
    (lambda: al.nadaraya_watson(torch.ones(3, 2), torch.ones(4, 3), torch.ones(4)), ValueError, r"x_queries: expected rows shaped like x_keys' \(3,\), got \(2,\)"),
    (lambda: al.nadaraya_watson(torch.ones(3), torch.ones(4), torch.ones(4), sigma=0), ValueError, r"sigma: expected a number > 0, got 0.0"),
    (lambda: al.DotProductAttention(dropout=1.0), ValueError, r"dropout: expected a number < 1.0, got 1.0"),
    (lambda: al.AdditiveAttention(3, 4, 8, dropout=True), TypeError, r"dropout: expected a real number, got bool"),
    (lambda: al.AdditiveAttention(3, 4, 8)(torch.ones(2, 5, 4), torch.ones(2, 6, 3), torch.ones(2, 7, 2)), ValueError, r"values: expected 6 rows to match keys \(dim -2\), got 7"),
    (lambda: al.AdditiveAttention(3, 4, 8)(torch.ones(2, 5, 4), torch.ones(2, 6, 3), torch.ones(2, 6, 2).double()), TypeError, r"values: expected dtype torch.float32 to match queries"),
    (lambda: al.AdditiveAttention(3, 4, 8)(torch.ones(2, 5, 4), torch.ones(2, 6, 3), torch.ones(3, 6, 2)), ValueError, r"batch dims: expected broadcastable leading dims"),
    (lambda: al.AdditiveAttention(3, 4, 8)(torch.ones(2, 5, 4), torch.ones(2, 6, 3), torch.ones(2, 6, 2), torch.tensor([1])), ValueError, r"valid_lens: expected first dim 2"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match), no_matmul():                  # checked before any matmul
        call()


def test_device_mismatch_is_reported():
    meta = torch.ones(2, 5, 4, device="meta")
    with pytest.raises(ValueError, match=r"keys: expected device cpu to match queries, got meta"):
        sdpa(q3, meta, v3)


def test_dropout_with_a_generator_leaves_the_global_rng_alone():
    q, k, v = _qkv((2,), (2,), 3, 4, 5, 2)
    state = torch.get_rng_state()
    al.scaled_dot_product_attention(q, k, v, dropout=0.5, generator=torch.Generator().manual_seed(1))
    al.scaled_dot_product_attention(q, k, v, dropout=0.5, generator=torch.Generator().manual_seed(1),
                                    need_weights=False)
    assert torch.equal(torch.get_rng_state(), state)


def test_fused_path_zeroes_empty_rows_even_if_the_kernel_gives_nan(monkeypatch):
    # some fused GPU kernels have returned NaN for rows with no visible key; simulate one on CPU
    real = F.scaled_dot_product_attention

    def nan_rows(q, k, v, attn_mask=None, **kwargs):
        out = real(q, k, v, attn_mask=attn_mask, **kwargs)
        return out.masked_fill(~attn_mask.any(-1, keepdim=True), float("nan"))

    monkeypatch.setattr(F, "scaled_dot_product_attention", nan_rows)
    q, k, v = _qkv((2,), (2,), 3, 4, 5, 2)
    out, _ = al.scaled_dot_product_attention(q, k, v, valid_lens=torch.tensor([0, 4]), need_weights=False)
    assert not torch.isnan(out).any() and (out[0] == 0).all()
    monkeypatch.undo()
    torch.testing.assert_close(out, al.scaled_dot_product_attention(q, k, v, valid_lens=torch.tensor([0, 4]))[0])
