"""Notebook 06, positional encoding (位置编码): the computation. Relative position in the sinusoidal
encoding (moving δ steps is a rotation) and the rotary encoding RoPE that applies it to queries and keys.

Column pair j of P (columns 2j and 2j+1) holds (sin(i ω_j), cos(i ω_j)) with the frequency
ω_j = base^(-2j/D), D the width of P (the model width; ``num_hiddens`` in code). By the angle-addition formulas, going from row i to row i+δ rotates every pair
by the angle δ ω_j, whatever i is:

    P_{i+δ} = M_δ P_i,   M_δ = blockdiag( [[cos δω_j,  sin δω_j],
                                            [-sin δω_j, cos δω_j]] )  for j = 0 .. D/2-1,

so M_δ is orthogonal, depends only on δ, and P_i · P_{i+δ} = Σ_j cos(δ ω_j) depends only on δ.
Here P_i is row i of ``attnlab.sinusoidal_encoding`` (a vector of size D). D must be even: with an
odd D the last sine column has no cosine partner, and no matrix maps row i to row i+δ for every i.
"""
import math

import torch

from ...core import checks, positional
from ...i18n import gettext as _

__all__ = [
    "frequencies", "wavelengths", "rotation_matrix", "offset_similarity", "similarity_by_offset", "rope",
    "wavelength_mistakes", "frequencies_unchecked", "rotation_matrix_unchecked", "offset_similarity_unchecked"
]


def _even_width(num_hiddens):
    d = checks.count(num_hiddens, "num_hiddens", low=2)
    if d % 2:
        raise checks.error("num_hiddens", "an even number (sin/cos pairs)", d)
    return d


def frequencies(num_hiddens, base=10000.0, *, dtype=torch.float64):
    """ω_j = base^(-2j/D) for j = 0 .. ceil(D/2)-1, D = num_hiddens, in radians per position:
    shape (ceil(D/2),). RoPE (``rope``) uses the same frequencies with D replaced by the size of the
    query or key it turns."""
    d = checks.count(num_hiddens, "num_hiddens", low=1)
    checks.fits(((d + 1) // 2,), 8, "num_hiddens", "frequencies")
    return frequencies_unchecked(d, checks.real(base, "base", positive=True)).to(dtype)


def frequencies_unchecked(D, base):
    """``frequencies`` in float64 for a checked width D and base (the Play's update calls this)."""
    two_j = torch.arange(0, D, 2, dtype=torch.float64)                 # (ceil(D/2),)
    return base ** (-two_j / D)


def wavelengths(num_hiddens, base=10000.0, *, dtype=torch.float64):
    """λ_j = 2π / ω_j = 2π · base^(2j/D), D = num_hiddens: positions per full turn of pair j, shape (ceil(D/2),)."""
    return (2 * math.pi / frequencies(num_hiddens, base)).to(dtype)


def rotation_matrix(delta, num_hiddens, base=10000.0, *, dtype=torch.float64):
    """M_δ of shape (D, D), D = num_hiddens: M_δ @ P[i] == P[i + δ] for every row i (δ may be negative
    or fractional).

    Block-diagonal with one 2x2 rotation by the angle δ ω_j per column pair j.
    Raises ValueError for an odd num_hiddens.
    """
    d = _even_width(num_hiddens)
    checks.fits((d, d), 8, "num_hiddens", "a matrix M_δ")
    delta = checks.real(delta, "delta")
    return rotation_matrix_unchecked(delta, d, checks.real(base, "base", positive=True)).to(dtype)


def rotation_matrix_unchecked(delta, D, base):
    """``rotation_matrix`` in float64 for checked arguments (an even width D)."""
    angles = delta * frequencies_unchecked(D, base)                             # (D/2,)
    c, s = torch.cos(angles), torch.sin(angles)                        # (D/2,)
    M = torch.zeros(D, D, dtype=torch.float64)
    idx = torch.arange(0, D, 2)
    M[idx, idx] = c                                                    # sin' = cos·sin + sin·cos
    M[idx, idx + 1] = s
    M[idx + 1, idx] = -s                                               # cos' = -sin·sin + cos·cos
    M[idx + 1, idx + 1] = c
    return M


def offset_similarity(deltas, num_hiddens, base=10000.0, *, dtype=torch.float64):
    """The closed form of P_i · P_{i+δ} = Σ_j cos(δ ω_j), the same for every i.

    deltas: int, float or a tensor of offsets (any shape) -> a tensor of that shape.
    Its largest value, at δ = 0, is D/2 (each pair is a unit vector), D = num_hiddens. Raises for an odd num_hiddens.
    """
    d = _even_width(num_hiddens)
    if isinstance(deltas, torch.Tensor):
        checks.Tensor(floating=False)(deltas, "deltas")
    else:
        checks.Array()(deltas, "deltas") if not isinstance(deltas, (int, float)) or isinstance(deltas, bool) else None
    deltas = torch.as_tensor(deltas, dtype=torch.float64)
    checks.fits((deltas.numel(), d // 2), 8, "deltas, num_hiddens", "cosines")
    return offset_similarity_unchecked(deltas, d, checks.real(base, "base", positive=True)).to(dtype)


def offset_similarity_unchecked(deltas, D, base):
    """``offset_similarity`` in float64 for checked arguments: ``deltas`` a float64 tensor, an even width D."""
    omega = frequencies_unchecked(D, base)                                      # (D/2,)
    return torch.cos(deltas[..., None] * omega).sum(-1)               # (...,)


def similarity_by_offset(P, max_offset):
    """Read P Pᵀ along its diagonals: for δ = 0 .. max_offset, the mean and the spread (max − min)
    of P_i · P_{i+δ} over all rows i that have a partner.

    P: (n, D) -> (mean (max_offset+1,), spread (max_offset+1,)). A spread of ~0 means the dot
    product depends only on the offset δ.
    """
    checks.tensor(P, "P", min_dim=2)
    if P.dim() != 2:
        raise checks.error("P", "a 2-D (n, D) matrix", f"shape {tuple(P.shape)}")
    n = P.shape[0]
    max_offset = checks.count(max_offset, "max_offset")
    if max_offset >= n:
        raise checks.error("max_offset", f"at most n-1={n - 1}", max_offset)
    S = P @ P.T                                                        # (n, n)
    diagonals = [torch.diagonal(S, offset=k) for k in range(max_offset + 1)]   # lengths n, n-1, ...
    mean = torch.stack([g.mean() for g in diagonals])
    spread = torch.stack([g.max() - g.min() for g in diagonals])
    return mean, spread


def rope(x, positions=None, base=10000.0):
    """The rotary position encoding (RoPE, 旋转位置编码): turn each column pair of row i by i·ω_j.

    x: float (..., n, d) with d even, one row per position: queries or keys, so d is the query/key size; positions: n positions (int or float,
    default 0 .. n-1). Row i becomes M_{positions[i]} x_i, the rotation of section 6 of the notebook
    (pair (a, b) -> (a cos θ + b sin θ, -a sin θ + b cos θ), θ = i ω_j), so for a query q at position
    i and a key k at position j:  rope(q)_i · rope(k)_j = q · M_{j-i} k, a function of j - i only.
    (Su et al. write the same turn the other way round, θ -> -θ; the property is the same.)
    Returns a new tensor of x's shape and dtype; x is not modified.
    """
    return positional.rope(x, positions, base)       # the one implementation, in attnlab/core/positional.py


def wavelength_mistakes(j, num_hiddens, base=10000.0):
    """The wrong answers a learner gives for the wavelength λ_j = 2π · base^(2j/D) of pair ``j``
    (columns 2j and 2j+1), each computed from its mistake and paired with why it is wrong:
    ``selfcheck.numeric(mistakes=...)``."""
    d = _even_width(num_hiddens)
    j = checks.count(j, "j", low=1)
    if j >= d // 2:
        raise checks.error("j", f"a pair index below D/2 = {d // 2}", j)
    base = checks.real(base, "base", positive=True)
    omega = frequencies(d, base)[j].item()                           # radians per position
    return [
        (1 / omega, _("that is {base:g}^({two_j}/{D}) = 1/ω, positions per radian. A full cycle is 2π radians: "
                      "multiply by 2π.").format(base=base, two_j=2 * j, D=d)),
        (2 * math.pi * base ** (j / d), _("you used the exponent j/D = {j}/{D}. It is 2j/D = {two_j}/{D}: 2j is the "
                                          "column.").format(j=j, two_j=2 * j, D=d)),
        (2 * math.pi * base ** ((2 * j + 1) / d), _("you put column {column} in the exponent. Both columns of pair "
                                                    "{j} share the exponent 2j/D = {two_j}/{D}.").format(
                                                        column=2 * j + 1, j=j, two_j=2 * j, D=d)),
        (math.pi / omega, _("you used π for a full cycle. A full cycle is 2π radians.")),
        (omega, _("that is ω, the frequency in radians per position. The wavelength is 2π / ω.")),
    ]
