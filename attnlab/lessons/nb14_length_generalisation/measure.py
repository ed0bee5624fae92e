"""Measuring a model of notebook 14 at any length: the accuracy on fresh sequences, a curve of it against the
length, and the weight each head puts on the first token (how a model without positions can count).
"""
import torch

from ...core import checks
from ...ui.trainer import one_thread
from .data import MIN_LENGTH, TASKS, batch_unchecked
from .model import Decoder, check_length, run_unchecked
from .training import Trained, loss_and_right

__all__ = ["MODEL", "accuracy", "accuracy_unchecked", "curve_unchecked", "first_token_weights",
           "first_token_weights_unchecked", "model_of"]

MODEL = checks.Instance((Decoder, Trained), "a model of this lesson (pretrained(...) or train(...))")


def model_of(m):
    """The Decoder of ``m`` (a Decoder, or what ``train`` returned)."""
    return m.model if isinstance(m, Trained) else m


@checks.arguments(m=MODEL, task=checks.Choice(TASKS), length=checks.Int(MIN_LENGTH, 4096), n=checks.Int(1, 10_000),
                  seed=checks.Int(0), scale=checks.Real(positive=True))
def accuracy(m, task, length, *, n=500, seed=0, scale=1.0):
    """The fraction of scored tokens the model predicts right (argmax) in ``n`` fresh sequences of ``task``
    with ``length`` tokens (``batch(task, n, length, seed=seed)``). ``scale`` multiplies the positions RoPE
    turns by (TRAIN_LENGTH / length: position interpolation). A learned model asked for more positions than
    its table has rows raises a ValueError naming ``length``."""
    model = model_of(m)
    check_length(model, length)
    return accuracy_unchecked(model, task, length, n, seed, scale)


def accuracy_unchecked(model, task, length, n=500, seed=0, scale=1.0):
    """``accuracy`` without its checks: a float."""
    b = batch_unchecked(task, n, length, torch.Generator().manual_seed(seed))
    scored = int(b.targets[:, 1:].sum())
    if scored == 0:
        raise checks.error("n", f"sequences with at least one scored token, got none in {n} {task!r} sequences "
                         f"of {length} tokens (take more sequences, or longer ones)")
    with one_thread(), torch.no_grad():
        model.eval()
        return loss_and_right(model, b, scale)[1] / scored


def curve_unchecked(model, task, lengths, n=500, seed=0, interpolate=False, train_length=None):
    """{length: accuracy} over ``lengths`` the model can represent, on the data seeds seed + length. With
    ``interpolate``, lengths past ``train_length`` are read with the positions scaled by train_length / length."""
    out = {}
    for length in lengths:
        if model.encoding == "learned" and length > model.config["max_length"]:
            continue
        scale = train_length / length if interpolate and length > train_length else 1.0
        out[length] = accuracy_unchecked(model, task, length, n, seed + length, scale)
    return out


@checks.arguments(m=MODEL, length=checks.Int(2, 4096), n=checks.Int(1, 10_000), seed=checks.Int(0))
def first_token_weights(m, length, *, n=200, seed=0):
    """The mean weight each head of each layer puts on position 0 (BOS), for each query position t, over
    ``n`` "copy" sequences of ``length`` tokens: (layers, heads, length). A head that spreads its weight evenly
    over the t + 1 tokens it may see puts 1 / (t + 1) there: the count of the tokens so far, written into the
    stream by the causal mask alone."""
    model = model_of(m)
    check_length(model, length)
    return first_token_weights_unchecked(model, length, n, seed)


def first_token_weights_unchecked(model, length, n=200, seed=0):
    """``first_token_weights`` without its checks."""
    tokens = batch_unchecked("copy", n, length, torch.Generator().manual_seed(seed)).tokens
    with one_thread(), torch.no_grad():
        model.eval()
        patterns = torch.stack(run_unchecked(model, tokens)[1])              # (layers, n, H, T, T)
    return patterns[..., 0].mean(1)                                          # (layers, H, T)
