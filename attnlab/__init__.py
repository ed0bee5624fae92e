"""attnlab: attention mechanisms to read, run and play with.

Kernels are plain torch and batch-first; masks are bool with True = may attend. The contract is
docs/api.md, the layers docs/architecture.md; the folders are the layers:

core/     the maths (the contract below): no matplotlib, no widgets
ui/       plotting, panels, selfcheck, trainer, fonts: what a learner sees
i18n      the learner's language, and locale/ its catalog
lessons/  one package per notebook

``attnlab.<name>`` is each name of the contract (``__all__``), imported from its module of core/ on first
use: ``import attnlab`` (and so the ``attnlab`` command, attnlab/cli.py) imports no torch until a name needs it.
The modules themselves are imported by their paths: ``attnlab.core.masking``, ``attnlab.ui.plotting`` ...
"""
import importlib
import os

from .i18n import get_language, language, set_language

__version__ = "0.1.0"

# The contract's names (docs/api.md) and the module of core/ each comes from
_CONTRACT = {
    "attention": ("AdditiveAttention", "DotProductAttention", "nadaraya_watson", "scaled_dot_product_attention"),
    "efficient": ("linear_attention", "tiled_attention"),
    "masking": ("causal_mask", "local_mask", "masked_softmax", "sequence_mask"),
    "multihead": ("MultiHeadAttention", "merge_heads", "split_heads"),
    "positional": ("PositionalEncoding", "sinusoidal_encoding"),
    "scoring": ("AdditiveScores", "cosine_scores", "dot_scores", "gaussian_scores", "scaled_dot_scores"),
}
_HOME = {name: f"{__name__}.core.{module}" for module, names in _CONTRACT.items() for name in names}

__all__ = [
    "AdditiveAttention", "AdditiveScores", "DotProductAttention", "MultiHeadAttention",
    "PositionalEncoding", "causal_mask", "cosine_scores", "default_device", "dot_scores",
    "gaussian_scores", "linear_attention", "local_mask", "masked_softmax", "merge_heads",
    "nadaraya_watson", "scaled_dot_product_attention", "scaled_dot_scores", "sequence_mask",
    "sinusoidal_encoding", "split_heads", "tiled_attention",
    "get_language", "language", "set_language",
]


def __getattr__(name):
    """``attnlab.causal_mask`` ...: the contract's name, imported from its core module on first use (then kept)."""
    if name in _HOME:
        value = getattr(importlib.import_module(_HOME[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


def default_device():
    """cuda > mps > cpu; the environment variable ATTNLAB_DEVICE (e.g. "cpu") overrides.

    An ATTNLAB_DEVICE that torch does not know, that is not available here, or that holds no values
    ('meta') is a ValueError naming ATTNLAB_DEVICE.
    """
    import torch

    from .core import checks
    name = os.environ.get("ATTNLAB_DEVICE")
    if name:
        return checks.device(name, "ATTNLAB_DEVICE", allow_meta=False)     # refuses unknown, unavailable and 'meta'
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
