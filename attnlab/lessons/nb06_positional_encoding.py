"""Notebook 06, positional encoding (位置编码): figures of P, the binary-counter analogy, and relative
position in the sinusoidal encoding: moving δ steps is a rotation.

Column pair j of P (columns 2j and 2j+1) holds (sin(i ω_j), cos(i ω_j)) with the frequency
ω_j = base^(-2j/d). By the angle-addition formulas, going from row i to row i+δ rotates every pair
by the angle δ ω_j, whatever i is:

    P_{i+δ} = M_δ P_i,   M_δ = blockdiag( [[cos δω_j,  sin δω_j],
                                            [-sin δω_j, cos δω_j]] )  for j = 0 .. d/2-1,

so M_δ is orthogonal, depends only on δ, and P_i · P_{i+δ} = Σ_j cos(δ ω_j) depends only on δ.
Here P_i is row i of ``attnlab.sinusoidal_encoding`` (a vector of size d). d must be even: with an
odd d the last sine column has no cosine partner, and no matrix maps row i to row i+δ for every i.
"""
import math

import matplotlib.pyplot as plt
import numpy as np
import torch

from .. import _checks
from ..positional import sinusoidal_encoding
from ..plotting import to_numpy


def _even_width(num_hiddens):
    d = _checks.count(num_hiddens, "num_hiddens", low=2)
    if d % 2:
        raise ValueError(f"num_hiddens: expected an even number (sin/cos pairs), got {d}")
    return d


def frequencies(num_hiddens, base=10000.0, *, dtype=torch.float64):
    """ω_j = base^(-2j/d) for j = 0 .. ceil(d/2)-1, in radians per position: shape (ceil(d/2),)."""
    d = _checks.count(num_hiddens, "num_hiddens", low=1)
    base = _checks.real(base, "base", positive=True)
    two_j = torch.arange(0, d, 2, dtype=torch.float64)                 # (ceil(d/2),)
    return (base ** (-two_j / d)).to(dtype)


def wavelengths(num_hiddens, base=10000.0, *, dtype=torch.float64):
    """λ_j = 2π / ω_j = 2π · base^(2j/d): positions per full turn of pair j, shape (ceil(d/2),)."""
    return (2 * math.pi / frequencies(num_hiddens, base)).to(dtype)


def rotation_matrix(delta, num_hiddens, base=10000.0, *, dtype=torch.float64):
    """M_δ of shape (d, d): M_δ @ P[i] == P[i + δ] for every row i (δ may be negative or fractional).

    Block-diagonal with one 2x2 rotation by the angle δ ω_j per column pair j.
    Raises ValueError for an odd num_hiddens.
    """
    d = _even_width(num_hiddens)
    delta = _checks.real(delta, "delta")
    angles = delta * frequencies(d, base)                              # (d/2,)
    c, s = torch.cos(angles), torch.sin(angles)                        # (d/2,)
    M = torch.zeros(d, d, dtype=torch.float64)
    idx = torch.arange(0, d, 2)
    M[idx, idx] = c                                                    # sin' = cos·sin + sin·cos
    M[idx, idx + 1] = s
    M[idx + 1, idx] = -s                                               # cos' = -sin·sin + cos·cos
    M[idx + 1, idx + 1] = c
    return M.to(dtype)


def offset_similarity(deltas, num_hiddens, base=10000.0, *, dtype=torch.float64):
    """The closed form of P_i · P_{i+δ} = Σ_j cos(δ ω_j), the same for every i.

    deltas: int, float or a tensor of offsets (any shape) -> a tensor of that shape.
    Its largest value, at δ = 0, is d/2 (each pair is a unit vector). Raises for an odd num_hiddens.
    """
    d = _even_width(num_hiddens)
    deltas = torch.as_tensor(deltas, dtype=torch.float64)
    omega = frequencies(d, base)                                       # (d/2,)
    return torch.cos(deltas[..., None] * omega).sum(-1).to(dtype)     # (...,)


def similarity_by_offset(P, max_offset):
    """Read P Pᵀ along its diagonals: for δ = 0 .. max_offset, the mean and the spread (max − min)
    of P_i · P_{i+δ} over all rows i that have a partner.

    P: (T, d) -> (mean (max_offset+1,), spread (max_offset+1,)). A spread of ~0 means the dot
    product depends only on the offset δ.
    """
    _checks.tensor(P, "P", min_dim=2)
    if P.dim() != 2:
        raise ValueError(f"P: expected a 2-D (T, d) matrix, got shape {tuple(P.shape)}")
    T = P.shape[0]
    max_offset = _checks.count(max_offset, "max_offset")
    if max_offset >= T:
        raise ValueError(f"max_offset: expected at most T-1={T - 1}, got {max_offset}")
    S = P @ P.T                                                        # (T, T)
    diagonals = [torch.diagonal(S, offset=k) for k in range(max_offset + 1)]   # lengths T, T-1, ...
    mean = torch.stack([g.mean() for g in diagonals])
    spread = torch.stack([g.max() - g.min() for g in diagonals])
    return mean, spread


# ---- figures ----

def encoding_columns_plot(P, columns=(6, 7, 8, 9), *, ax=None):
    """Columns of a positional encoding P (T, d) against position, as in seed 000; returns the Axes."""
    P = to_numpy(P)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3))
    for c in columns:
        ax.plot(np.arange(P.shape[0]), P[:, c], label=f"col {c}")
    ax.set_xlabel("position i")
    ax.set_ylabel("P[i, col]")
    ax.legend(loc="upper right", fontsize=8)
    return ax


SIGNED_CMAP = "RdBu_r"   # diverging, white at 0: for signed values such as P (not for weights)


def encoding_heatmap(P, *, ax=None, vmax=1.0, cmap=SIGNED_CMAP, colorbar=True, title=None):
    """A signed (T, d) matrix such as the positional encoding P: rows = positions, columns =
    dimensions, diverging colours fixed to [-vmax, vmax] with 0 in white; returns the Axes.

    For live panels, change it in place with ``update_encoding_heatmap``.
    """
    M = to_numpy(P)
    if M.ndim != 2:
        raise ValueError(f"P: expected a 2-D (T, d) matrix, got shape {M.shape}")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    im = ax.imshow(M, cmap=cmap, vmin=-vmax, vmax=vmax, aspect="auto", interpolation="nearest")
    ax.set_xlabel("dimension (column of P)")
    ax.set_ylabel("position i (row of P)")
    if title:
        ax.set_title(title)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="value")
    return ax


def update_encoding_heatmap(ax, P):
    """Put a new (T, d) matrix into an ``encoding_heatmap`` in place (its shape may change)."""
    M = to_numpy(P)
    im = ax.images[0]
    im.set_data(M)
    im.set_extent((-0.5, M.shape[1] - 0.5, M.shape[0] - 0.5, -0.5))
    ax.set_xlim(-0.5, M.shape[1] - 0.5)
    ax.set_ylim(M.shape[0] - 0.5, -0.5)
    return ax


def binary_counter_plot(num_bits=3, *, ax=None):
    """Bits of the counter 0 .. 2^num_bits - 1 as step curves against the number, lowest bit on top
    (seed 000's analogy: higher bits flip more slowly); returns the Axes."""
    n = np.arange(2 ** num_bits)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3))
    for b in range(num_bits):
        bits = (n >> b) & 1
        offset = 1.5 * (num_bits - 1 - b)
        ax.step(np.append(n, n[-1] + 1), np.append(bits, bits[-1]) + offset, where="post",
                color=f"C{b}", linewidth=2, label=f"bit {b} (flips every {2 ** b})")
        for k, v in zip(n, bits):
            ax.text(k + 0.5, offset + v + 0.12, str(v), ha="center", fontsize=8, color=f"C{b}")
    ax.set_xticks(n + 0.5)
    ax.set_xticklabels([f"{k}\n{k:0{num_bits}b}" for k in n])
    ax.set_yticks([])
    ax.set_xlim(0, n[-1] + 1)
    ax.set_ylim(-0.3, 1.5 * num_bits)
    ax.set_xlabel("number (and its binary form)")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    return ax


def thumbnail(ax):
    """The index's small picture of this notebook, drawn into ``ax``."""
    ax.imshow(sinusoidal_encoding(60, 32).T.numpy(), cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto")
    ax.set_xlabel("position", fontsize=7)
    ax.set_ylabel("dim", fontsize=7)
