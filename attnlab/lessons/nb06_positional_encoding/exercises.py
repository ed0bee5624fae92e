"""The two "write it yourself" exercises of notebook 06: references, test cases, and the common
mistakes written out as functions (``SINUSOIDAL_MISTAKES``, ``ROPE_MISTAKES``), which
``selfcheck.check_function`` recognises in the learner's output.

Exercise 1 builds P, whose width is the model width D; exercise 2 turns a query or key vector, whose
size is the query/key size d (the suite's shape letters)."""
import torch

from ...core.positional import sinusoidal_encoding
from ...i18n import N_
from ...ui.selfcheck import check_function, mistake
from .encoding import frequencies, rope

__all__ = ["SINUSOIDAL_MISTAKES", "check_sinusoidal", "ROPE_MISTAKES", "check_rope"]


def _swapped(n, D):
    P = sinusoidal_encoding(n, D, dtype=torch.float64)
    return torch.stack([P[:, 1::2], P[:, 0::2]], -1).reshape(n, D)


def _exponent_j(n, D):
    angles = torch.arange(n, dtype=torch.float64)[:, None] * 10000.0 ** (-torch.arange(D // 2) / D)
    return torch.stack([angles.sin(), angles.cos()], -1).reshape(n, D)


def _halves(n, D):
    P = sinusoidal_encoding(n, D, dtype=torch.float64)
    return torch.cat([P[:, 0::2], P[:, 1::2]], -1)


# A float32 answer passes (atol=1e-5), so its mistakes are recognised with the same tolerance.
SINUSOIDAL_MISTAKES = [
    mistake(_swapped, N_("sine and cosine are swapped: column 2j holds sin(i ω_j), column 2j+1 holds cos(i ω_j)."),
            atol=1e-5),
    mistake(_exponent_j, N_("the exponent is j/D; it should be 2j/D (j counts pairs, 2j is the column): "
                            "ω_j = 10000^(-2j/D)."), atol=1e-5),
    mistake(_halves, N_("all sines come first and all cosines after; here they alternate: sin, cos, sin, cos, ..."),
            atol=1e-5),
]



def check_sinusoidal(fn):
    """Check the learner's ``fn(n, D)`` (P with n rows and width D) against ``al.sinusoidal_encoding``;
    prints a report."""
    cases = [(8, 8), (60, 32), (1, 2), (5, 6)]
    return check_function(fn, lambda n, D: sinusoidal_encoding(n, D, dtype=torch.float64), cases,
                          atol=1e-5, hints=SINUSOIDAL_MISTAKES)


def _rope_one(x, i):
    return rope(x[None], torch.tensor([float(i)]))[0]


def _rope_other_way(x, i):
    return _rope_one(x, -i)


def _rope_one_speed(x, i):
    a, b = x[0::2], x[1::2]
    c, s = torch.cos(torch.tensor(float(i))), torch.sin(torch.tensor(float(i)))
    return torch.stack([a * c + b * s, -a * s + b * c], -1).reshape(-1)


def _rope_halves(x, i):
    d = x.shape[-1]
    theta = i * frequencies(d)
    a, b = x[:d // 2], x[d // 2:]
    return torch.cat([a * theta.cos() + b * theta.sin(), -a * theta.sin() + b * theta.cos()])


ROPE_MISTAKES = [
    mistake(_rope_other_way, N_("you turned the other way (θ → −θ). Use the matrix of section 6: "
                                "a' = a cos θ + b sin θ, b' = −a sin θ + b cos θ. (Su et al.'s RoPE uses your "
                                "direction; both keep the relative property, but here we follow section 6.)"),
            atol=1e-5),
    mistake(_rope_one_speed, N_("every pair turned by i radians: pair j must turn by i·ω_j, ω_j = 10000^(-2j/d)."),
            atol=1e-5),
    mistake(_rope_halves, N_("you paired column j with column j + d/2 (the GPT-NeoX layout); here a pair is two "
                             "neighbouring columns (2j, 2j+1), as in P."), atol=1e-5),
]


def check_rope(fn):
    """Check the learner's ``fn(x, i)`` (x a query or key vector (d,), d the query/key size, i its
    position) against ``lesson.rope``."""
    x = torch.tensor([1.0, 2.0, -0.5, 0.3, 0.7, -1.2, 2.0, 0.1], dtype=torch.float64)
    cases = [(x, 3), (x, 0), (x[:2], 10), (x, 25)]
    return check_function(fn, _rope_one, cases, atol=1e-8, hints=ROPE_MISTAKES)
