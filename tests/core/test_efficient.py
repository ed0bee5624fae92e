"""efficient.py: tiled attention against torch's SDPA at 1e-10 (float64); linear attention against
a direct O(T^2) evaluation of the same kernel formula."""
import pytest
import torch
from torch.nn import functional as F

import attnlab as al
from _refs import DEVICES, Untouched, call_untouched, no_matmul, randn, torch_sdpa


def _mask(shape, seed=0, p=0.35):
    return torch.rand(shape, generator=torch.Generator().manual_seed(seed)) > p


@pytest.mark.parametrize("block_size", [1, 3, 128])
@pytest.mark.parametrize("Tq,Tk", [(1, 1), (7, 7), (5, 11), (10, 4), (130, 129)])
@pytest.mark.parametrize("masking", ["none", "causal", "mask", "mask+causal"])
def test_tiled_matches_torch_float64(block_size, Tq, Tk, masking):
    if Tq * Tk > 200 and block_size == 1:
        pytest.skip("covered by smaller sizes; block 1 over 130 x 129 is slow")
    q, k, v = randn(2, Tq, 8), randn(2, Tk, 8, seed=1), randn(2, Tk, 3, seed=2)
    mask = _mask((2, Tq, Tk)) if "mask" in masking else None
    causal = "causal" in masking
    ref_mask = mask
    if causal:
        tri = torch.ones(Tq, Tk, dtype=torch.bool).tril()
        ref_mask = tri if mask is None else mask & tri
    out = call_untouched(al.tiled_attention, q, k, v, mask, causal=causal, block_size=block_size)
    ref = torch_sdpa(q, k, v, ref_mask)
    torch.testing.assert_close(out, ref, atol=1e-10, rtol=1e-10)


@pytest.mark.parametrize("mask_shape", [(), (6,), (5, 1), (1, 6), (1, 5, 6), (3, 1, 5, 6)])
def test_tiled_broadcasts_masks_and_batch_dims(mask_shape):
    q, k, v = randn(3, 1, 5, 4), randn(1, 2, 6, 4, seed=1), randn(1, 2, 6, 2, seed=2)
    mask = _mask(mask_shape, seed=3, p=0.3)
    out = al.tiled_attention(q, k, v, mask, block_size=2)
    assert out.shape == (3, 2, 5, 2)
    torch.testing.assert_close(out, torch_sdpa(q, k, v, mask), atol=1e-10, rtol=1e-10)


@pytest.mark.parametrize("block_size", [1, 2, 128])
def test_tiled_fully_masked_rows_are_zero_with_finite_gradients(block_size):
    q, k, v = (randn(2, 4, 3, requires_grad=True), randn(2, 5, 3, seed=1, requires_grad=True),
               randn(2, 5, 2, seed=2, requires_grad=True))
    mask = _mask((2, 4, 5))
    mask[0, 1] = False
    mask[1] = False
    guard = Untouched(q, k, v, mask)
    out = al.tiled_attention(q, k, v, mask, block_size=block_size)
    guard.check()
    assert (out[0, 1] == 0).all() and (out[1] == 0).all() and not torch.isnan(out).any()
    torch.testing.assert_close(out, torch_sdpa(q, k, v, mask), atol=1e-10, rtol=1e-10)
    out.sum().backward()
    assert all(torch.isfinite(t.grad).all() for t in (q, k, v))


def test_tiled_float32_close_to_torch():
    q, k, v = randn(2, 33, 16, dtype=torch.float32), randn(2, 40, 16, dtype=torch.float32, seed=1), randn(2, 40, 4, dtype=torch.float32, seed=2)
    torch.testing.assert_close(al.tiled_attention(q, k, v, causal=True, block_size=8),
                               torch_sdpa(q, k, v, torch.ones(33, 40, dtype=torch.bool).tril()), atol=1e-5, rtol=1e-5)


def test_tiled_with_a_local_mask_is_sliding_window_attention():
    q, k, v = randn(1, 9, 4), randn(1, 9, 4, seed=1), randn(1, 9, 2, seed=2)
    m = al.local_mask(9, 9, 2)
    torch.testing.assert_close(al.tiled_attention(q, k, v, m, block_size=4),
                               al.scaled_dot_product_attention(q, k, v, m)[0], atol=1e-12, rtol=1e-12)


def _linear_direct(q, k, v, phi):
    """out_i = sum_j phi(q_i)·phi(k_j) v_j / sum_j phi(q_i)·phi(k_j): the O(T^2) form, by loops."""
    fq, fk = phi(q), phi(k)
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    for b in range(q.shape[0]):
        for i in range(q.shape[1]):
            sims = torch.stack([torch.dot(fq[b, i], fk[b, j]) for j in range(k.shape[1])])   # (Tk,)
            out[b, i] = (sims[:, None] * v[b]).sum(0) / sims.sum()
    return out


@pytest.mark.parametrize("Tq,Tk", [(1, 1), (4, 6), (7, 3)])
def test_linear_attention_against_direct_computation(Tq, Tk):
    q, k, v = randn(2, Tq, 5), randn(2, Tk, 5, seed=1), randn(2, Tk, 3, seed=2)
    out = call_untouched(al.linear_attention, q, k, v)
    torch.testing.assert_close(out, _linear_direct(q, k, v, lambda x: F.elu(x) + 1), atol=1e-12, rtol=1e-12)
    square = lambda x: x * x + 0.1
    torch.testing.assert_close(al.linear_attention(q, k, v, feature_map=square),
                               _linear_direct(q, k, v, square), atol=1e-12, rtol=1e-12)


def test_linear_attention_with_exp_features_is_not_softmax_attention():
    # exp(q)·exp(k) != exp(q·k): a kernel stand-in, not the softmax (the point of notebook 07)
    q, k, v = randn(1, 4, 3), randn(1, 5, 3, seed=1), randn(1, 5, 2, seed=2)
    assert not torch.allclose(al.linear_attention(q, k, v), torch_sdpa(q, k, v), atol=1e-3)


@pytest.mark.parametrize("device", DEVICES)
def test_efficient_on_device(device):
    q, k, v = randn(2, 6, 4, dtype=torch.float32), randn(2, 7, 4, dtype=torch.float32, seed=1), randn(2, 7, 2, dtype=torch.float32, seed=2)
    mask = _mask((6, 7))
    ref = al.tiled_attention(q, k, v, mask, causal=True, block_size=3)
    out = al.tiled_attention(q.to(device), k.to(device), v.to(device), mask.to(device), causal=True, block_size=3)
    torch.testing.assert_close(out.cpu(), ref, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(al.linear_attention(q.to(device), k.to(device), v.to(device)).cpu(),
                               al.linear_attention(q, k, v), atol=1e-5, rtol=1e-4)


q3, k3, v3 = torch.ones(2, 3, 4), torch.ones(2, 5, 4), torch.ones(2, 5, 6)


@pytest.mark.parametrize("call,exc,match", [
    (lambda: al.tiled_attention(q3, k3, v3, block_size=0), ValueError, r"block_size: expected an int >= 1, got 0"),
    (lambda: al.tiled_attention(q3, k3, v3, block_size=2.5), TypeError, r"block_size: expected an int, got float"),
    (lambda: al.tiled_attention(q3, k3, v3, causal=None), TypeError, r"causal: expected True or False, got NoneType None"),
    (lambda: al.tiled_attention(q3, k3, v3, torch.ones(3, 5)), TypeError, r"mask: expected dtype torch.bool"),
    (lambda: al.tiled_attention(q3, k3, v3, torch.ones(3, 4, dtype=torch.bool)), ValueError, r"mask: expected a shape that broadcasts to \(2, 3, 5\)"),
    (lambda: al.tiled_attention(q3, torch.ones(2, 5, 3), v3), ValueError, r"keys: expected last dim 4 to match queries, got 3"),
    (lambda: al.linear_attention(q3, k3, v3, feature_map="relu"), ValueError, r"feature_map: expected 'elu' or a callable, got 'relu'"),
    (lambda: al.linear_attention(q3, k3, v3, feature_map=torch.ones(2)), ValueError, r"feature_map: expected 'elu' or a callable"),
    (lambda: al.linear_attention(q3, k3, torch.ones(2, 4, 6)), ValueError, r"values: expected 5 rows to match keys"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match), no_matmul():                  # checked before any matmul
        call()
