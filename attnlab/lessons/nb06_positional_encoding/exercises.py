"""The two "write it yourself" exercises of notebook 06: references, test cases, and a diagnosis of
the common mistakes (what the learner's function computes instead, recognised on a small case)."""
import torch

from ...positional import sinusoidal_encoding
from ...selfcheck import check_function
from .encoding import frequencies, rope


def _diagnose(fn, args, mistakes):
    """The message of the first known mistake that ``fn(*args)`` reproduces, or None."""
    try:
        got = torch.as_tensor(fn(*args)).double()
    except Exception:  # the check has already reported it
        return None
    for wrong, message in mistakes:
        want = torch.as_tensor(wrong(*args)).double()
        if got.shape == want.shape and torch.allclose(got, want, atol=1e-5):
            return message
    return None


def _check(fn, reference, cases, mistakes, name, atol):
    ok = check_function(fn, reference, cases, name=name, atol=atol)
    if not ok:
        message = _diagnose(fn, cases[0], mistakes)
        if message:
            print("Recognised mistake:", message)
    return ok


def _swapped(n, d):
    P = sinusoidal_encoding(n, d, dtype=torch.float64)
    return torch.stack([P[:, 1::2], P[:, 0::2]], -1).reshape(n, d)


def _exponent_j(n, d):
    angles = torch.arange(n, dtype=torch.float64)[:, None] * 10000.0 ** (-torch.arange(d // 2) / d)
    return torch.stack([angles.sin(), angles.cos()], -1).reshape(n, d)


def _halves(n, d):
    P = sinusoidal_encoding(n, d, dtype=torch.float64)
    return torch.cat([P[:, 0::2], P[:, 1::2]], -1)


def check_sinusoidal(fn):
    """Check the learner's ``fn(n, d)`` against ``al.sinusoidal_encoding``; prints a report."""
    mistakes = [
        (_swapped, "sine and cosine are swapped: column 2j holds sin(i ω_j), column 2j+1 holds cos(i ω_j)."),
        (_exponent_j, "the exponent is j/d; it should be 2j/d (j counts pairs, 2j is the column): "
                      "ω_j = 10000^(-2j/d)."),
        (_halves, "all sines come first and all cosines after; here they alternate: sin, cos, sin, cos, ..."),
    ]
    cases = [(8, 8), (60, 32), (1, 2), (5, 6)]
    return _check(fn, lambda n, d: sinusoidal_encoding(n, d, dtype=torch.float64), cases, mistakes,
                  getattr(fn, "__name__", "your function"), atol=1e-5)


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


def check_rope(fn):
    """Check the learner's ``fn(x, i)`` (x a vector (d,), i its position) against ``lesson.rope``."""
    mistakes = [
        (_rope_other_way, "you turned the other way (θ → −θ). Use the matrix of section 6: "
                          "a' = a cos θ + b sin θ, b' = −a sin θ + b cos θ. (Su et al.'s RoPE uses your direction; "
                          "both keep the relative property, but here we follow section 6.)"),
        (_rope_one_speed, "every pair turned by i radians: pair j must turn by i·ω_j, ω_j = 10000^(-2j/d)."),
        (_rope_halves, "you paired column j with column j + d/2 (the GPT-NeoX layout); here a pair is two "
                       "neighbouring columns (2j, 2j+1), as in P."),
    ]
    x = torch.tensor([1.0, 2.0, -0.5, 0.3, 0.7, -1.2, 2.0, 0.1], dtype=torch.float64)
    cases = [(x, 3), (x, 0), (x[:2], 10), (x, 25)]
    return _check(fn, _rope_one, cases, mistakes, getattr(fn, "__name__", "your function"), atol=1e-8)
