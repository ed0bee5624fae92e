"""Shared test helpers: devices, an "inputs untouched" guard and references written here from the
formulas (never by calling attnlab)."""
import math

import numpy as np
import pytest
import torch

CUDA = pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA"))
DEVICES = ["cpu", CUDA]
DTYPES = [torch.float32, torch.float64]
TOL = {torch.float32: dict(atol=1e-5, rtol=1e-5), torch.float64: dict(atol=1e-12, rtol=1e-12)}


class Untouched:
    """Snapshot tensors (values and autograd version counters); .check() asserts none was modified."""

    def __init__(self, *tensors):
        self.items = [(t, t.detach().clone(), t._version) for t in tensors if isinstance(t, torch.Tensor)]

    def check(self):
        for t, copy, version in self.items:
            assert t._version == version, "an input was written in place"
            assert torch.equal(t.detach(), copy), "an input's values changed"


def call_untouched(fn, *args, **kwargs):
    """Call fn and assert that no tensor among args/kwargs was modified."""
    guard = Untouched(*args, *kwargs.values())
    out = fn(*args, **kwargs)
    guard.check()
    return out


def randn(*shape, dtype=torch.float64, device="cpu", seed=0, requires_grad=False):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g, dtype=dtype).to(device)
    return x.requires_grad_(requires_grad)


def torch_sdpa(q, k, v, mask=None, *, scale=None, temperature=1.0):
    """torch's own attention, with our conventions: bool mask True = may attend."""
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale / temperature)


def np_softmax_rows(scores, mask=None):
    """Row softmax in numpy float64 with a bool mask (True = may attend); empty rows -> zeros."""
    s = np.asarray(scores, dtype=np.float64)
    out = np.zeros_like(s)
    m = np.ones_like(s, dtype=bool) if mask is None else np.broadcast_to(mask, s.shape)
    for idx in np.ndindex(*s.shape[:-1]):
        row, keep = s[idx], m[idx]
        if keep.any():
            e = np.where(keep, np.exp(row - row[keep].max()), 0.0)
            out[idx] = e / e.sum()
    return out


def lens_mask_loop(valid_lens, Tq, Tk):
    """(B, Tq, Tk) padding mask from valid_lens (B,) or (B, Tq), by loops."""
    vl = valid_lens.tolist()
    B = len(vl)
    m = torch.zeros(B, Tq, Tk, dtype=torch.bool)
    for b in range(B):
        for i in range(Tq):
            n = vl[b] if not isinstance(vl[b], list) else vl[b][i]
            for j in range(Tk):
                m[b, i, j] = j < n
    return m


class no_matmul(torch.overrides.TorchFunctionMode):
    """Inside this context any matrix product fails the test: argument checks must come first."""

    BANNED = {torch.matmul, torch.Tensor.__matmul__, torch.Tensor.__rmatmul__, torch.Tensor.matmul,
              torch.bmm, torch.mm, torch.einsum, torch.nn.functional.linear,
              torch.nn.functional.scaled_dot_product_attention}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func in self.BANNED:
            raise AssertionError(f"{getattr(func, '__name__', func)} ran before the argument checks")
        return func(*args, **(kwargs or {}))
