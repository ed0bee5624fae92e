"""Notebook 04's two code exercises (the matrix form of attention; a masked softmax that never gives
NaN), checked with ``selfcheck.check_function`` against attnlab; the common mistakes it recognises are
written out as functions (``ATTENTION_MISTAKES``, ``MASKED_MISTAKES``)."""
import math

import torch

from ...core import checks
from ...core.attention import scaled_dot_product_attention
from ...core.masking import causal_mask, masked_softmax
from ...i18n import N_, gettext as _
from ...ui.selfcheck import check_function, mistake
from .data import thinking_machines

__all__ = [
    "attention_cases", "ATTENTION_MISTAKES", "check_attention", "masked_cases", "MASKED_MISTAKES",
    "check_masked_softmax", "divisor_mistakes", "softmax_weight_mistakes"
]


def attention_cases():
    tm = thinking_machines()
    g = torch.Generator().manual_seed(7)
    r = lambda *shape: torch.randn(*shape, generator=g, dtype=torch.float64)
    return [tuple(tm["X"] @ tm[w] for w in ("W_Q", "W_K", "W_V")),              # the two words, d_k = 64
            (r(3, 5, 8), r(3, 7, 8), r(3, 7, 4)),                               # batch, Tq = 5, Tk = 7 (cross)
            (r(4, 1), r(4, 1), r(4, 2))]                                        # d_k = 1


def _scores(Q, K):
    return Q @ K.transpose(-2, -1)                                              # (..., Tq, Tk)


ATTENTION_MISTAKES = [
    mistake(lambda Q, K, V: torch.softmax(_scores(Q, K), -1) @ V,
            N_("no ÷ √d_k: the scores grow with d_k and the softmax saturates.")),
    mistake(lambda Q, K, V: torch.softmax(_scores(Q, K) / Q.shape[-1], -1) @ V,
            N_("you divided by d_k, not by √d_k.")),
    mistake(lambda Q, K, V: torch.softmax(_scores(Q, K) / math.sqrt(Q.shape[-1]), -2) @ V,
            N_("the softmax ran over the queries (dim=-2). Each query's row must sum to 1: dim=-1.")),
    mistake(lambda Q, K, V: torch.softmax(_scores(Q, K), -1) @ V / math.sqrt(Q.shape[-1]),
            N_("you divided the output by √d_k after the softmax (seed 004's slip, notebook 05).")),
]



def check_attention(fn):
    """Exercise 1: fn(Q (..., Tq, d_k), K (..., Tk, d_k), V (..., Tk, dv)) -> softmax(QKᵀ/√d_k)V."""
    return check_function(fn, lambda Q, K, V: scaled_dot_product_attention(Q, K, V)[0], attention_cases(),
                          name="my_attention", hints=ATTENTION_MISTAKES)


def masked_cases():
    g = torch.Generator().manual_seed(8)
    r = lambda *shape: torch.randn(*shape, generator=g, dtype=torch.float64)
    padding = torch.tensor([True, True, True, False, False])                     # valid length 3, (Tk,)
    empty = torch.ones(3, 4, dtype=torch.bool)
    empty[1] = False                                                             # query 1 may see no key
    return [(r(4, 4), causal_mask(4, 4)), (r(2, 5), padding.expand(2, 5)), (r(3, 4), empty)]


MASKED_MISTAKES = [
    mistake(lambda S, mask: torch.softmax(S.masked_fill(~mask, float("-inf")), -1),
            N_("the query with no visible key got NaN: a softmax over only −∞ is 0/0. Give that row zeros.")),
    mistake(lambda S, mask: torch.softmax(S.masked_fill(~mask, -1e6), -1),
            N_("the query with no visible key got uniform weights (d2l's −1e6 trick): it silently averages "
               "keys it may not see. Give that row zeros.")),
    mistake(lambda S, mask: masked_softmax(S, ~mask),
            N_("the mask is the wrong way round: True means MAY attend (as in torch's SDPA).")),
    mistake(lambda S, mask: torch.softmax(S, -1),
            N_("the mask was not applied: masked keys must get weight 0.")),
]


def check_masked_softmax(fn):
    """Exercise 2: fn(scores (Tq, Tk), mask bool (Tq, Tk), True = may attend) -> weights, 0 on masked
    keys, and all zeros (never NaN) for a query whose keys are all masked: ``al.masked_softmax``."""
    return check_function(fn, masked_softmax, masked_cases(), name="my_masked_softmax",
                          hints=MASKED_MISTAKES)


def divisor_mistakes(d_k=128, known_d_k=64):
    """The wrong answers a learner gives for the divisor √d_k, having just seen ÷ √known_d_k, each
    computed from its mistake and paired with why it is wrong: ``selfcheck.numeric(mistakes=...)``."""
    d_k = checks.count(d_k, "d_k", low=2)
    known_d_k = checks.count(known_d_k, "known_d_k", low=2)
    known = math.sqrt(known_d_k)
    return [
        (d_k / known, _("you divided {d_k} by {known:g}. The {known:g} was √{known_d_k}, for d_k = {known_d_k}; "
                        "here take √{d_k}.").format(d_k=d_k, known=known, known_d_k=known_d_k)),
        (float(d_k), _("that is d_k itself. The scores are divided by the square root of d_k.")),
        (d_k / 2, _("you halved {d_k}. The square root is the number that, times itself, gives {d_k}.").format(d_k=d_k)),
        (known, _("that is √{known_d_k}, the divisor for d_k = {known_d_k}. It changes with d_k.").format(
            known_d_k=known_d_k)),
    ]


def softmax_weight_mistakes(scores=(14.0, 12.0), scale=8.0, words=("Thinking", "Machines")):
    """The wrong answers a learner gives for the first word's softmax weight over two already scaled
    ``scores`` of ``words`` (unscaled, they were ``scale`` times larger), each computed from its
    mistake and paired with why it is wrong: ``selfcheck.numeric(mistakes=...)``."""
    if not isinstance(scores, (tuple, list)) or len(scores) != 2:
        raise checks.error("scores", "a pair of numbers (first, second)", repr(scores), kind=TypeError)
    first, second = (checks.real(s, "scores") for s in scores)
    if not first > second > 0:
        raise checks.error("scores", "first > second > 0", repr(scores))
    scale = checks.real(scale, "scale", low=2.0)
    if not isinstance(words, (tuple, list)) or len(words) != 2 or not all(isinstance(w, str) for w in words):
        raise checks.error("words", "a pair of str", repr(words), kind=TypeError)
    s = torch.tensor([first, second], dtype=torch.float64)
    return [
        (first / (first + second), _("you divided {first:g} by {first:g} + {second:g}. The softmax exponentiates "
                                     "first: e^{first:g} / (e^{first:g} + e^{second:g}).").format(first=first,
                                                                                                 second=second)),
        (torch.softmax(s, 0)[1].item(), _("that is the weight of {second_word}. {first_word} has the larger score, "
                                          "so it gets the larger weight.").format(first_word=words[0],
                                                                                  second_word=words[1])),
        (torch.softmax(s * scale, 0)[0].item(), _("you used the unscaled scores {first_unscaled:g} and "
                                                  "{second_unscaled:g}. {first:g} and {second:g} are already divided "
                                                  "by {scale:g}.").format(first_unscaled=first * scale,
                                                                          second_unscaled=second * scale,
                                                                          first=first, second=second, scale=scale)),
        (torch.softmax(s / scale, 0)[0].item(), _("you divided by {scale:g} a second time. {first:g} and {second:g} "
                                                  "are already the scaled scores.").format(scale=scale, first=first,
                                                                                           second=second)),
    ]
