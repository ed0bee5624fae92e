"""Notebook 04's data: seed 000's "Thinking Machines" (two words and their projections), a toy sentence with
padding, and a toy translation pair for cross-attention. Every random draw takes a seed."""
import torch

from ...core import checks

__all__ = ["thinking_machines", "thinking_machines_unchecked", "toy_sentence", "translation_pair"]


def _generated(d_model, d_k, dtype, count):
    d_model = checks.count(d_model, "d_model", low=1)
    d_k = checks.count(d_k, "d_k", low=1)
    dtype = checks.float_dtype(dtype, "dtype")
    checks.fits((count, d_model, d_k), torch.finfo(dtype).bits // 8, "d_model, d_k",
                 f"{count} projections (d_model x d_k)")
    return d_model, d_k, dtype


def thinking_machines(d_model=512, d_k=64, *, seed=0, dtype=torch.float64):
    """Seed 000's two-word example: embeddings X (2, d_model) and projections W_Q, W_K, W_V (d_model, d_k).

    Entries of X are N(0, 1) and of each W are N(0, 1/d_model), so q and k have unit-variance
    entries and q·k has variance d_k: the situation the ÷ sqrt(d_k) is for.
    """
    d_model, d_k, dtype = _generated(d_model, d_k, dtype, 3)
    return thinking_machines_unchecked(d_model, d_k, seed=checks.count(seed, "seed"), dtype=dtype)


def thinking_machines_unchecked(d_model=512, d_k=64, *, seed=0, dtype=torch.float64):
    """``thinking_machines`` without its checks (a live panel, on a d_k its slider bounds)."""
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(2, d_model, generator=g, dtype=dtype)
    W = [torch.randn(d_model, d_k, generator=g, dtype=dtype) / d_model ** 0.5 for _ in range(3)]
    return {"words": ("Thinking", "Machines"), "X": X, "W_Q": W[0], "W_K": W[1], "W_V": W[2]}


def toy_sentence(words=("The", "cat", "sat", "on", "the", "mat"), d_model=512, d_k=64, *, seed=0,
                 dtype=torch.float64):
    """Random embeddings X (T, d_model) for ``words`` and projections W_Q, W_K, W_V (d_model, d_k).

    Drawn like ``thinking_machines``. One vector per word ignoring case, so "The" and "the" share
    a row of X (there are no positions here). "<pad>" is a word like any other; mask it.
    """
    checks.items(words, "words", item=checks.Text(), min_len=1)
    d_model, d_k, dtype = _generated(d_model, d_k, dtype, 3 + len(words))
    g = torch.Generator().manual_seed(checks.count(seed, "seed"))
    W = [torch.randn(d_model, d_k, generator=g, dtype=dtype) / d_model ** 0.5 for _ in range(3)]
    vocab = {}
    for w in words:
        if w.lower() not in vocab:
            vocab[w.lower()] = torch.randn(d_model, generator=g, dtype=dtype)
    X = torch.stack([vocab[w.lower()] for w in words])                          # (T, d_model)
    return {"words": tuple(words), "X": X, "W_Q": W[0], "W_K": W[1], "W_V": W[2]}


def translation_pair(d_model=64, d_k=16, *, noise=0.5, seed=0, dtype=torch.float64):
    """A toy encoder/decoder pair for cross-attention: "the black cat sleeps" -> "le chat noir dort".

    Each French word's embedding is its English translation's plus N(0, noise^2) noise, and the
    queries and keys share one projection (W_Q is W_K): a stand-in for the alignment a trained
    translation model learns. Returns {"source", "target", "X_source" (4, d_model),
    "X_target" (4, d_model), "W_Q", "W_K", "W_V" (d_model, d_k)}.
    """
    d_model, d_k, dtype = _generated(d_model, d_k, dtype, 2)
    noise = checks.real(noise, "noise", low=0.0)
    g = torch.Generator().manual_seed(checks.count(seed, "seed"))
    source, target = ("the", "black", "cat", "sleeps"), ("le", "chat", "noir", "dort")
    X_source = torch.randn(4, d_model, generator=g, dtype=dtype)
    X_target = X_source[[0, 2, 1, 3]] + noise * torch.randn(4, d_model, generator=g, dtype=dtype)
    W_QK, W_V = (torch.randn(d_model, d_k, generator=g, dtype=dtype) / d_model ** 0.5 for _ in range(2))
    return {"source": source, "target": target, "X_source": X_source, "X_target": X_target,
            "W_Q": W_QK, "W_K": W_QK, "W_V": W_V}
