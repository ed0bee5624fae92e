"""multihead.py against torch's nn.MultiheadAttention (weights copied) and seed 000's d2l code."""
import pytest
import torch
from torch import nn

import attnlab as al
from _refs import DEVICES, DTYPES, TOL, Untouched, call_untouched, no_matmul, randn


def _pair(D, H, kdim=None, vdim=None, dtype=torch.float64, seed=0):
    """A torch MHA and an attnlab MHA with the same weights (biases included)."""
    torch.manual_seed(seed)
    ref = nn.MultiheadAttention(D, H, bias=True, batch_first=True, kdim=kdim, vdim=vdim).to(dtype).eval()
    ours = al.MultiHeadAttention(kdim or D, D, vdim or D, D, H, bias=True).to(dtype).eval()
    with torch.no_grad():
        if ref._qkv_same_embed_dim:
            Wq, Wk, Wv = ref.in_proj_weight.chunk(3)
        else:
            Wq, Wk, Wv = ref.q_proj_weight, ref.k_proj_weight, ref.v_proj_weight
        bq, bk, bv = ref.in_proj_bias.chunk(3)
        for lin, W, b in ((ours.W_q, Wq, bq), (ours.W_k, Wk, bk), (ours.W_v, Wv, bv),
                          (ours.W_o, ref.out_proj.weight, ref.out_proj.bias)):
            lin.weight.copy_(W)
            lin.bias.copy_(b)
    return ref, ours


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("D,H,kdim,vdim,Tq,Tk", [(8, 2, None, None, 3, 5), (12, 3, 5, 7, 4, 4),
                                                  (6, 1, None, None, 1, 1), (16, 16, None, None, 2, 3)])
def test_matches_torch_multihead_attention(dtype, D, H, kdim, vdim, Tq, Tk):
    ref, ours = _pair(D, H, kdim, vdim, dtype)
    q, k, v = randn(2, Tq, D, dtype=dtype), randn(2, Tk, kdim or D, dtype=dtype, seed=1), randn(2, Tk, vdim or D, dtype=dtype, seed=2)
    out = call_untouched(ours, q, k, v)
    ref_out, ref_w = ref(q, k, v, average_attn_weights=False)
    torch.testing.assert_close(out, ref_out, **TOL[dtype])
    assert ours.attention_weights.shape == (2, H, Tq, Tk)
    torch.testing.assert_close(ours.attention_weights, ref_w, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_valid_lens_is_torchs_key_padding_mask(dtype):
    ref, ours = _pair(8, 2, dtype=dtype)
    q, k = randn(3, 4, 8, dtype=dtype), randn(3, 6, 8, dtype=dtype, seed=1)
    lens = torch.tensor([6, 2, 1])
    out = ours(q, k, k, lens)
    ref_out, ref_w = ref(q, k, k, key_padding_mask=torch.arange(6)[None, :] >= lens[:, None],
                         average_attn_weights=False)
    torch.testing.assert_close(out, ref_out, **TOL[dtype])
    torch.testing.assert_close(ours.attention_weights, ref_w, **TOL[dtype])


@pytest.mark.parametrize("mask_kind", ["2d", "3d", "4d", "causal"])
def test_mask_is_torchs_attn_mask_negated(mask_kind):
    B, H, Tq, Tk = 2, 4, 5, 5
    ref, ours = _pair(8, H)
    q, k, v = randn(B, Tq, 8), randn(B, Tk, 8, seed=1), randn(B, Tk, 8, seed=2)
    g = torch.Generator().manual_seed(4)
    diag = torch.eye(Tq, Tk, dtype=torch.bool)                     # keep one key per row: no empty rows
    if mask_kind == "causal":
        out = ours(q, k, v, causal=True)
        torch_mask = ~torch.ones(Tq, Tk, dtype=torch.bool).tril()
    elif mask_kind == "2d":
        mask = (torch.rand(Tq, Tk, generator=g) > 0.5) | diag
        out, torch_mask = ours(q, k, v, mask=mask), ~mask
    elif mask_kind == "3d":
        mask = (torch.rand(B, Tq, Tk, generator=g) > 0.5) | diag
        out, torch_mask = ours(q, k, v, mask=mask), ~mask.repeat_interleave(H, 0)   # torch: (B*H, Tq, Tk)
    else:
        mask = (torch.rand(B, H, Tq, Tk, generator=g) > 0.5) | diag
        out, torch_mask = ours(q, k, v, mask=mask), ~mask.reshape(B * H, Tq, Tk)
    ref_out, ref_w = ref(q, k, v, attn_mask=torch_mask, average_attn_weights=False)
    torch.testing.assert_close(out, ref_out)
    torch.testing.assert_close(ours.attention_weights, ref_w)


def test_temperature_equals_scaling_the_query_projection():
    _, ours = _pair(8, 2)
    q, k = randn(2, 3, 8), randn(2, 4, 8, seed=1)
    out_t = ours(q, k, k, temperature=2.5)
    w_t = ours.attention_weights
    with torch.no_grad():
        ours.W_q.weight /= 2.5
        ours.W_q.bias /= 2.5
    torch.testing.assert_close(ours(q, k, k), out_t)
    torch.testing.assert_close(ours.attention_weights, w_t)


def test_seed_000_example_shape_and_uniform_weights_on_ones():
    torch.manual_seed(0)
    attention = al.MultiHeadAttention(100, 100, 100, 100, 5, 0.5)
    attention.eval()
    X, Y = torch.ones(2, 4, 100), torch.ones(2, 6, 100)
    valid_lens = torch.tensor([3, 2])
    assert attention(X, Y, Y, valid_lens).shape == (2, 4, 100)
    w = attention.attention_weights
    assert w.shape == (2, 5, 4, 6)
    # identical keys: uniform over the valid ones
    torch.testing.assert_close(w[0, :, :, :3], torch.full((5, 4, 3), 1 / 3))
    torch.testing.assert_close(w[1, :, :, :2], torch.full((5, 4, 2), 1 / 2))
    assert (w[0, :, :, 3:] == 0).all() and (w[1, :, :, 2:] == 0).all()
    assert attention(X, X, X, valid_lens).shape == (2, 4, 100)            # self-attention
    assert attention.W_q.bias is None                                       # d2l: bias=False


# seed 000's transpose_qkv / transpose_output, typed from the notes
def transpose_qkv(X, num_heads):
    X = X.reshape(X.shape[0], X.shape[1], num_heads, -1)
    X = X.permute(0, 2, 1, 3)
    return X.reshape(-1, X.shape[2], X.shape[3])


def transpose_output(X, num_heads):
    X = X.reshape(-1, num_heads, X.shape[1], X.shape[2])
    X = X.permute(0, 2, 1, 3)
    return X.reshape(X.shape[0], X.shape[1], -1)


@pytest.mark.parametrize("H", [1, 2, 5, 10])
def test_split_and_merge_heads_are_seed_000s_transposes(H):
    X = randn(3, 4, 10)
    S = call_untouched(al.split_heads, X, H)
    assert S.shape == (3, H, 4, 10 // H)
    assert torch.equal(S.reshape(-1, 4, 10 // H), transpose_qkv(X, H))
    assert torch.equal(al.merge_heads(S), transpose_output(transpose_qkv(X, H), H))
    assert torch.equal(al.merge_heads(S), X)
    assert torch.equal(al.split_heads(torch.arange(12).reshape(1, 2, 6), 3)[0, 1], torch.tensor([[2, 3], [8, 9]]))


def test_dropout_only_while_training_and_gradients_finite_with_empty_rows():
    torch.manual_seed(0)
    m = al.MultiHeadAttention(4, 4, 4, 8, 2, dropout=0.5).double()
    q = randn(2, 3, 4, requires_grad=True)
    guard = Untouched(q)
    m.eval()
    a, b = m(q, q, q), m(q, q, q)
    torch.testing.assert_close(a, b)
    m.train()
    torch.manual_seed(1)
    assert not torch.allclose(m(q, q, q), a)
    m.eval()
    out = m(q, q, q, torch.tensor([0, 3]))                                   # batch 0: no visible key
    out.sum().backward()
    guard.check()
    assert torch.isfinite(q.grad).all() and torch.isfinite(m.W_q.weight.grad).all()
    assert (m.attention_weights[0] == 0).all()


@pytest.mark.parametrize("device", DEVICES)
def test_on_device_matches_cpu(device):
    torch.manual_seed(0)
    m = al.MultiHeadAttention(6, 6, 6, 8, 2).eval()
    x = randn(2, 3, 6, dtype=torch.float32)
    ref = m(x, x, x, torch.tensor([2, 3]))
    out = m.to(device)(x.to(device), x.to(device), x.to(device), torch.tensor([2, 3], device=device))
    torch.testing.assert_close(out.cpu(), ref, atol=1e-5, rtol=1e-4)


M = al.MultiHeadAttention(4, 4, 4, 8, 2)
x4 = torch.ones(2, 3, 4)


@pytest.mark.parametrize("call,exc,match", [
    (lambda: al.MultiHeadAttention(4, 4, 4, 10, 3), ValueError, r"num_hiddens: expected a multiple of num_heads=3, got 10"),
    (lambda: al.MultiHeadAttention(4, 4, 4, 8, 0), ValueError, r"num_heads: expected an int >= 1, got 0"),
    (lambda: al.MultiHeadAttention(4, 4, 4, 8, 2, bias=1), TypeError, r"bias: expected True or False, got int 1"),
    (lambda: al.MultiHeadAttention(4, 4, 4, 8, 2, dropout=1.0), ValueError, r"dropout: expected a number < 1.0, got 1.0"),
    (lambda: al.MultiHeadAttention(4, 0, 4, 8, 2), ValueError, r"query_size: expected an int >= 1, got 0"),
    (lambda: M(torch.ones(2, 3, 5), x4, x4), ValueError, r"queries: expected last dim query_size=4, got 5"),
    (lambda: M(x4, x4, torch.ones(2, 4, 4)), ValueError, r"values: expected 3 rows to match keys \(dim -2\), got 4"),
    (lambda: M(x4, x4.double(), x4), TypeError, r"keys: expected dtype torch.float32 to match the module's parameters"),
    (lambda: M(x4[0], x4[0], x4[0]), ValueError, r"queries: expected at least 3 dims, got shape \(3, 4\)"),
    (lambda: M(x4, torch.ones(3, 3, 4), torch.ones(3, 3, 4)), ValueError, r"batch dims: expected broadcastable leading dims"),
    (lambda: M(x4, x4, x4, temperature=0), ValueError, r"temperature: expected a number > 0, got 0.0"),
    (lambda: M(x4, x4, x4, mask=torch.ones(3, 4, dtype=torch.bool)), ValueError, r"mask: expected a shape that broadcasts to \(2, 2, 3, 3\), got \(3, 4\)"),
    (lambda: M(x4, x4, x4, torch.tensor([1, 2, 3])), ValueError, r"valid_lens: expected first dim 2 \(the batch\), got \(3,\)"),
    (lambda: M(x4, x4, x4, causal="yes"), TypeError, r"causal: expected True or False, got str 'yes'"),
    (lambda: al.split_heads(torch.ones(2, 3, 10), 3), ValueError, r"X: expected last dim divisible by num_heads=3, got 10"),
    (lambda: al.split_heads(torch.ones(10), 2), ValueError, r"X: expected at least 2 dims, got shape \(10,\)"),
    (lambda: al.split_heads(torch.ones(2, 10), 2.0), TypeError, r"num_heads: expected an int, got float"),
    (lambda: al.merge_heads(torch.ones(2, 10)), ValueError, r"X: expected at least 3 dims, got shape \(2, 10\)"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match), no_matmul():                  # checked before any matmul
        call()


def test_device_mismatch_with_parameters_is_reported():
    with pytest.raises(ValueError, match=r"queries: expected device cpu to match the module's parameters, got meta"):
        M(torch.ones(2, 3, 4, device="meta"), x4, x4)
