"""The shipped models of notebook 14 and their measurements, as written by
``python -m attnlab.lessons.nb14_length_generalisation`` (training.retrain_and_measure).

    pretrained(encoding, task)   the seed-0 model of that encoding trained on that task at TRAIN_LENGTH
    measured()                   results.json: every seed's accuracy against the length, timings
"""
import functools

import torch

from ...core import checks, stored
from .checkpoints import LIVE, RESULTS, checkpoint
from .data import TASKS
from .model import ENCODINGS, Decoder

__all__ = ["load_unchecked", "measured", "pretrained"]


@checks.arguments(encoding=checks.Choice(ENCODINGS), task=checks.Choice(TASKS))
def pretrained(encoding, task):
    """The shipped model (eval mode, float32) of ``encoding`` trained on ``task`` at TRAIN_LENGTH."""
    return load_unchecked(encoding, task)


@functools.cache
def _state(encoding, task):
    return torch.load(checkpoint(task, encoding), weights_only=True)


def load_unchecked(encoding, task):
    """A fresh Decoder with the checkpoint of ``encoding`` and ``task`` (read from disk once)."""
    saved = _state(encoding, task)
    config = dict(saved["config"])
    model = Decoder(config.pop("encoding"), **config)
    model.load_state_dict({k: v.float() for k, v in saved["state"].items()})
    return model.eval()


def measured():
    """What retraining the shipped models measured (results.json), a fresh dict on each call; under "live",
    what bench/bench_nb14_live.py measured of the Train button (live.json), when it has run."""
    return stored.measured(RESULTS, LIVE)
