"""The shipped models of notebook 13 and their measurements, as ``python -m attnlab.lessons.nb13_long_context``
wrote them (training.py).

    gpt(kv_heads=4)   notebook 12's course GPT (attnlab.core.gpt), 4, 2 or 1 key/value heads
    sink_model()      the one-layer model trained on the Bigram-Backcopy task (sinks.py)
    latent(d_c)       notebook 12's model with latent attention of size d_c (LATENT_SIZES), fine-tuned
    measured()        results.json: the sink model's training and scores, the window experiments, the latent models
"""

import torch

from ...core import checks, stored
from ...core.gpt import shipped as course
from ...core.gpt.model import GPT
from .checkpoints import RESULTS, SINK, latent_path
from .mla import LatentGPT

__all__ = ["LATENT_SIZES", "gpt", "latent", "latent_unchecked", "measured", "sink_model"]

LATENT_SIZES = (16, 32, 64, 128)      # the shipped latent sizes d_c


@checks.arguments(kv_heads=checks.Choice(tuple(course.CHECKPOINTS)))
def gpt(kv_heads=4):
    """Notebook 12's model (float32, eval mode): 4 key/value heads (MHA), 2 (GQA) or 1 (MQA)."""
    return course.load_unchecked(kv_heads)


def sink_model():
    """The shipped sink model (a one-layer course GPT, MODEL), in eval mode."""
    saved = torch.load(SINK, weights_only=True)
    model = GPT(**saved["config"])
    model.load_state_dict({k: v.float() for k, v in saved["state"].items()})
    return model.eval()


@checks.arguments(d_c=checks.Choice(LATENT_SIZES))
def latent(d_c):
    """Notebook 12's model with multi-head latent attention of latent size ``d_c`` (one of LATENT_SIZES), as
    shipped: converted and fine-tuned (LatentGPT, float32, eval mode)."""
    return latent_unchecked(d_c)


def latent_unchecked(d_c):
    """``latent`` for a checked ``d_c``: notebook 12's weights, then the shipped attention weights."""
    base = course.load_unchecked(4)
    saved = torch.load(latent_path(d_c), weights_only=True)
    model = LatentGPT(**saved["config"])
    state = {k: v for k, v in base.state_dict().items() if ".attention." not in k}
    state.update({k: v.float() for k, v in saved["attention"].items()})
    model.load_state_dict(state)
    return model.eval()


def measured():
    """What the training command measured (results.json), a fresh dict on each call."""
    return stored.measured(RESULTS)
