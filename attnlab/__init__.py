"""attnlab: attention mechanisms to read, run and play with.

Kernels are plain torch and batch-first; masks are bool with True = may attend. The contract is
docs/api.md, the layers docs/architecture.md; the folders are the layers:

core/     the maths (the contract below): no matplotlib, no widgets
ui/       plotting, panels, selfcheck, trainer, fonts: what a learner sees
i18n      the learner's language, and locale/ its catalog
lessons/  one package per notebook

``attnlab.plotting``, ``attnlab.panels``, ``attnlab.data`` ... keep working: each name of ``_MOVED``
is the module of core/ or ui/ it names (the same module object, imported on demand, so
``import attnlab`` needs no matplotlib).
"""
import importlib
import importlib.abc
import importlib.util
import os
import sys

import torch

from .core import checks
from .core.attention import AdditiveAttention, DotProductAttention, nadaraya_watson, scaled_dot_product_attention
from .core.efficient import linear_attention, tiled_attention
from .core.masking import causal_mask, local_mask, masked_softmax, sequence_mask
from .core.multihead import MultiHeadAttention, merge_heads, split_heads
from .core.positional import PositionalEncoding, sinusoidal_encoding
from .core.scoring import AdditiveScores, cosine_scores, dot_scores, gaussian_scores, scaled_dot_scores
from .i18n import get_language, language, set_language

__version__ = "0.1.0"

# attnlab.<name> -> where it lives now (the layers became folders; outside checks and notebooks
# import these names)
_MOVED = {f"{__name__}.{name}": f"{__name__}.{layer}.{name}" for layer, names in (
    ("core", ("checks", "masking", "scoring", "attention", "multihead", "positional", "efficient",
              "transformer", "data")),
    ("ui", ("plotting", "panels", "selfcheck", "trainer", "fonts"))) for name in names}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import attnlab.plotting`` gives the module ``attnlab.ui.plotting`` itself (one module object,
    not a copy), through the import system's public finder and loader protocol."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in _MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module(_MOVED[spec.name])
        _OWN_SPECS[module.__name__] = module.__spec__      # the import system is about to set the alias's
        return module

    def exec_module(self, module):
        module.__spec__ = _OWN_SPECS[module.__name__]


_OWN_SPECS = {}


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())


def __getattr__(name):
    """``attnlab.plotting`` (attribute access) imports the moved module on demand."""
    if f"{__name__}.{name}" in _MOVED:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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
        return checks.device(name, "ATTNLAB_DEVICE", allow_meta=False)     # refuses unknown, unavailable and 'meta'
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
