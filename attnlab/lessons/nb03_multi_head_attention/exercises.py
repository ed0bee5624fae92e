"""Notebook 03's two code exercises (split the heads; multi-head attention with W_O), checked with
``selfcheck.check_function`` against attnlab; the common mistakes it recognises are written out as
functions (``SPLIT_MISTAKES``, ``MULTIHEAD_MISTAKES``)."""
import math

import torch

from ...core import checks
from ...core.attention import scaled_dot_product_attention
from ...core.multihead import merge_heads, split_heads
from ...i18n import N_, gettext as _
from ...ui.selfcheck import check_function, mistake

__all__ = [
    "multihead", "split_cases", "SPLIT_MISTAKES", "check_split_heads", "multihead_cases", "MULTIHEAD_MISTAKES",
    "check_multihead", "head_size_mistakes"
]


@checks.arguments(X=checks.Tensor(3), W_q=checks.Tensor(2), W_k=checks.Tensor(2), W_v=checks.Tensor(2),
                   W_o=checks.Tensor(2), num_heads=checks.Int(1))
def multihead(X, W_q, W_k, W_v, W_o, num_heads):
    """Multi-head self-attention written out: X (B, n, D_in), W_q/W_k/W_v (D_in, D), W_o (D, D).

    q, k, v = split_heads(X W) (B, H, n, D/H); each head softmax(q kᵀ/√(D/H)) v; merge_heads; times W_o.
    Returns (B, n, D). (The same numbers as ``attnlab.MultiHeadAttention`` with these weights.)
    """
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v), ("W_o", W_o)):
        checks.same_kind(X, "X", W, name)
    D_in, D = X.shape[-1], W_q.shape[-1]
    for name, W, want in (("W_q", W_q, (D_in, D)), ("W_k", W_k, (D_in, D)), ("W_v", W_v, (D_in, D)), ("W_o", W_o, (D, D))):
        if tuple(W.shape) != want:
            raise checks.error(name, f"shape {want} (X has {D_in} features, W_q {D} columns)", tuple(W.shape))
    q, k, v = (split_heads(X @ W, num_heads) for W in (W_q, W_k, W_v))   # (B, H, n, D/H) each
    heads, _ = scaled_dot_product_attention(q, k, v)                      # (B, H, n, D/H)
    return merge_heads(heads) @ W_o                                       # (B, n, D)


def split_cases():
    g = torch.Generator().manual_seed(3)
    return [(torch.arange(2 * 4 * 6, dtype=torch.float64).reshape(2, 4, 6), 3),
            (torch.randn(1, 5, 8, generator=g, dtype=torch.float64), 2),
            (torch.randn(3, 2, 4, generator=g, dtype=torch.float64), 4),
            (torch.randn(2, 3, 4, generator=g, dtype=torch.float64), 1)]


def _reshaped_straight(X, H):
    B, n, D = X.shape
    return X.reshape(B, H, n, D // H)


def _no_transpose(X, H):
    B, n, D = X.shape
    return X.reshape(B, n, H, D // H)


def _heads_in_batch(X, H):
    B, n, D = X.shape
    return split_heads(X, H).reshape(B * H, n, D // H)


SPLIT_MISTAKES = [
    mistake(_reshaped_straight,
            N_("you reshaped straight to (B, H, n, D/H). The shape is right but each 'head' now holds whole "
               "tokens: reshape to (B, n, H, D/H) first, then swap the n and H axes (transpose(1, 2)).")),
    mistake(_no_transpose,
            N_("you stopped at (B, n, H, D/H): the head axis must come before the tokens, transpose(1, 2).")),
    mistake(_heads_in_batch,
            N_("you folded the heads into the batch as seed 000's transpose_qkv does, (B·H, n, D/H). "
               "Keep a separate head axis: (B, H, n, D/H).")),
]



def check_split_heads(fn):
    """Exercise 1: fn(X (B, n, D), num_heads) -> (B, H, n, D/H), the same as ``al.split_heads``."""
    return check_function(fn, split_heads, split_cases(), name="my_split_heads",
                          hints=SPLIT_MISTAKES)


def multihead_cases():
    g = torch.Generator().manual_seed(4)
    cases = []
    for B, n, D_in, D, H in ((2, 4, 6, 6, 3), (1, 5, 3, 8, 2), (2, 3, 4, 4, 1)):
        X = torch.randn(B, n, D_in, generator=g, dtype=torch.float64)
        Ws = [torch.randn(D_in, D, generator=g, dtype=torch.float64) / math.sqrt(D_in) for _ in range(3)]
        cases.append((X, *Ws, torch.randn(D, D, generator=g, dtype=torch.float64) / math.sqrt(D), H))
    return cases


def _heads(X, W_q, W_k, W_v, H, scale=None):
    q, k, v = (split_heads(X @ W, H) for W in (W_q, W_k, W_v))           # (B, H, n, D/H) each
    return scaled_dot_product_attention(q, k, v, scale=scale)[0]          # (B, H, n, D/H)


def _no_w_o(X, W_q, W_k, W_v, W_o, H):
    return merge_heads(_heads(X, W_q, W_k, W_v, H))


def _scaled_by_full_width(X, W_q, W_k, W_v, W_o, H):
    return merge_heads(_heads(X, W_q, W_k, W_v, H, scale=1 / math.sqrt(W_q.shape[1]))) @ W_o


def _merged_without_transpose(X, W_q, W_k, W_v, W_o, H):
    heads = _heads(X, W_q, W_k, W_v, H)
    B, _, n, d = heads.shape
    return heads.reshape(B, n, H * d) @ W_o


MULTIHEAD_MISTAKES = [
    mistake(_no_w_o, N_("no W_o: the heads' outputs are side by side but never mixed (seed 004's code). "
                        "Multiply the merged heads by W_o.")),
    mistake(_scaled_by_full_width,
            N_("you scaled by √D, the whole width. Each head's scores are divided by √(D/H), its own d_k.")),
    mistake(_merged_without_transpose,
            N_("seed 004's merge: reshape (B, H, n, d) to (B, n, D) without transposing back, so the numbers "
               "land on the wrong tokens. Use merge_heads, or transpose(1, 2) before the reshape.")),
]


def check_multihead(fn):
    """Exercise 2: fn(X, W_q, W_k, W_v, W_o, num_heads) -> (B, n, D), multi-head self-attention
    with the output projection W_o (what seed 004's code leaves out)."""
    return check_function(fn, multihead, multihead_cases(), name="my_multihead",
                          hints=MULTIHEAD_MISTAKES)


def head_size_mistakes(d_model=512, num_heads=8):
    """The wrong answers a learner gives for d_k = d_model / h, each computed from its mistake and
    paired with why it is wrong: ``selfcheck.numeric(mistakes=...)``."""
    d_model = checks.count(d_model, "d_model", low=1)
    num_heads = checks.count(num_heads, "num_heads", low=2)
    return [
        (d_model, _("that is d_model, the width of all {h} heads together. Each head gets an equal "
                    "share.").format(h=num_heads)),
        (d_model * num_heads, _("that is {h} heads of the full width {d_model}. The heads share the {d_model} "
                                "columns between them; they do not each get all of them.").format(h=num_heads,
                                                                                            d_model=d_model)),
        (num_heads, _("that is h, the number of heads, not the size of each head.")),
    ]
