"""Boolean masks (True = may attend) and the masked softmax built on them.

A row whose keys are all masked gets all-zero weights, never NaN: the choice torch's
``scaled_dot_product_attention`` makes since 2.5. (d2l's ``masked_softmax`` fills with -1e6 and
gives uniform weights there; a plain softmax over all -inf gives NaN.)
"""
import torch

from . import checks


def causal_mask(num_queries, num_keys, *, device=None):
    """Bool (Tq, Tk): query i may attend to keys 0..i (top-left aligned, like torch's is_causal).

    A mask larger than 1 GiB (Tq * Tk entries) is refused before it is allocated.
    """
    num_queries = checks.count(num_queries, "num_queries")
    num_keys = checks.count(num_keys, "num_keys")
    device = checks.device(device, "device")
    checks.fits((num_queries, num_keys), 1, "num_queries, num_keys", "a bool mask")
    return causal_unchecked(num_queries, num_keys, device)


def causal_unchecked(num_queries, num_keys, device=None):
    """The unchecked core of causal_mask, for sizes the caller has checked (or read off tensors)."""
    return torch.ones(num_queries, num_keys, dtype=torch.bool, device=device).tril()


def local_mask(num_queries, num_keys, window, *, device=None):
    """Bool (Tq, Tk): query i may attend to key j when |i - j| <= window (sliding-window attention).

    A mask larger than 1 GiB (Tq * Tk entries) is refused before it is allocated.
    """
    num_queries = checks.count(num_queries, "num_queries")
    num_keys = checks.count(num_keys, "num_keys")
    window = checks.count(window, "window")
    device = checks.device(device, "device")
    checks.fits((num_queries, num_keys), 1, "num_queries, num_keys", "a bool mask")
    window = min(window, max(num_queries, num_keys))                          # a wider band changes nothing
    band = torch.ones(num_queries, num_keys, dtype=torch.bool, device=device)
    return band.triu(-window).tril(window)                                    # i - window <= j <= i + window


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
    num_keys = checks.count(num_keys, "num_keys")
    checks.tensor(valid_lens, "valid_lens", integer=True)
    if valid_lens.dim() not in (1, 2):
        raise checks.error("valid_lens", "shape (B,) or (B, Tq)", tuple(valid_lens.shape))
    if valid_lens.numel() and int(valid_lens.min()) < 0:
        raise checks.error("valid_lens", "lengths >= 0", int(valid_lens.min()))
    checks.fits(tuple(valid_lens.shape) + (num_keys,), 1, "num_keys", "a bool mask (valid_lens.shape + (num_keys,))")
    return sequence_mask_unchecked(valid_lens, num_keys)


def sequence_mask_unchecked(valid_lens, num_keys):
    """The unchecked core of sequence_mask, for lengths the caller has checked (or made)."""
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
        weights, the shape and dtype of scores: >= 0, each row sums to 1, or to 0 when all its keys
        are masked. Never NaN for finite scores, whatever the temperature: each row's largest visible
        score is subtracted before dividing, and float16/bfloat16 are computed in float32.
    """
    checks.tensor(scores, "scores", min_dim=1)
    temperature = checks.real(temperature, "temperature", positive=True)
    if mask is not None:
        checks.bool_mask(mask, "mask", scores.shape)
    weights = stable_softmax(scores.to(compute_dtype(scores.dtype)), 1.0 / temperature, mask)
    return weights.to(scores.dtype)


def compute_dtype(dtype):
    """The dtype to compute softmaxes and sums in: float32 for float16/bfloat16, else ``dtype``."""
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def scaled_logits(raw, factor, mask=None):
    """``factor * raw`` with each row shifted so its largest visible entry is 0; masked entries -inf.

    ``factor`` is a Python float that may be negative, 0, or beyond the dtype's range (1 / 1e-39 in
    float32): the shift comes first and the extremes are taken as limits (one-hot, uniform), so a
    finite ``raw`` never gives NaN. Never writes into ``raw``.
    """
    if factor < 0:
        raw, factor = -raw, -factor
    if mask is not None:
        raw = raw.masked_fill(~mask.to(raw.device), float("-inf"))
    if raw.shape[-1] == 0:
        return raw
    top = raw.amax(dim=-1, keepdim=True).detach()                    # (..., Tq, 1); softmax ignores it
    x = raw - top.masked_fill(~torch.isfinite(top), 0.0)             # <= 0, the row's top is 0
    info = torch.finfo(x.dtype)
    if factor > info.max:                                            # T -> 0: the top entries only
        return torch.zeros_like(x).masked_fill(x < 0, float("-inf"))
    if factor < info.tiny:                                           # T -> inf: every visible key alike
        return torch.zeros_like(x).masked_fill(torch.isneginf(x), float("-inf"))
    return x if factor == 1.0 else x * factor


def stable_softmax(raw, factor=1.0, mask=None):
    """softmax(factor * raw) over the last dim, in raw's dtype, never NaN for finite ``raw``:
    masked keys get 0 and a row with no visible key gets all zeros. A factor in [tiny, 1] cannot
    overflow and takes torch's softmax directly; any other factor shifts each row first."""
    if torch.finfo(raw.dtype).tiny <= factor <= 1.0:
        return softmax_unchecked(raw if factor == 1.0 else raw * factor, mask)
    return softmax_unchecked(scaled_logits(raw, factor, mask), mask)


def softmax_unchecked(logits, mask):
    """The unchecked core of masked_softmax; never writes into ``logits``. A row whose keys are all
    masked gets zeros, not NaN."""
    if mask is None:
        return torch.softmax(logits, dim=-1)
    if mask.device != logits.device:
        mask = mask.to(logits.device)
    logits = logits.masked_fill(~mask, float("-inf"))
    any_key = mask.any(dim=-1, keepdim=True)                       # (..., Tq, 1)
    logits = logits.masked_fill(~any_key, 0.0)                     # empty rows: finite, uniform
    return torch.softmax(logits, dim=-1) * any_key                 # ... then zeroed
