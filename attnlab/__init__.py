"""attnlab: attention mechanisms to read, run and play with.

Kernels are plain torch and batch-first; masks are bool with True = may attend. The contract is
docs/api.md, the layers docs/architecture.md. Plot helpers live in ``attnlab.plotting``, widget
panels in ``attnlab.panels``, toy data in ``attnlab.data``, each notebook's own code in
``attnlab.lessons`` (all imported on demand, so ``import attnlab`` needs no matplotlib).
"""
import os

import torch

from .attention import (AdditiveAttention, DotProductAttention, nadaraya_watson,
                        scaled_dot_product_attention)
from .efficient import linear_attention, tiled_attention
from .masking import causal_mask, local_mask, masked_softmax, sequence_mask
from .multihead import MultiHeadAttention, merge_heads, split_heads
from .positional import PositionalEncoding, sinusoidal_encoding
from .scoring import AdditiveScores, cosine_scores, dot_scores, gaussian_scores, scaled_dot_scores

__version__ = "0.1.0"

__all__ = [
    "AdditiveAttention", "AdditiveScores", "DotProductAttention", "MultiHeadAttention",
    "PositionalEncoding", "causal_mask", "cosine_scores", "default_device", "dot_scores",
    "gaussian_scores", "linear_attention", "local_mask", "masked_softmax", "merge_heads",
    "nadaraya_watson", "scaled_dot_product_attention", "scaled_dot_scores", "sequence_mask",
    "sinusoidal_encoding", "split_heads", "tiled_attention",
]


def default_device():
    """cuda > mps > cpu; the environment variable ATTNLAB_DEVICE (e.g. "cpu") overrides."""
    name = os.environ.get("ATTNLAB_DEVICE")
    if name:
        try:
            device = torch.device(name)
        except RuntimeError:
            raise ValueError(f"ATTNLAB_DEVICE: expected a torch device such as 'cpu' or 'cuda:0', "
                             f"got {name!r}") from None
        if device.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"ATTNLAB_DEVICE: expected an available device, got {name!r} (no CUDA here)")
        mps = getattr(torch.backends, "mps", None)
        if device.type == "mps" and not (mps is not None and mps.is_available()):
            raise ValueError(f"ATTNLAB_DEVICE: expected an available device, got {name!r} (no MPS here)")
        return device
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
