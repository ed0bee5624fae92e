"""Boolean masks (True = may attend) and the masked softmax built on them.

A row whose keys are all masked gets all-zero weights, never NaN: the choice torch's
``scaled_dot_product_attention`` makes since 2.5. (d2l's ``masked_softmax`` fills with -1e6 and
gives uniform weights there; a plain softmax over all -inf gives NaN.)
"""
import torch

from . import _checks


def causal_mask(num_queries, num_keys, *, device=None):
    """Bool (Tq, Tk): query i may attend to keys 0..i (top-left aligned, like torch's is_causal)."""
    num_queries = _checks.count(num_queries, "num_queries")
    num_keys = _checks.count(num_keys, "num_keys")
    return torch.ones(num_queries, num_keys, dtype=torch.bool, device=device).tril()


def local_mask(num_queries, num_keys, window, *, device=None):
    """Bool (Tq, Tk): query i may attend to key j when |i - j| <= window (sliding-window attention)."""
    num_queries = _checks.count(num_queries, "num_queries")
    num_keys = _checks.count(num_keys, "num_keys")
    window = _checks.count(window, "window")
    i = torch.arange(num_queries, device=device)[:, None]
    j = torch.arange(num_keys, device=device)[None, :]
    return (i - j).abs() <= window


def sequence_mask(valid_lens, num_keys):
    """Padding mask from valid lengths: key j is valid for row b when j < valid_lens[b].

    Args:
        valid_lens: int tensor (B,) (one length per sequence) or (B, Tq) (one per query).
        num_keys: Tk.
    Returns:
        bool (B, 1, Tk) for valid_lens (B,), bool (B, Tq, Tk) for (B, Tq).
    Raises:
        TypeError/ValueError for a non-integer tensor, other ranks, or negative lengths.
    """
    num_keys = _checks.count(num_keys, "num_keys")
    if not isinstance(valid_lens, torch.Tensor):
        raise TypeError(f"valid_lens: expected an integer torch.Tensor, got {type(valid_lens).__name__}")
    if valid_lens.is_floating_point() or valid_lens.is_complex() or valid_lens.dtype == torch.bool:
        raise TypeError(f"valid_lens: expected an integer dtype, got {valid_lens.dtype}")
    if valid_lens.dim() not in (1, 2):
        raise ValueError(f"valid_lens: expected shape (B,) or (B, Tq), got {tuple(valid_lens.shape)}")
    if valid_lens.numel() and int(valid_lens.min()) < 0:
        raise ValueError(f"valid_lens: expected lengths >= 0, got {int(valid_lens.min())}")
    lens = valid_lens if valid_lens.dim() == 2 else valid_lens[:, None]        # (B, 1|Tq)
    positions = torch.arange(num_keys, device=valid_lens.device)               # (Tk,)
    return positions < lens[..., None]                                         # (B, 1|Tq, Tk)


def masked_softmax(scores, mask=None, *, temperature=1.0):
    """softmax(scores / temperature) over the last dim, with masked keys getting weight 0.

    Args:
        scores: float (..., Tq, Tk).
        mask: bool, broadcastable to scores; True = may attend.
        temperature: finite, > 0. Small values sharpen towards argmax, large ones flatten.
    Returns:
        weights, the shape of scores: >= 0, each row sums to 1, or to 0 when all its keys are masked.
    """
    _checks.tensor(scores, "scores", min_dim=1)
    temperature = _checks.real(temperature, "temperature", positive=True)
    if mask is not None:
        _checks.bool_mask(mask, "mask", scores.shape)
    return softmax_unchecked(scores if temperature == 1.0 else scores / temperature, mask)


def softmax_unchecked(logits, mask):
    """The unchecked core of masked_softmax; never writes into ``logits``."""
    if mask is None:
        return torch.softmax(logits, dim=-1)
    if mask.device != logits.device:
        mask = mask.to(logits.device)
    logits = logits.masked_fill(~mask, float("-inf"))
    any_key = mask.any(dim=-1, keepdim=True)                       # (..., Tq, 1)
    logits = logits.masked_fill(~any_key, 0.0)                     # empty rows: finite, uniform
    return torch.softmax(logits, dim=-1) * any_key                 # ... then zeroed
