"""The course GPT's shipped weights (float16 on disk, float32 when loaded), written by
``python -m attnlab.lessons.nb12_gpt`` (notebook 12's training): gpt_kv4.pt the model trained on the course's
prose with 4 query and 4 key/value heads, gpt_kv2.pt and gpt_kv1.pt the same converted to 2 and 1 key/value
heads (grouped-query and multi-query attention) and fine-tuned.
"""
from pathlib import Path

import torch

from .. import checks
from .model import GPT

__all__ = ["CHECKPOINTS", "load", "load_unchecked", "save"]

CHECKPOINTS = {kv: Path(__file__).parent / f"gpt_kv{kv}.pt" for kv in (4, 2, 1)}


@checks.arguments(kv_heads=checks.Choice(tuple(CHECKPOINTS)))
def load(kv_heads=4):
    """A shipped model in eval mode (float32): ``kv_heads`` 4 (as many key/value heads as query heads), 2 or 1."""
    return load_unchecked(kv_heads)


def load_unchecked(kv_heads):
    """``load`` for a checked ``kv_heads``: a fresh GPT with that checkpoint read from disk."""
    saved = torch.load(CHECKPOINTS[kv_heads], weights_only=True)
    model = GPT(**saved["config"])
    model.load_state_dict({k: v.float() for k, v in saved["state"].items()})
    return model.eval()


def save(model, path):
    """Write ``model``'s config and its weights as float16 (half the bytes; loaded back as float32)."""
    torch.save({"config": model.config, "state": {k: v.half() for k, v in model.state_dict().items()}}, path)
