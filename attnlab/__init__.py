"""attnlab: attention mechanisms to read, run and play with.

Kernels are plain torch and batch-first; masks are bool with True = may attend. The contract is
docs/api.md, the layers docs/architecture.md. Plot helpers live in ``attnlab.plotting``, widget
panels in ``attnlab.panels``, toy data in ``attnlab.data``, each notebook's own code in
``attnlab.lessons`` (all imported on demand, so ``import attnlab`` needs no matplotlib).
"""
import os

import torch

from . import _checks
from .attention import (AdditiveAttention, DotProductAttention, nadaraya_watson,
                        scaled_dot_product_attention)
from .efficient import linear_attention, tiled_attention
from .i18n import get_language, language, set_language
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
    "get_language", "language", "set_language",
]


def default_device():
    """cuda > mps > cpu; the environment variable ATTNLAB_DEVICE (e.g. "cpu") overrides.

    An ATTNLAB_DEVICE that torch does not know, that is not available here, or that holds no values
    ('meta') is a ValueError naming ATTNLAB_DEVICE.
    """
    name = os.environ.get("ATTNLAB_DEVICE")
    if name:
        return _checks.device(name, "ATTNLAB_DEVICE", allow_meta=False)     # refuses unknown, unavailable and 'meta'
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
