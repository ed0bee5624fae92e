"""The "write it yourself" exercise of notebook 14: ALiBi's bias matrix, its reference, cases, and the mistakes
learners make, written out as functions that ``selfcheck.check_function`` recognises in a wrong answer.
"""
import torch

from ...core import checks
from ...i18n import N_
from ...ui.selfcheck import check_function, mistake
from .model import alibi_bias_unchecked

__all__ = ["ALIBI_CASES", "ALIBI_MISTAKES", "check_alibi_bias"]

ALIBI_CASES = [(4, 6), (8, 5), (2, 4), (1, 3)]          # (heads, length): heads a power of 2, as in the exercise


def _distance(length):
    i = torch.arange(length, dtype=torch.float64)
    return i[:, None] - i[None, :]                              # (T, T): i - j, query i, key j


def _slopes(heads, first):
    return torch.tensor([2.0 ** (-8.0 * (h + first) / heads) for h in range(heads)], dtype=torch.float64)


def _from_zero(heads, length):
    return -_slopes(heads, 0)[:, None, None] * _distance(length).clamp(min=0)


def _positive(heads, length):
    return _slopes(heads, 1)[:, None, None] * _distance(length).clamp(min=0)


def _both_sides(heads, length):
    return -_slopes(heads, 1)[:, None, None] * _distance(length).abs()


def _halving(heads, length):
    slopes = torch.tensor([2.0 ** -(h + 1) for h in range(heads)], dtype=torch.float64)
    return -slopes[:, None, None] * _distance(length).clamp(min=0)


def _transposed(heads, length):
    return -_slopes(heads, 1)[:, None, None] * (-_distance(length)).clamp(min=0)


ALIBI_MISTAKES = [
    mistake(_from_zero, N_(
        "your first head's slope is 2⁰ = 1: you counted the heads from h = 0. Press et al. count from 1, so the "
        "first slope is 2^(−8/H) and the last is 2^(−8) = 1/256.")),
    mistake(_positive, N_(
        "your bias is positive, so a key gets MORE score the further away it is. ALiBi subtracts: −m · (i − j).")),
    mistake(_both_sides, N_(
        "you penalised the keys after the query too (j > i). The causal mask hides them; the exercise asks for 0 "
        "there, so only j ≤ i carries −m · (i − j).")),
    mistake(_halving, N_(
        "your slopes halve from head to head (1/2, 1/4, 1/8, …). They fall by 2^(8/H) per head, so the last "
        "one is 2^(−8) = 1/256 whatever H is; the two agree only for H = 8.")),
    mistake(_transposed, N_(
        "your penalty sits above the diagonal: rows are queries i, columns keys j, and the keys a query sees "
        "are j ≤ i, below the diagonal.")),
]


def check_alibi_bias(fn):
    """Check the learner's ``fn(heads, length)`` -> (heads, length, length): entry (h, i, j) = -m_h (i - j) for
    j <= i, 0 above the diagonal, m_h = 2^(-8 h / heads) for h = 1 .. heads. Prints a report; True when right."""
    checks.function(fn, "fn")
    return check_function(fn, alibi_bias_unchecked, ALIBI_CASES, name="my_alibi_bias", hints=ALIBI_MISTAKES)
