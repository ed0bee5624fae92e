"""What cheaper attention costs and what it gets wrong (notebook 07): toy data with local structure,
errors of local, block and linear attention against exact attention, and closed-form FLOP and
memory counts. Measured times and memory are in bench/bench_efficient.py.

Shape legend: L sequence length (Tq = Tk = L, self-attention), d = dv head size.
"""
import torch

from ...core import checks
from ...core.attention import scaled_dot_product_attention
from ...core.efficient import linear_attention
from ...core.masking import local_mask
from ...core.positional import sinusoidal_encoding
from ...i18n import N_
from .masks import block_mask

__all__ = ["METHODS", "BYTES", "structured_qkv", "relative_error", "approximation_errors", "flops", "memory_bytes"]

METHODS = (N_("dense"), N_("local"), N_("block"), N_("linear"), N_("tiled"))   # values; N_: shown with _()
BYTES = 4                                                     # float32


@checks.arguments(length=checks.Int(1, 1 << 15), d=checks.Int(2, 4096), dv=checks.Int(1, 4096), seed=checks.Int(0))
def structured_qkv(length=64, d=16, dv=4, *, locality=2.0, noise=0.5, seed=0, dtype=torch.float64):
    """Queries, keys (L, d) and values (L, dv) whose attention is mostly local.

    q_i = locality * P_i + noise * e_i and k_j = locality * P_j + noise * e'_j, with P sinusoidal
    positions (base 100): q_i·k_j is largest near j = i, more so as ``locality`` grows; 0 gives
    unstructured random data. Values are standard normal. Seeded, so always the same tensors.
    """
    locality = checks.real(locality, "locality", low=0.0)
    noise = checks.real(noise, "noise", low=0.0)
    g = torch.Generator().manual_seed(seed)
    P = sinusoidal_encoding(length, d, base=100.0).to(dtype)                     # (L, d)
    q = locality * P + noise * torch.randn(length, d, generator=g, dtype=dtype)
    k = locality * P + noise * torch.randn(length, d, generator=g, dtype=dtype)
    v = torch.randn(length, dv, generator=g, dtype=dtype)
    return q, k, v


@checks.arguments(approx=checks.Tensor(), exact=checks.Tensor())
def relative_error(approx, exact):
    """||approx - exact||_F / ||exact||_F."""
    if approx.shape != exact.shape:
        raise checks.error("approx", f"the shape of exact {tuple(exact.shape)}", tuple(approx.shape))
    return float((approx - exact).norm() / exact.norm())


@checks.arguments(q=checks.Tensor(2), k=checks.Tensor(2), v=checks.Tensor(2),
                   windows=checks.Items(checks.Int(0)), blocks=checks.Items(checks.Int(1)))
def approximation_errors(q, k, v, *, windows=(0, 1, 2, 4, 8, 16, 32), blocks=(1, 2, 4, 8, 16, 32)):
    """Relative and max-abs error of local, block and linear attention against exact attention.

    Args: q, k (L, d), v (L, dv); windows for local attention (|i - j| <= w); blocks for block
        attention (same block of size b).
    Returns: {"local": [(w, rel, max_abs)...], "block": [(b, rel, max_abs)...],
              "linear": (rel, max_abs)}.
    """
    L = q.shape[-2]
    exact, _ = scaled_dot_product_attention(q, k, v)                          # (L, dv)

    def errs(out):
        return relative_error(out, exact), float((out - exact).abs().max())

    local = [(w, *errs(scaled_dot_product_attention(q, k, v, local_mask(L, L, w))[0])) for w in windows]
    block = [(b, *errs(scaled_dot_product_attention(q, k, v, block_mask(L, L, b))[0])) for b in blocks]
    return {"local": local, "block": block, "linear": errs(linear_attention(q, k, v))}


@checks.arguments(window=checks.Int(0), block_size=checks.Int(1))
def flops(method, length, d, *, window=64, block_size=64):
    """Multiply-adds x 2 of one self-attention head (scores + weighted sum), softmax ignored.

    dense, tiled: 4 L^2 d (tiled is exact: same arithmetic, different order);
    local: 4 L (2w + 1) d with a banded kernel (a dense kernel with a mask still does 4 L^2 d);
    block: 4 L b d; linear: 4 L d^2 (phi(K)^T V, then phi(Q) times that).
    """
    checks.choice(method, "method", METHODS, expected=f"one of {METHODS}")
    L, d = _counts(length, d)
    if method in ("dense", "tiled"):
        return 4 * L * L * d
    if method == "local":
        return 4 * L * min(2 * window + 1, L) * d
    if method == "block":
        return 4 * L * min(block_size, L) * d
    if method == "linear":
        return 4 * L * d * d
    raise AssertionError(method)      # refused above


@checks.arguments(window=checks.Int(0), block_size=checks.Int(1))
def memory_bytes(method, length, d, *, window=64, block_size=128):
    """Bytes of float32 working memory besides Q, K, V, output (L d) included.

    dense: the L x L weights + output; tiled: one b x b tile + output (the running m, l and acc of a
    query block are O(b d), left out); local (banded): L (2w + 1) + output; block: L b + output;
    linear (as al.linear_attention): phi(Q), phi(K), the d x d state, output = 3 L d + d^2.
    """
    L, d = _counts(length, d)
    out = L * d
    cells = {"dense": L * L, "tiled": min(block_size, L) ** 2, "local": L * min(2 * window + 1, L),
             "block": L * min(block_size, L), "linear": 2 * L * d + d * d}
    checks.choice(method, "method", METHODS, expected=f"one of {METHODS}")
    return BYTES * (cells[method] + out)


def _counts(length, d):
    return checks.count(length, "length", low=1), checks.count(d, "d", low=1)
