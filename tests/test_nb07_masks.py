"""mask_gallery.py: bottom-right causal masks against torch.nn.attention.bias.causal_lower_right,
block masks against a loop, and the three fully-masked-row conventions against torch itself
(plain softmax of -inf, F.scaled_dot_product_attention, d2l's -1e6 fill written out here)."""
import warnings

import pytest
import torch
from torch.nn import functional as F
from torch.nn.attention.bias import causal_lower_right, causal_upper_left

import attnlab as al
from attnlab.lessons.nb07_masks_and_efficient_attention.masks import (MASK_KINDS, block_mask, causal_mask_bottom_right, make_mask,
                                  masked_row_conventions)

SIZES = [(1, 1), (2, 5), (5, 5), (5, 2), (3, 7), (7, 3)]


def _torch_mask(bias):
    with warnings.catch_warnings():                 # torch warns that Tq > Tk rows will be NaN
        warnings.simplefilter("ignore")
        return bias._materialize()


@pytest.mark.parametrize("Tq,Tk", SIZES)
def test_bottom_right_matches_torch_causal_lower_right(Tq, Tk):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _torch_mask(causal_lower_right(Tq, Tk))
    assert torch.equal(causal_mask_bottom_right(Tq, Tk), ref)


@pytest.mark.parametrize("Tq,Tk", SIZES)
def test_top_left_contract_unchanged_matches_causal_upper_left(Tq, Tk):
    assert torch.equal(al.causal_mask(Tq, Tk), _torch_mask(causal_upper_left(Tq, Tk)))
    assert torch.equal(make_mask("causal top-left", Tq, Tk), al.causal_mask(Tq, Tk))


def test_bottom_right_last_query_sees_every_key_and_equals_top_left_when_square():
    assert causal_mask_bottom_right(2, 5)[-1].all()
    assert causal_mask_bottom_right(2, 5).sum(-1).tolist() == [4, 5]
    assert al.causal_mask(2, 5).sum(-1).tolist() == [1, 2]
    assert torch.equal(causal_mask_bottom_right(6, 6), al.causal_mask(6, 6))


def test_bottom_right_in_sdpa_matches_torch_causal_bias():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, n, 4, generator=g, dtype=torch.float64) for n in (3, 7, 7))
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=causal_lower_right(3, 7))
    out, _ = al.scaled_dot_product_attention(q, k, v, causal_mask_bottom_right(3, 7))
    torch.testing.assert_close(out, ref, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("Tq,Tk,b", [(6, 6, 2), (7, 5, 3), (4, 4, 4), (5, 5, 1), (3, 3, 10)])
def test_block_mask_against_loop(Tq, Tk, b):
    ref = torch.tensor([[i // b == j // b for j in range(Tk)] for i in range(Tq)])
    assert torch.equal(block_mask(Tq, Tk, b), ref)


def test_make_mask_kinds():
    assert torch.equal(make_mask("local", 5, 5, window=1), al.local_mask(5, 5, 1))
    assert make_mask("padding", 3, 6, valid_len=4).tolist() == [[True] * 4 + [False] * 2] * 3
    assert make_mask("padding", 3, 6).shape == (3, 6)
    for kind in MASK_KINDS:
        assert make_mask(kind, 4, 6).dtype == torch.bool
    with pytest.raises(ValueError, match="kind: expected one of"):
        make_mask("diagonal", 3, 3)


def test_bad_sizes_raise():
    with pytest.raises(ValueError, match="num_keys"):
        causal_mask_bottom_right(2, -1)
    with pytest.raises(ValueError, match="block_size"):
        block_mask(3, 3, 0)


def test_three_conventions_for_a_fully_masked_row():
    scores = torch.tensor([[0.3, -1.2, 0.8, 0.1], [0.5, -0.4, 2.0, 1.0]], dtype=torch.float64)
    mask = torch.tensor([[True, True, False, False], [False] * 4])
    c = masked_row_conventions(scores, mask)
    # uniform: d2l's -1e6 fill, written out here
    ref_uniform = torch.softmax(torch.where(mask, scores, torch.tensor(-1e6, dtype=torch.float64)), -1)
    torch.testing.assert_close(c["uniform"], ref_uniform)
    assert c["uniform"][1].tolist() == [0.25] * 4
    assert torch.isnan(c["nan"][1]).all() and not torch.isnan(c["nan"][0]).any()
    # zero: what torch's SDPA does since 2.5; with equal scores and identity values its output
    # row is the weights themselves
    q, k = torch.ones(2, 1, 1, dtype=torch.float64), torch.zeros(2, 4, 1, dtype=torch.float64)
    v = torch.eye(4, dtype=torch.float64).expand(2, 4, 4)
    sdpa = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None, :])   # (2, 1, 4)
    assert sdpa[1].abs().sum() == 0                 # fully masked row: zero output in torch too
    assert sdpa[0, 0].tolist() == [0.5, 0.5, 0.0, 0.0]
    assert c["zero"][1].tolist() == [0.0] * 4
    torch.testing.assert_close(c["zero"][0], c["nan"][0])
    torch.testing.assert_close(c["zero"][0], c["uniform"][0])
    torch.testing.assert_close(c["zero"], al.masked_softmax(scores, mask))


def test_nan_row_poisons_the_next_layer_and_its_gradients():
    """Layer 2 masks the pad position (weight 0), yet 0 * NaN = NaN: with the -inf convention the
    loss and the gradient of layer 2's value projection are NaN; uniform and zero stay finite."""
    mask = torch.tensor([[True, True, False], [False, False, False]])          # row 1: a pad query
    values = torch.tensor([[1.0], [2.0], [3.0]], dtype=torch.float64)
    scores = torch.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, 1.0]], dtype=torch.float64)
    results = {}
    for name in ("uniform", "nan", "zero"):
        hidden = masked_row_conventions(scores, mask)[name] @ values                 # (2, 1) layer 1
        W_V = torch.tensor([[2.0]], dtype=torch.float64, requires_grad=True)
        w2 = torch.tensor([[1.0, 0.0]], dtype=torch.float64)                           # layer 2: pad masked
        loss = (w2 @ (hidden @ W_V)).sum()
        loss.backward()
        results[name] = (loss.detach(), W_V.grad)
    assert torch.isnan(results["nan"][0]) and torch.isnan(results["nan"][1]).all()
    for name in ("uniform", "zero"):
        assert torch.isfinite(results[name][0]) and torch.isfinite(results[name][1]).all()
    torch.testing.assert_close(results["zero"], results["uniform"])
