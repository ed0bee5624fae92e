"""What notebook 11 measures on a model beyond the two scores: the loss at each place of the two copies, which
heads form the circuit, the induction head's QK and OV circuits read as token-by-token tables, and where the
phase change of a training run starts and ends.
"""
import math
from typing import NamedTuple

import torch

from ...core import checks
from .circuits import Scores, scores, scores_of
from .data import BATCH, VOCAB, repeats_unchecked
from .model import AttentionOnly, ablate_unchecked, accuracy_unchecked, run_unchecked

__all__ = ["Circuit", "CircuitViews", "Guesses", "circuit", "circuit_views", "guesses", "loss_by_position", "phase_change",
           "previous_token_where", "restart_bets", "Shortcut", "shortcut", "uniform_scores"]

_MODEL = checks.Instance(AttentionOnly, "an AttentionOnly model (e.g. pretrained())")


@checks.arguments(model=_MODEL, length=checks.Int(2, 23), n=checks.Int(1, 10_000), seed=checks.Int(0))
def loss_by_position(model, *, length=16, n=500, seed=5):
    """The mean cross-entropy of predicting the (i+1)-th symbol of each copy from its i-th, i = 1..L-1, over
    ``n`` repeats of exactly ``length`` symbols: (first copy (L-1,), second copy (L-1,)), in nats."""
    b = repeats_unchecked(n, length, length, torch.Generator().manual_seed(seed))
    with torch.no_grad():
        logits = run_unchecked(model, b.tokens, need_weights=False)[0]
    nll = torch.nn.functional.cross_entropy(logits[:, :-1].transpose(1, 2), b.tokens[:, 1:], reduction="none")
    L = length                                          # nll[:, t] is the loss of predicting token t+1 at t
    first = nll[:, 1:L].mean(0)                         # t = 1..L-1: x_2..x_L from x_1..x_(L-1)
    second = nll[:, L + 1:2 * L].mean(0)                # t = L+1..2L-1: the same symbols, second time
    return first, second


@checks.arguments(model=_MODEL, length=checks.Int(2, 23), n=checks.Int(1, 10_000), seed=checks.Int(0))
def restart_bets(model, *, length=16, n=500, seed=5):
    """The mean probability the model gives x_1 when it predicts the symbol at place i = 2..L of the first copy,
    over ``n`` repeats of exactly ``length`` symbols (the repeats of ``loss_by_position``): a tensor (L-1,).
    x_1 is always wrong there (x holds no symbol twice); it is right after x_L, where the second copy starts."""
    b = repeats_unchecked(n, length, length, torch.Generator().manual_seed(seed))
    with torch.no_grad():
        probs = run_unchecked(model, b.tokens, need_weights=False)[0].softmax(-1)       # (n, T, VOCAB)
    x1 = b.tokens[:, 1]
    return probs[torch.arange(n), 1:length, :].gather(-1, x1[:, None, None].expand(n, length - 1, 1))[..., 0].mean(0)


@checks.arguments(model=_MODEL, batch=BATCH, layer=checks.Int(0), head=checks.Int(0))
def previous_token_where(model, batch, *, layer, head):
    """The mean weight one head's queries at t put on t - 1, over the parts of ``batch``'s sequences:
    {"first copy": t = 1..L, "second copy": t = L+1..2L, "repeated part": t = 1..2L (its previous-token
    score), "whole context": t = 1..T-1, the filler after the second copy included}."""
    if layer >= model.config["layers"] or head >= model.config["heads"]:
        raise checks.error("layer, head", f"a head of the model ({model.config['layers']} layers, "
                           f"{model.config['heads']} heads, from 0)", (layer, head))
    with torch.no_grad():
        W = run_unchecked(model, batch.tokens, need_weights=True)[1][layer][:, head]          # (n, T, T)
    back = W.diagonal(offset=-1, dim1=-2, dim2=-1)                                            # t = 1..T-1
    t, L = torch.arange(1, W.shape[-1])[None, :], batch.lengths[:, None]
    parts = {"first copy": t <= L, "second copy": (t > L) & (t <= 2 * L), "repeated part": t <= 2 * L,
             "whole context": t >= 1}
    return {name: float((back * mask).sum() / mask.expand_as(back).sum()) for name, mask in parts.items()}


@checks.arguments(batch=BATCH)
def uniform_scores(batch):
    """The two scores of a head that spreads its weight evenly over every position it may see (causal), on
    ``batch``: the level a head "looking nowhere in particular" reaches. Scores of shape (1, 1)."""
    T = batch.tokens.shape[1]
    uniform = torch.tril(torch.ones(T, T))
    uniform = (uniform / uniform.sum(-1, keepdim=True)).expand(len(batch.tokens), 1, T, T)
    return Scores(*scores_of([uniform], batch.lengths))


class Shortcut(NamedTuple):
    """A model that may find the answer by position (notebook 11, section 6), measured on a mixed batch and on
    repeats of the one length it trained on: ``mixed`` and ``one_length``: each layer-1 head's induction score
    on them (tensors (heads,)); ``query_share``: the share of the mixed batch's second-copy queries that lie
    in repeats of that length; ``position_share``: the same for its predictable positions; ``accuracy``: on the
    repeats of that length; ``without``: that accuracy with each layer-1 head removed (a list)."""
    mixed: torch.Tensor
    one_length: torch.Tensor
    query_share: float
    position_share: float
    accuracy: float
    without: list


@checks.arguments(model=_MODEL, batch=BATCH, length=checks.Int(2, 23), n=checks.Int(1, 10_000), seed=checks.Int(0))
def shortcut(model, batch, *, length=12, n=500, seed=778):
    """Measure a model trained on repeats of ``length`` only on ``batch`` (mixed lengths) and on ``n`` fresh
    repeats of ``length`` (see Shortcut)."""
    one = repeats_unchecked(n, length, length, torch.Generator().manual_seed(seed))
    L = batch.lengths
    return Shortcut(scores(model, batch).induction[0], scores(model, one).induction[0],
                    float(L[L == length].sum() / L.sum()), float((L[L == length] - 1).sum() / (L - 1).sum()),
                    accuracy_unchecked(model, one),
                    [accuracy_unchecked(ablate_unchecked(model, 0, h), one) for h in range(model.config["heads"])])


class Circuit(NamedTuple):
    """The heads of the circuit, counted from 0: the layer-1 head with the highest previous-token score and the
    layer-2 head with the highest induction score, with those scores."""
    previous_head: int
    induction_head: int
    previous_score: float
    induction_score: float


@checks.arguments(model=_MODEL, batch=BATCH)
def circuit(model, batch):
    """The previous-token head (layer 1) and the induction head (layer 2) of a 2-layer model on ``batch``."""
    if model.config["layers"] != 2:
        raise checks.error("model", "a 2-layer model", f"{model.config['layers']} layer(s)")
    s = scores(model, batch)
    p, i = int(s.previous_token[0].argmax()), int(s.induction[1].argmax())
    return Circuit(p, i, float(s.previous_token[0, p]), float(s.induction[1, i]))


class CircuitViews(NamedTuple):
    """Token-by-token tables (VOCAB-1, VOCAB-1) over the symbols 1..VOCAB-1:
    ``qk[a, b]``: the induction head's score for a query holding token a and a key whose previous token
    (moved there by the previous-token head) is b; ``ov[b, c]``: the logit the induction head adds to token c
    when it attends to token b. ``qk_diagonal`` and ``ov_diagonal``: the fraction of rows whose largest entry
    is on the diagonal (a = b: "look for my own token"; b = c: "write the token found")."""
    qk: torch.Tensor
    ov: torch.Tensor
    qk_diagonal: float
    ov_diagonal: float


@checks.arguments(model=_MODEL, previous_head=checks.Int(0), induction_head=checks.Int(0))
def circuit_views(model, *, previous_head, induction_head):
    """The induction head's QK circuit (through the previous-token head's OV) and its OV circuit, positions
    left out (they enter only the queries' and keys' inputs)."""
    heads = model.config["heads"]
    for name, h in (("previous_head", previous_head), ("induction_head", induction_head)):
        if h >= heads:
            raise checks.error(name, f"0..{heads - 1}", h)
    with torch.no_grad():
        E = model.embed[1:]                                                    # (V-1, width)
        W_OV1 = model.W_O[0, previous_head] @ model.W_V[0, previous_head]      # (width, width)
        q = E @ model.W_Q[1, induction_head].T                                 # (V-1, d)
        k = (E @ W_OV1.T) @ model.W_K[1, induction_head].T                     # what the key position holds
        qk = q @ k.T / math.sqrt(q.shape[-1])
        W_OV2 = model.W_O[1, induction_head] @ model.W_V[1, induction_head]
        ov = (E @ W_OV2.T) @ model.unembed[1:].T                               # (V-1, V-1)
    diagonal = torch.arange(VOCAB - 1)

    def share(m):
        return round(float((m.argmax(1) == diagonal).float().mean()), 4)
    return CircuitViews(qk, ov, share(qk), share(ov))


def phase_change(steps, accuracy, *, low=0.3, high=0.9):
    """(start, end) of the jump in a training curve: the last measured step with accuracy below ``low`` before
    it first reaches ``high``, and that first step at ``high`` or above. None where it never reaches ``high``."""
    checks.Items(min_len=1)(steps, "steps")
    checks.Items(min_len=len(steps), max_len=len(steps))(accuracy, "accuracy")
    end = next((i for i, a in enumerate(accuracy) if a >= high), None)
    if end is None:
        return None
    start = max((i for i in range(end) if accuracy[i] < low), default=0)
    return steps[start], steps[end]


class Guesses(NamedTuple):
    """Where a model's guesses at the predictable positions fall, as fractions of those positions:
    ``right``; ``candidate``: a symbol of the first copy not yet repeated in the second (the right one is one
    of them); ``first_copy``: any symbol of the first copy; ``chance``: the accuracy of a uniform guess among
    the candidates."""
    right: float
    candidate: float
    first_copy: float
    chance: float


@checks.arguments(model=_MODEL, batch=BATCH)
def guesses(model, batch):
    """Classify the argmax guesses of ``model`` at ``batch``'s predictable positions (see Guesses)."""
    with torch.no_grad():
        guess = run_unchecked(model, batch.tokens, need_weights=False)[0].argmax(-1)          # (n, T)
    right = candidate = first_copy = chance = 0.0
    count = 0
    for tokens, g, L in zip(batch.tokens.tolist(), guess.tolist(), batch.lengths.tolist()):
        x = tokens[1:L + 1]
        for t in range(L + 1, 2 * L):                       # predicting tokens[t + 1]
            left = set(x) - set(tokens[L + 1:t + 1])        # not yet repeated
            right += g[t] == tokens[t + 1]
            candidate += g[t] in left
            first_copy += g[t] in x
            chance += 1 / len(left)
            count += 1
    return Guesses(*(round(v / count, 4) for v in (right, candidate, first_copy, chance)))
