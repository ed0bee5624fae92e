"""Multi-head attention (多头注意力): h heads, each attending in its own D/h-sized subspace.

Shape legend: B batch, H heads, Tq queries, Tk keys/values, D = num_hiddens (model width).
"""
import math

import torch
from torch import nn

from . import checks
from .attention import attend_unchecked, combine_masks


def split_heads(X, num_heads):
    """(..., T, D) -> (..., H, T, D/H): seed 000's ``transpose_qkv`` without folding heads into the batch."""
    checks.tensor(X, "X", min_dim=2, floating=False)
    num_heads = checks.count(num_heads, "num_heads", low=1)
    if X.shape[-1] % num_heads:
        raise checks.error("X", f"last dim divisible by num_heads={num_heads}", X.shape[-1])
    return split_unchecked(X, num_heads)


def split_unchecked(X, num_heads):
    """The unchecked core of split_heads."""
    *lead, T, D = X.shape
    X = X.reshape(*lead, T, num_heads, D // num_heads)           # (..., T, H, D/H)
    return X.transpose(-3, -2)                                    # (..., H, T, D/H)


def merge_heads(X):
    """(..., H, T, D/H) -> (..., T, D): the inverse of split_heads (seed 000's ``transpose_output``)."""
    checks.tensor(X, "X", min_dim=3, floating=False)
    return merge_unchecked(X)


def merge_unchecked(X):
    """The unchecked core of merge_heads."""
    *lead, H, T, d = X.shape
    return X.transpose(-3, -2).reshape(*lead, T, H * d)           # (..., T, D)


class MultiHeadAttention(nn.Module):
    """Multi-head attention with the layer names of seed 000 (W_q, W_k, W_v, W_o).

    Args:
        key_size, query_size, value_size: last dims of keys, queries, values.
        num_hiddens: D, the projected width, divisible by num_heads; each head gets D / num_heads.
        num_heads: H.
        dropout: on the attention weights, while training.
        bias: whether the four linear layers have biases (d2l: False; torch's MHA: True).
    forward(queries (B, Tq, query_size), keys (B, Tk, key_size), values (B, Tk, value_size),
            valid_lens=None, *, mask=None, causal=False, temperature=1.0) -> (B, Tq, D).
        mask: bool (Tq, Tk), (B, Tq, Tk) or (B, H, Tq, Tk), True = may attend.
    After each forward, ``.attention_weights`` holds (B, H, Tq, Tk).
    """

    def __init__(self, key_size, query_size, value_size, num_hiddens, num_heads, dropout=0.0, bias=False):
        super().__init__()
        num_hiddens = checks.count(num_hiddens, "num_hiddens", low=1)
        self.num_heads = checks.count(num_heads, "num_heads", low=1)
        if num_hiddens % self.num_heads:
            raise checks.error("num_hiddens", f"a multiple of num_heads={self.num_heads}", num_hiddens)
        checks.flag(bias, "bias")
        self.dropout = checks.real(dropout, "dropout", low=0.0, below=1.0)
        sizes = {n: checks.count(v, n, low=1) for n, v in
                 (("query_size", query_size), ("key_size", key_size), ("value_size", value_size))}
        self.sizes = sizes
        self.W_q = nn.Linear(sizes["query_size"], num_hiddens, bias=bias)
        self.W_k = nn.Linear(sizes["key_size"], num_hiddens, bias=bias)
        self.W_v = nn.Linear(sizes["value_size"], num_hiddens, bias=bias)
        self.W_o = nn.Linear(num_hiddens, num_hiddens, bias=bias)
        self.attention_weights = None

    def forward(self, queries, keys, values, valid_lens=None, *, mask=None, causal=False, temperature=1.0):
        for name, x, size in (("queries", queries, "query_size"), ("keys", keys, "key_size"),
                              ("values", values, "value_size")):
            checks.tensor(x, name, min_dim=3)
            if x.shape[-1] != self.sizes[size]:
                raise checks.error(name, f"last dim {size}={self.sizes[size]}", x.shape[-1])
            checks.module_kind(self, x, name)
        if values.shape[-2] != keys.shape[-2]:
            raise checks.error("values", f"{keys.shape[-2]} rows to match keys (dim -2)", values.shape[-2])
        batch = checks.batch_shape(("queries", queries), ("keys", keys), ("values", values))
        temperature = checks.real(temperature, "temperature", positive=True)
        if isinstance(mask, torch.Tensor) and mask.dim() == 3:
            mask = mask.unsqueeze(1)                                    # (B, 1, Tq, Tk): same for every head
        shape = batch + (self.num_heads, queries.shape[-2], keys.shape[-2])   # (B, H, Tq, Tk)
        mask = combine_masks(shape, queries.device, mask, valid_lens, causal)  # checked before any matmul
        q = split_unchecked(self.W_q(queries), self.num_heads)         # (B, H, Tq, D/H)
        k = split_unchecked(self.W_k(keys), self.num_heads)            # (B, H, Tk, D/H)
        v = split_unchecked(self.W_v(values), self.num_heads)          # (B, H, Tk, D/H)
        factor = 1.0 / math.sqrt(q.shape[-1]) / temperature            # checked once, above: no second pass
        out, self.attention_weights = attend_unchecked(
            q, k, v, mask, factor,
            dropout=self.dropout if self.training else 0.0)            # (B, H, Tq, D/H), (B, H, Tq, Tk)
        return self.W_o(merge_unchecked(out))                          # (B, Tq, D)
