"""The shipped models, their training snapshots and their measurements, as written by
``python -m attnlab.lessons.nb11_induction_heads`` (training.retrain_and_measure).

    pretrained(layers=2)                   the 2-layer model the notebook studies (learned positions)
    pretrained(layers=1)                   the 1-layer control, same budget
    pretrained(variant="rope")             the 2-layer model with RoPE instead of learned positions
    pretrained(variant="fixed_length")     the 2-layer model trained on repeats of L = 12 only
    measured()                             results.json: curves, scores, ablations, K-composition, timings
    snapshots()                            the example's attention patterns every EVERY training steps
"""
import functools
from typing import NamedTuple

import torch

from ...core import checks, stored
from .checkpoints import CHECKPOINTS, LIVE, RESULTS, SNAPSHOTS
from .model import AttentionOnly

__all__ = ["VARIANTS", "Snapshots", "measured", "pretrained", "snapshots"]

VARIANTS = ("standard", "rope", "fixed_length")


@checks.arguments(layers=checks.Choice((1, 2)), variant=checks.Choice(VARIANTS))
def pretrained(layers=2, *, variant="standard"):
    """A shipped model in eval mode: ``layers`` 2 (the studied model) or 1 (the control); ``variant``
    "rope" or "fixed_length" picks one of the 2-layer controls of sections 6 and 7."""
    if variant != "standard" and layers != 2:
        raise checks.error("variant", "'standard' for a 1-layer model (only 2-layer controls ship)", repr(variant))
    name = {"rope": "rope", "fixed_length": "fixed_length"}.get(variant, "two_layer" if layers == 2 else "one_layer")
    return _load(name)


def _load(name):
    saved = torch.load(CHECKPOINTS[name], weights_only=True)
    config = dict(saved["config"])
    model = AttentionOnly(layers=config["layers"], width=config["width"], heads=config["heads"],
                          head_size=config["head_size"], positions=config["positions"])
    model.load_state_dict({k: v.float() for k, v in saved["state"].items()})
    return model.eval()


def measured():
    """What retraining the shipped models measured (results.json), a fresh dict on each call; under "live",
    what bench/bench_nb11_live.py measured of the Train button (live.json), when it has run."""
    return stored.measured(RESULTS, LIVE)


class Snapshots(NamedTuple):
    """The shipped run's attention patterns on one example while it trained: ``tokens`` (T,) the example
    (one repeat of L = 10 and the next token), ``steps`` the training steps, ``patterns`` (snapshots,
    layers, heads, T, T) float32."""
    tokens: torch.Tensor
    steps: list
    patterns: torch.Tensor


@functools.cache
def snapshots():
    """The 2-layer run's snapshots (see Snapshots), loaded once."""
    saved = torch.load(SNAPSHOTS, weights_only=True)
    return Snapshots(saved["tokens"], list(saved["steps"]), saved["patterns"].float())
