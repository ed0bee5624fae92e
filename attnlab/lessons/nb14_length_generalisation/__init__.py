"""Notebook 14 (14_length_generalisation.ipynb): which position encodings work past the training length. One small
causal Transformer, five encodings of positions (NoPE, learned, sinusoidal, RoPE, ALiBi), two tasks, trained on
sequences of at most TRAIN_LENGTH tokens and tested on up to four times as many.

    from attnlab.lessons import nb14_length_generalisation as lesson
    lesson.ENCODINGS, lesson.TASKS, lesson.TRAIN_LENGTH
    b = lesson.batch(task, n, length, seed=0)               # .tokens (n, length), .targets (n, length) bool
    m = lesson.pretrained(encoding, task); lesson.accuracy(m, task, length, n=500, seed=0)
    lesson.alibi_bias(heads, length); lesson.train(encoding, task, steps=..., seed=...)

data       the two tasks (copy, latest) at any length, and which tokens are scored
model      the Decoder: one model, the five encodings (RoPE and sinusoidal are attnlab.core's), ALiBi's bias
training   the training loop, the shipped runs (python -m attnlab.lessons.nb14_length_generalisation)
measure    accuracy at any length, curves, the weight on the first token
shipped    the shipped models and measurements
figures    the static figures and the index thumbnail
live       the Play panels: play (patterns at a test length), play_trainer
exercises  ALiBi's bias matrix, written by the learner
"""
from .data import TASKS, TRAIN_LENGTH, batch
from .exercises import check_alibi_bias
from .figures import alibi_figure, angles_figure, counting_figure, curves_figure, interpolation_figure, thumbnail
from .live import play, play_trainer
from .measure import accuracy, first_token_weights
from .model import ENCODINGS, alibi_bias
from .shipped import measured, pretrained
from .training import train

__all__ = ["ENCODINGS", "TASKS", "TRAIN_LENGTH", "accuracy", "alibi_bias", "alibi_figure", "angles_figure", "batch",
           "check_alibi_bias", "counting_figure", "curves_figure", "first_token_weights", "interpolation_figure",
           "measured", "play", "play_trainer", "pretrained", "thumbnail", "train"]
