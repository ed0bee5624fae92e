"""scoring.py against closed forms written in numpy (float64)."""
import math

import numpy as np
import pytest
import torch

import attnlab as al
from _refs import DEVICES, DTYPES, call_untouched, no_matmul, randn


def _np(x):
    return x.detach().cpu().double().numpy()


def _closed_form(kind, q, k, sigma=1.0):
    """Per-pair loops over (Tq, d), (Tk, d) numpy arrays."""
    out = np.empty((q.shape[0], k.shape[0]))
    for i in range(q.shape[0]):
        for j in range(k.shape[0]):
            qi, kj = q[i], k[j]
            if kind == "dot":
                out[i, j] = sum(a * b for a, b in zip(qi, kj))
            elif kind == "scaled":
                out[i, j] = sum(a * b for a, b in zip(qi, kj)) / math.sqrt(len(qi))
            elif kind == "cosine":
                nq, nk = math.sqrt(sum(a * a for a in qi)), math.sqrt(sum(b * b for b in kj))
                out[i, j] = 0.0 if nq == 0 or nk == 0 else sum(a * b for a, b in zip(qi, kj)) / (nq * nk)
            else:
                out[i, j] = -sum((a - b) ** 2 for a, b in zip(qi, kj)) / (2 * sigma ** 2)
    return out


FUNCS = {"dot": al.dot_scores, "scaled": al.scaled_dot_scores, "cosine": al.cosine_scores,
         "gauss": lambda q, k: al.gaussian_scores(q, k, sigma=0.7)}


@pytest.mark.parametrize("kind", list(FUNCS))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("Tq,Tk,d", [(1, 1, 1), (3, 5, 4), (4, 2, 16)])
def test_scores_match_closed_forms(kind, dtype, Tq, Tk, d):
    q, k = randn(Tq, d, dtype=dtype), randn(Tk, d, dtype=dtype, seed=1)
    got = call_untouched(FUNCS[kind], q, k)
    assert got.shape == (Tq, Tk) and got.dtype == dtype
    ref = _closed_form(kind, _np(q), _np(k), sigma=0.7)
    np.testing.assert_allclose(_np(got), ref, atol=1e-5 if dtype == torch.float32 else 1e-12, rtol=1e-5)


@pytest.mark.parametrize("kind", list(FUNCS))
def test_scores_broadcast_leading_dims(kind):
    q, k = randn(2, 1, 3, 4), randn(1, 5, 6, 4, seed=1)               # batch (2, 1) with (1, 5)
    got = FUNCS[kind](q, k)
    assert got.shape == (2, 5, 3, 6)
    for a in range(2):
        for b in range(5):
            np.testing.assert_allclose(_np(got[a, b]), _closed_form(kind, _np(q[a, 0]), _np(k[0, b]), 0.7), atol=1e-12)


def test_cosine_of_a_zero_vector_is_zero_and_range_is_unit():
    q = torch.tensor([[0.0, 0.0], [3.0, 4.0]], dtype=torch.float64)
    k = torch.tensor([[1.0, 0.0], [-3.0, -4.0], [0.0, 0.0]], dtype=torch.float64)
    s = al.cosine_scores(q, k)
    assert torch.equal(s[0], torch.zeros(3, dtype=torch.float64))
    torch.testing.assert_close(s[1], torch.tensor([0.6, -1.0, 0.0], dtype=torch.float64))


def test_gaussian_scores_on_1d_positions_and_its_softmax_is_the_gaussian_kernel():
    x, xs = torch.tensor([0.0, 1.5], dtype=torch.float64), torch.tensor([0.0, 1.0, 3.0], dtype=torch.float64)
    s = al.gaussian_scores(x, xs, sigma=2.0)
    ref = np.array([[-(a - b) ** 2 / 8 for b in (0.0, 1.0, 3.0)] for a in (0.0, 1.5)])
    np.testing.assert_allclose(s.numpy(), ref, atol=1e-15)
    kernel = np.exp(ref) / np.exp(ref).sum(1, keepdims=True)
    np.testing.assert_allclose(torch.softmax(s, -1).numpy(), kernel, atol=1e-14)


def test_scaled_dot_keeps_unit_variance():
    # entries ~ N(0, 1): Var(q·k) = d, Var(q·k / sqrt d) = 1  (seed 002's argument)
    d = 64
    q, k = randn(4000, d), randn(4000, d, seed=2)
    dots = (q * k).sum(-1)
    assert abs(dots.var().item() / d - 1) < 0.1
    scaled = torch.stack([al.scaled_dot_scores(q[i:i + 1], k[i:i + 1])[0, 0] for i in range(500)])
    np.testing.assert_allclose(scaled.numpy(), (dots[:500] / 8).numpy(), atol=1e-12)


def test_additive_scores_against_a_hand_written_loop():
    torch.manual_seed(0)
    m = al.AdditiveScores(query_size=3, key_size=5, num_hiddens=4).double()
    q, k = randn(2, 3, 3), randn(2, 4, 5, seed=1)
    got = call_untouched(m, q, k)
    Wq, Wk, wv = _np(m.W_q.weight), _np(m.W_k.weight), _np(m.w_v.weight)[0]
    assert m.W_q.bias is None and m.W_k.bias is None and m.w_v.bias is None
    ref = np.empty((2, 3, 4))
    for b in range(2):
        for i in range(3):
            for j in range(4):
                ref[b, i, j] = wv @ np.tanh(Wq @ _np(q[b, i]) + Wk @ _np(k[b, j]))
    np.testing.assert_allclose(_np(got), ref, atol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_scores_on_device(device):
    q, k = randn(3, 4, device=device), randn(5, 4, device=device, seed=1)
    for f in FUNCS.values():
        assert f(q, k).device.type == device


@pytest.mark.parametrize("call,exc,match", [
    (lambda: al.dot_scores(torch.ones(2, 3), torch.ones(2, 4)), ValueError, r"keys: expected last dim 3 to match queries, got 4"),
    (lambda: al.dot_scores(torch.ones(3), torch.ones(2, 3)), ValueError, r"queries: expected at least 2 dims, got shape \(3,\)"),
    (lambda: al.dot_scores(torch.ones(2, 3), torch.ones(2, 3, dtype=torch.float64)), TypeError, r"keys: expected dtype torch.float32 to match queries, got torch.float64"),
    (lambda: al.dot_scores(torch.ones(2, 2, 3), torch.ones(3, 2, 3)), ValueError, r"batch dims: expected broadcastable leading dims, got queries \(2,\), keys \(3,\)"),
    (lambda: al.scaled_dot_scores(np.ones((2, 3)), torch.ones(2, 3)), TypeError, r"queries: expected a torch.Tensor, got ndarray"),
    (lambda: al.cosine_scores(torch.ones(2, 3), torch.ones(2, 3), eps=0.0), ValueError, r"eps: expected a number > 0, got 0.0"),
    (lambda: al.gaussian_scores(torch.ones(2), torch.ones(2, 1)), ValueError, r"keys: expected 1-D like queries \(2,\) or both >= 2-D, got \(2, 1\)"),
    (lambda: al.gaussian_scores(torch.ones(2), torch.ones(2), sigma=-1), ValueError, r"sigma: expected a number > 0, got -1.0"),
    (lambda: al.AdditiveScores(0, 3, 4), ValueError, r"query_size: expected an int >= 1, got 0"),
    (lambda: al.AdditiveScores(2, 3, 4)(torch.ones(1, 2, 5), torch.ones(1, 2, 3)), ValueError, r"queries: expected last dim query_size=2, got 5"),
    (lambda: al.AdditiveScores(2, 3, 4)(torch.ones(1, 2, 2), torch.ones(1, 2, 4)), ValueError, r"keys: expected last dim key_size=3, got 4"),
    (lambda: al.AdditiveScores(2, 3, 4)(torch.ones(1, 2, 2).double(), torch.ones(1, 2, 3).double()), TypeError, r"queries: expected dtype torch.float32 to match the module's parameters"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match), no_matmul():                  # checked before any matmul
        call()


def test_gaussian_scores_large_inputs_take_the_expanded_form_and_agree():
    import attnlab.core.scoring as scoring
    g = torch.Generator().manual_seed(0)
    q = torch.randn(2, 40, 16, generator=g, dtype=torch.float64)
    k = torch.randn(1, 30, 16, generator=g, dtype=torch.float64)
    exact = scoring.gaussian_scores(q, k, sigma=0.7)
    limit = scoring._EXACT_LIMIT
    try:
        scoring._EXACT_LIMIT = 0
        expanded = scoring.gaussian_scores(q, k, sigma=0.7)
    finally:
        scoring._EXACT_LIMIT = limit
    assert expanded.shape == (2, 40, 30)
    torch.testing.assert_close(expanded, exact, rtol=1e-12, atol=1e-12)
    same = scoring.gaussian_scores(q[0], q[0])          # distance to itself is 0 on the diagonal
    assert (torch.diagonal(same) == 0).all()
