"""Positional encodings: sinusoidal (位置编码: self-attention alone ignores order, so add P to X) and rotary (RoPE).

P[i, 2j] = sin(i / base^(2j/D)),  P[i, 2j+1] = cos(i / base^(2j/D)), D = num_hiddens (the model width).
"""
import torch
from torch import nn

from . import checks


def sinusoidal_encoding(num_steps, num_hiddens, base=10000.0, *, dtype=None, device=None):
    """The (num_steps, num_hiddens) matrix P; an odd num_hiddens ends with a sine column.

    Computed in float64, returned in ``dtype`` (a floating dtype; torch's default when None) on
    ``device``. A P larger than 1 GiB in float64 is refused before it is allocated.
    """
    num_steps = checks.count(num_steps, "num_steps")
    num_hiddens = checks.count(num_hiddens, "num_hiddens", low=1)
    base = checks.real(base, "base", positive=True)
    dtype = checks.float_dtype(dtype, "dtype")
    device = checks.device(device, "device")
    checks.fits((num_steps, num_hiddens), 8, "num_steps, num_hiddens", "an encoding P (computed in float64)")
    i = torch.arange(num_steps, dtype=torch.float64, device=device)[:, None]          # (T, 1)
    two_j = torch.arange(0, num_hiddens, 2, dtype=torch.float64, device=device)       # (ceil(d/2),)
    angles = i / base ** (two_j / num_hiddens)                                          # (T, ceil(d/2))
    P = torch.empty(num_steps, num_hiddens, dtype=torch.float64, device=device)
    P[:, 0::2] = torch.sin(angles)
    P[:, 1::2] = torch.cos(angles[:, : num_hiddens // 2])
    return P.to(dtype)


class PositionalEncoding(nn.Module):
    """Adds the sinusoidal P to token embeddings: forward(X (B, T, D)) -> dropout(X + P[:T]).

    The table P (max_len, num_hiddens) is made once in float64; one larger than 1 GiB is refused.
    """

    def __init__(self, num_hiddens, dropout=0.0, max_len=1000):
        super().__init__()
        self.num_hiddens = checks.count(num_hiddens, "num_hiddens", low=1)
        self.max_len = checks.count(max_len, "max_len", low=1)
        checks.fits((self.max_len, self.num_hiddens), 8, "max_len, num_hiddens",
                     "a table P (max_len x num_hiddens, float64)")
        self.dropout = nn.Dropout(checks.real(dropout, "dropout", low=0.0, below=1.0))
        # Kept in float64 so float64 inputs get P to full precision; cast to X's dtype in forward.
        self.register_buffer("P", sinusoidal_encoding(max_len, num_hiddens, dtype=torch.float64)[None],
                             persistent=False)                                     # (1, L, D)

    def forward(self, X):
        checks.tensor(X, "X", min_dim=2)
        T, D = X.shape[-2:]
        if D != self.num_hiddens:
            raise checks.error("X", f"last dim num_hiddens={self.num_hiddens}", D)
        if T > self.max_len:
            raise checks.error("X", f"at most max_len={self.max_len} positions", T)
        return self.dropout(X + self.P[0, :T].to(device=X.device, dtype=X.dtype))


def rope(x, positions=None, base=10000.0):
    """The rotary position encoding (RoPE, 旋转位置编码): turn each column pair of row i by i·ω_j.

    x: float (..., n, d) with d even, one row per position (queries or keys of one head, so d is the
    head's query/key size); positions: n positions (int or float, default 0 .. n-1); ω_j = base^(-2j/d).
    Pair (a, b) -> (a cos θ + b sin θ, -a sin θ + b cos θ), θ = positions[i] ω_j, so for a query q at
    position i and a key k at position j, rope(q)_i · rope(k)_j depends on j - i only.
    Returns a new tensor of x's shape and dtype; x is not modified. (Notebook 06 teaches it.)
    """
    checks.tensor(x, "x", min_dim=2)
    n, d = x.shape[-2], x.shape[-1]
    if d % 2:
        raise checks.error("x", "an even last dim (pairs of columns)", d)
    if positions is None:
        positions = torch.arange(n, dtype=torch.float64)
    elif isinstance(positions, torch.Tensor):
        checks.tensor(positions, "positions", dims=1, floating=False)
    else:
        checks.array(positions, "positions", dims=1)
    positions = torch.as_tensor(positions, dtype=torch.float64)
    if positions.shape != (n,):
        raise checks.error("positions", f"shape ({n},), one per row of x", tuple(positions.shape))
    return rope_unchecked(x, positions, checks.real(base, "base", positive=True))


def rope_unchecked(x, positions, base):
    """The unchecked core of rope: x (..., n, d) with d even, positions a float tensor (n,)."""
    d = x.shape[-1]
    omega = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)                 # (d/2,)
    angles = positions.to(torch.float64)[:, None] * omega                               # (n, d/2)
    c = torch.cos(angles).to(device=x.device, dtype=x.dtype)
    s = torch.sin(angles).to(device=x.device, dtype=x.dtype)
    a, b = x[..., 0::2], x[..., 1::2]                                                   # (..., n, d/2) each
    return torch.stack((a * c + b * s, -a * s + b * c), dim=-1).flatten(-2)             # pairs back in place
