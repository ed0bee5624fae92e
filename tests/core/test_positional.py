"""positional.py against the formula written out in numpy (float64)."""
import numpy as np
import pytest
import torch

import attnlab as al
from _refs import DEVICES, call_untouched, no_matmul, randn


def numpy_P(T, d, base=10000.0):
    """P[i, 2j] = sin(i / base^(2j/d)), P[i, 2j+1] = cos(i / base^(2j/d)), entry by entry."""
    P = np.zeros((T, d))
    for i in range(T):
        for c in range(d):
            two_j = c - c % 2
            angle = i / base ** (two_j / d)
            P[i, c] = np.sin(angle) if c % 2 == 0 else np.cos(angle)
    return P


@pytest.mark.parametrize("T,d,base", [(1, 1, 10000.0), (60, 32, 10000.0), (10, 7, 10000.0), (8, 4, 100.0), (0, 4, 10.0)])
def test_sinusoidal_encoding_is_the_formula(T, d, base):
    P = al.sinusoidal_encoding(T, d, base, dtype=torch.float64)
    assert P.shape == (T, d) and P.dtype == torch.float64
    np.testing.assert_allclose(P.numpy(), numpy_P(T, d, base), atol=1e-12, rtol=0)


def test_default_dtype_and_seed_000_facts():
    P = al.sinusoidal_encoding(60, 32)
    assert P.dtype == torch.get_default_dtype()
    assert torch.equal(P[0, 0::2], torch.zeros(16)) and torch.equal(P[0, 1::2], torch.ones(16))
    assert (P.abs() <= 1).all()
    # column 6 oscillates faster than column 8 (frequency falls with the column index)
    sign_changes = lambda c: int((torch.diff(torch.sign(P[:, c])) != 0).sum())
    assert sign_changes(6) > sign_changes(8)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_positional_encoding_adds_P(dtype):
    pe = al.PositionalEncoding(16, dropout=0.5, max_len=50).eval()
    X = randn(2, 10, 16, dtype=dtype)
    out = call_untouched(pe, X)
    assert out.dtype == dtype
    tol = 1e-12 if dtype == torch.float64 else 1e-6
    np.testing.assert_allclose(out.double().numpy(), X.double().numpy() + numpy_P(10, 16)[None], atol=tol)
    pe.train()
    torch.manual_seed(0)
    assert not torch.allclose(pe(X), out)          # dropout while training


def test_positions_break_permutation_equivariance():
    torch.manual_seed(0)
    mha = al.MultiHeadAttention(8, 8, 8, 8, 2).double().eval()
    pe = al.PositionalEncoding(8).eval()
    X = randn(1, 5, 8)
    perm = torch.tensor([3, 0, 4, 1, 2])
    plain, permuted = mha(X, X, X), mha(X[:, perm], X[:, perm], X[:, perm])
    torch.testing.assert_close(permuted, plain[:, perm])          # no positions: equivariant
    Y, Yp = pe(X), pe(X[:, perm])
    assert not torch.allclose(mha(Yp, Yp, Yp), mha(Y, Y, Y)[:, perm])


@pytest.mark.parametrize("device", DEVICES)
def test_on_device(device):
    P = al.sinusoidal_encoding(5, 6, device=device)
    assert P.device.type == device
    pe = al.PositionalEncoding(6).to(device)
    assert pe(torch.zeros(1, 5, 6, device=device)).device.type == device


@pytest.mark.parametrize("call,exc,match", [
    (lambda: al.sinusoidal_encoding(-1, 4), ValueError, r"num_steps: expected an int >= 0, got -1"),
    (lambda: al.sinusoidal_encoding(4, 0), ValueError, r"num_hiddens: expected an int >= 1, got 0"),
    (lambda: al.sinusoidal_encoding(4, 4, base=0), ValueError, r"base: expected a number > 0, got 0.0"),
    (lambda: al.PositionalEncoding(8, max_len=0), ValueError, r"max_len: expected an int >= 1, got 0"),
    (lambda: al.PositionalEncoding(8)(torch.ones(1, 3, 6)), ValueError, r"X: expected last dim num_hiddens=8, got 6"),
    (lambda: al.PositionalEncoding(8, max_len=4)(torch.ones(1, 5, 8)), ValueError, r"X: expected at most max_len=4 positions, got 5"),
    (lambda: al.PositionalEncoding(8)(torch.ones(8)), ValueError, r"X: expected at least 2 dims, got shape \(8,\)"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match), no_matmul():                  # checked before any matmul
        call()
