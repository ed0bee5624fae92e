"""Masks beyond al.causal_mask, and what a fully masked row gives (notebook 07).

Masks are bool with True = may attend, shape (Tq, Tk), like ``al.causal_mask``. Two alignments of
a causal mask when Tq != Tk:

* top-left (``al.causal_mask``, torch's ``is_causal``): query i sees keys 0..i;
* bottom-right (``causal_mask_bottom_right``): query i sees keys 0..i + (Tk - Tq), so the last
  query sees every key. That is what decoding with a KV cache needs: the Tq new queries are the
  last Tq positions of a sequence of length Tk.
"""
import torch

from ... import _checks
from ...masking import causal_mask, local_mask, masked_softmax, sequence_mask

MASK_KINDS = ("causal top-left", "causal bottom-right", "padding", "local", "block")


def causal_mask_bottom_right(num_queries, num_keys, *, device=None):
    """Bool (Tq, Tk): query i may attend to key j when j <= i + (Tk - Tq) (bottom-right aligned).

    Equal to ``al.causal_mask`` when Tq == Tk. When Tq > Tk the first Tq - Tk queries see no key.
    Same as torch's ``torch.nn.attention.bias.causal_lower_right``.
    """
    num_queries = _checks.count(num_queries, "num_queries")
    num_keys = _checks.count(num_keys, "num_keys")
    i = torch.arange(num_queries, device=device)[:, None]                     # (Tq, 1)
    j = torch.arange(num_keys, device=device)[None, :]                        # (1, Tk)
    return j <= i + (num_keys - num_queries)                                  # (Tq, Tk)


def block_mask(num_queries, num_keys, block_size, *, device=None):
    """Bool (Tq, Tk): query i may attend to key j when both sit in the same block, i // b == j // b.

    Block (block-diagonal) sparse attention: each query sees the b keys of its own block only.
    """
    num_queries = _checks.count(num_queries, "num_queries")
    num_keys = _checks.count(num_keys, "num_keys")
    b = _checks.count(block_size, "block_size", low=1)
    i = torch.arange(num_queries, device=device)[:, None] // b
    j = torch.arange(num_keys, device=device)[None, :] // b
    return i == j


def make_mask(kind, num_queries, num_keys, *, window=2, valid_len=None, block_size=4):
    """One of MASK_KINDS as a bool (Tq, Tk) mask, for galleries and panels.

    window: for "local" (|i - j| <= window); valid_len: for "padding" (keys >= valid_len are pads,
    default Tk - 2); block_size: for "block".
    """
    if kind == "causal top-left":
        return causal_mask(num_queries, num_keys)
    if kind == "causal bottom-right":
        return causal_mask_bottom_right(num_queries, num_keys)
    if kind == "padding":
        n = max(num_keys - 2, 0) if valid_len is None else valid_len
        return sequence_mask(torch.tensor([n]), num_keys)[0].expand(num_queries, num_keys)
    if kind == "local":
        return local_mask(num_queries, num_keys, window)
    if kind == "block":
        return block_mask(num_queries, num_keys, block_size)
    raise ValueError(f"kind: expected one of {MASK_KINDS}, got {kind!r}")


def masked_row_conventions(scores, mask):
    """Weights of softmax(scores) under a mask in the three conventions used in practice.

    Args:
        scores: float (..., Tk); mask: bool broadcastable to scores, True = may attend.
    Returns:
        dict with
        "uniform": masked scores filled with -1e6, then softmax (d2l): an all-masked row is uniform;
        "nan": masked scores filled with -inf, then softmax: an all-masked row is NaN;
        "zero": attnlab and torch >= 2.5 SDPA: an all-masked row is all zeros.
    """
    _checks.tensor(scores, "scores", min_dim=1)
    _checks.bool_mask(mask, "mask", scores.shape)
    return {
        "uniform": torch.softmax(scores.masked_fill(~mask, -1e6), dim=-1),
        "nan": torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1),
        # not torch.where(any_key, nan, 0): its backward multiplies 0 by NaN and gives NaN
        "zero": masked_softmax(scores, mask),
    }


def thumbnail(ax):
    """The index's small picture of this notebook, drawn into ``ax``."""
    both = torch.cat([causal_mask(6, 6), torch.zeros(6, 1, dtype=torch.bool), local_mask(6, 6, 1)], dim=1)
    ax.imshow(both.numpy(), cmap="gray_r", vmin=0, vmax=1.25, aspect="auto")
    ax.set_xticks([2.5, 9.5], ["causal", "local, w = 1"], fontsize=7)
    ax.set_yticks([])
