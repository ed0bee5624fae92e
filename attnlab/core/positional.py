"""Sinusoidal positional encoding (位置编码): self-attention alone ignores order, so add P to X.

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
            raise ValueError(f"X: expected last dim num_hiddens={self.num_hiddens}, got {D}")
        if T > self.max_len:
            raise ValueError(f"X: expected at most max_len={self.max_len} positions, got {T}")
        return self.dropout(X + self.P[0, :T].to(device=X.device, dtype=X.dtype))
