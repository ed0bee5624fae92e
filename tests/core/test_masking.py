"""masking.py against loops, numpy and torch's own softmax."""
import numpy as np
import pytest
import torch

import attnlab as al
from _refs import DEVICES, DTYPES, TOL, Untouched, call_untouched, lens_mask_loop, no_matmul, np_softmax_rows, randn

# --- masks -------------------------------------------------------------------------------------

@pytest.mark.parametrize("Tq,Tk", [(1, 1), (4, 4), (3, 5), (5, 3), (0, 2)])
@pytest.mark.parametrize("device", DEVICES)
def test_causal_mask_is_torchs_top_left_tril(Tq, Tk, device):
    m = al.causal_mask(Tq, Tk, device=device)
    loop = torch.tensor([[j <= i for j in range(Tk)] for i in range(Tq)], dtype=torch.bool).reshape(Tq, Tk)
    assert m.dtype == torch.bool and m.device.type == device
    assert torch.equal(m.cpu(), loop)
    # torch's is_causal uses the same top-left alignment
    q, k, v = randn(Tq, 4), randn(Tk, 4, seed=1), randn(Tk, 2, seed=2)
    if Tq and Tk:
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        got = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m.cpu())
        torch.testing.assert_close(got, ref)


@pytest.mark.parametrize("Tq,Tk,window", [(5, 5, 0), (5, 5, 1), (4, 7, 2), (7, 4, 3), (3, 3, 10), (1, 6, 2)])
@pytest.mark.parametrize("device", DEVICES)
def test_local_mask_against_a_loop(Tq, Tk, window, device):
    m = al.local_mask(Tq, Tk, window, device=device)
    loop = torch.tensor([[abs(i - j) <= window for j in range(Tk)] for i in range(Tq)])
    assert m.dtype == torch.bool and torch.equal(m.cpu(), loop)


def test_sequence_mask_per_sequence_and_per_query():
    lens = torch.tensor([3, 0, 7])
    m = call_untouched(al.sequence_mask, lens, 5)
    assert m.shape == (3, 1, 5)
    assert torch.equal(m.expand(3, 2, 5), lens_mask_loop(lens, 2, 5))
    lens2 = torch.tensor([[1, 2], [0, 5]])
    m2 = al.sequence_mask(lens2, 4)
    assert m2.shape == (2, 2, 4) and torch.equal(m2, lens_mask_loop(lens2, 2, 4))


def test_sizes_may_be_integer_tensors():
    assert torch.equal(al.causal_mask(torch.tensor(2), torch.tensor(3)), torch.ones(2, 3, dtype=torch.bool).tril())


def test_sequence_mask_accepts_any_integer_dtype():
    for dtype in (torch.int32, torch.int64, torch.uint8):
        assert torch.equal(al.sequence_mask(torch.tensor([2], dtype=dtype), 3), torch.tensor([[[True, True, False]]]))


# --- masked_softmax ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_softmax_without_mask_is_torch_softmax(dtype):
    s = randn(2, 3, 5, dtype=dtype)
    torch.testing.assert_close(al.masked_softmax(s), torch.softmax(s, -1), **TOL[dtype])
    torch.testing.assert_close(al.masked_softmax(s, temperature=0.3), torch.softmax(s / 0.3, -1), **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask_shape", [(5,), (3, 1), (3, 5), (2, 3, 5), (2, 1, 5), ()])
def test_masked_softmax_matches_numpy_with_broadcast_masks(dtype, mask_shape):
    s = randn(2, 3, 5, dtype=dtype)
    g = torch.Generator().manual_seed(3)
    mask = torch.rand(mask_shape, generator=g) > 0.4
    w = call_untouched(al.masked_softmax, s, mask, temperature=2.0)
    ref = np_softmax_rows(s.double().numpy() / 2.0, mask.numpy())
    np.testing.assert_allclose(w.double().numpy(), ref, atol=1e-6 if dtype == torch.float32 else 1e-13)


def test_masked_softmax_agrees_with_d2l_where_rows_are_not_empty():
    # d2l fills masked scores with -1e6: the same answer on rows with at least one valid key
    s = randn(2, 4, 6)
    lens = torch.tensor([2, 6])
    d2l = s.clone()
    d2l[(torch.arange(6)[None, None, :] >= lens[:, None, None]).expand(2, 4, 6)] = -1e6
    w = al.masked_softmax(s, al.sequence_mask(lens, 6))
    torch.testing.assert_close(w, torch.softmax(d2l, -1))


def test_fully_masked_rows_give_zero_weights_and_finite_gradients():
    s = randn(2, 3, 4, requires_grad=True)
    mask = torch.ones(2, 3, 4, dtype=torch.bool)
    mask[0, 1] = False
    mask[1] = False
    guard = Untouched(s, mask)
    w = al.masked_softmax(s, mask)
    guard.check()
    assert not torch.isnan(w).any()
    assert torch.equal(w[0, 1], torch.zeros(4, dtype=w.dtype)) and torch.equal(w[1], torch.zeros(3, 4, dtype=w.dtype))
    torch.testing.assert_close(w[0, [0, 2]].sum(-1), torch.ones(2, dtype=w.dtype))
    (w * randn(2, 3, 4, seed=5)).sum().backward()
    assert torch.isfinite(s.grad).all()
    assert torch.equal(s.grad[1], torch.zeros(3, 4, dtype=s.dtype))   # no key visible: no signal


def test_masked_softmax_on_1d_scores_and_accepts_tensor_temperature():
    s = torch.tensor([1.0, 2.0, 3.0])
    torch.testing.assert_close(al.masked_softmax(s, temperature=torch.tensor(2.0)), torch.softmax(s / 2, 0))


@pytest.mark.parametrize("device", DEVICES)
def test_masked_softmax_on_device(device):
    s = randn(3, 4, device=device)
    mask = al.causal_mask(3, 4, device=device)
    w = al.masked_softmax(s, mask)
    assert w.device.type == device
    np.testing.assert_allclose(w.cpu().numpy(), np_softmax_rows(s.cpu().numpy(), mask.cpu().numpy()), atol=1e-12)


# --- bad input ---------------------------------------------------------------------------------

@pytest.mark.parametrize("call,exc,match", [
    (lambda: al.causal_mask(3.0, 4), TypeError, r"num_queries: expected an int, got float"),
    (lambda: al.causal_mask(True, 4), TypeError, r"num_queries: expected an int, got bool"),
    (lambda: al.causal_mask(3, -1), ValueError, r"num_keys: expected an int >= 0, got -1"),
    (lambda: al.local_mask(3, 3, -1), ValueError, r"window: expected an int >= 0, got -1"),
    (lambda: al.local_mask(3, 3, 1.5), TypeError, r"window: expected an int, got float"),
    (lambda: al.sequence_mask([1, 2], 3), TypeError, r"valid_lens: expected a torch.Tensor, got list"),
    (lambda: al.sequence_mask(torch.tensor([1.0, 2.0]), 3), TypeError, r"valid_lens: expected an integer tensor, got dtype torch.float32"),
    (lambda: al.sequence_mask(torch.tensor([True]), 3), TypeError, r"valid_lens: expected an integer tensor, got dtype torch.bool"),
    (lambda: al.sequence_mask(torch.tensor(2), 3), ValueError, r"valid_lens: expected shape \(B,\) or \(B, Tq\), got \(\)"),
    (lambda: al.sequence_mask(torch.tensor([2, -1]), 3), ValueError, r"valid_lens: expected lengths >= 0, got -1"),
    (lambda: al.masked_softmax([1.0, 2.0]), TypeError, r"scores: expected a torch.Tensor, got list"),
    (lambda: al.masked_softmax(torch.tensor(1.0)), ValueError, r"scores: expected at least 1 dims, got shape \(\)"),
    (lambda: al.masked_softmax(torch.tensor([1, 2])), TypeError, r"scores: expected a floating-point tensor, got dtype torch.int64"),
    (lambda: al.masked_softmax(torch.ones(2, 3), torch.ones(2, 3)), TypeError, r"mask: expected dtype torch.bool \(True = may attend\), got torch.float32"),
    (lambda: al.masked_softmax(torch.ones(2, 3), [[True] * 3] * 2), TypeError, r"mask: expected a bool torch.Tensor, got list"),
    (lambda: al.masked_softmax(torch.ones(2, 3), torch.ones(3, 2, dtype=torch.bool)), ValueError, r"mask: expected a shape that broadcasts to \(2, 3\), got \(3, 2\)"),
    (lambda: al.masked_softmax(torch.ones(2, 3), torch.ones(1, 2, 3, dtype=torch.bool)), ValueError, r"mask: expected a shape that broadcasts to \(2, 3\), got \(1, 2, 3\)"),
    (lambda: al.causal_mask(torch.tensor(2.0), 3), TypeError, r"num_queries: expected an int, got Tensor"),
    (lambda: al.masked_softmax(torch.ones(2, 3), temperature=0), ValueError, r"temperature: expected a number > 0, got 0.0"),
    (lambda: al.masked_softmax(torch.ones(2, 3), temperature=-1.0), ValueError, r"temperature: expected a number > 0, got -1.0"),
    (lambda: al.masked_softmax(torch.ones(2, 3), temperature=float("inf")), ValueError, r"temperature: expected a finite number, got inf"),
    (lambda: al.masked_softmax(torch.ones(2, 3), temperature=float("nan")), ValueError, r"temperature: expected a finite number, got nan"),
    (lambda: al.masked_softmax(torch.ones(2, 3), temperature=True), TypeError, r"temperature: expected a real number, got bool"),
    (lambda: al.masked_softmax(torch.ones(2, 3), temperature="1"), TypeError, r"temperature: expected a real number, got str"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match), no_matmul():                  # checked before any matmul
        call()


def test_masked_softmax_moves_a_mask_to_the_scores_device():
    w = al.masked_softmax(torch.ones(2, 3, device="meta"), torch.ones(2, 3, dtype=torch.bool))
    assert w.device.type == "meta" and w.shape == (2, 3)
