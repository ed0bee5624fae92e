"""No public function writes into its arguments (values and autograd version counters are
compared after each call, with requires_grad inputs too), and gradients flow back finite."""
import pytest
import torch

import attnlab as al
from _refs import Untouched, randn


def _inputs(requires_grad):
    q = randn(2, 3, 4, requires_grad=requires_grad)
    k = randn(2, 5, 4, seed=1, requires_grad=requires_grad)
    v = randn(2, 5, 6, seed=2, requires_grad=requires_grad)
    mask = torch.rand(3, 5, generator=torch.Generator().manual_seed(3)) > 0.5
    mask[0] = False                                                            # one empty row
    return q, k, v, mask, torch.tensor([5, 2])


torch.manual_seed(0)
MHA = al.MultiHeadAttention(4, 4, 6, 8, 2, bias=True).double()
ADD = al.AdditiveAttention(4, 4, 7).double()
SCORES = al.AdditiveScores(4, 4, 3).double()
PE = al.PositionalEncoding(4).double()

CALLS = {
    "masked_softmax": lambda q, k, v, m, L: al.masked_softmax(q @ k.transpose(1, 2), m, temperature=0.5),
    "dot_scores": lambda q, k, v, m, L: al.dot_scores(q, k),
    "scaled_dot_scores": lambda q, k, v, m, L: al.scaled_dot_scores(q, k),
    "cosine_scores": lambda q, k, v, m, L: al.cosine_scores(q, k),
    "gaussian_scores": lambda q, k, v, m, L: al.gaussian_scores(q, k, sigma=2.0),
    "gaussian_scores_1d": lambda q, k, v, m, L: al.gaussian_scores(q[0, :, 0], k[0, :, 0]),
    "AdditiveScores": lambda q, k, v, m, L: SCORES(q, k),
    "sdpa": lambda q, k, v, m, L: al.scaled_dot_product_attention(q, k, v, m, valid_lens=L, causal=True)[0],
    "sdpa_fused": lambda q, k, v, m, L: al.scaled_dot_product_attention(q, k, v, m, valid_lens=L, need_weights=False)[0],
    "sdpa_dropout": lambda q, k, v, m, L: al.scaled_dot_product_attention(
        q, k, v, m, dropout=0.2, generator=torch.Generator().manual_seed(0))[0],
    "nadaraya_watson": lambda q, k, v, m, L: al.nadaraya_watson(q[0, :, 0], k[0, :, 0], v[0])[0],
    "DotProductAttention": lambda q, k, v, m, L: al.DotProductAttention()(q, k, v, L),
    "AdditiveAttention": lambda q, k, v, m, L: ADD(q, k, v, L),
    "MultiHeadAttention": lambda q, k, v, m, L: MHA(q, k, v, L, mask=m, causal=True, temperature=2.0),
    "split_merge": lambda q, k, v, m, L: al.merge_heads(al.split_heads(q, 2)),
    "PositionalEncoding": lambda q, k, v, m, L: PE(q),
    "tiled_attention": lambda q, k, v, m, L: al.tiled_attention(q, k, v, m, causal=True, block_size=2),
    "linear_attention": lambda q, k, v, m, L: al.linear_attention(q, k, v),
}


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("requires_grad", [False, True])
def test_inputs_untouched_and_gradients_finite(name, requires_grad):
    args = _inputs(requires_grad)
    guard = Untouched(*args)
    out = CALLS[name](*args)
    guard.check()
    assert not torch.isnan(out).any()
    if requires_grad:
        out.sum().backward()
        guard.check()
        grads = [t.grad for t in args[:3] if t.grad is not None]
        assert grads and all(torch.isfinite(g).all() for g in grads)
