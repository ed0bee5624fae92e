"""efficient_costs.py: errors vanish when the pattern covers every key (checked against torch's
F.scaled_dot_product_attention), the linear-attention error against a direct O(L^2) evaluation of
the elu+1 kernel written here, and the closed-form counts against hand-computed values."""
import pytest
import torch
from torch.nn import functional as F

from attnlab.lessons.nb07_masks_and_efficient_attention.costs import (
    approximation_errors,
    flops,
    memory_bytes,
    relative_error,
    structured_qkv,
)


def test_structured_qkv_is_seeded_and_local():
    q, k, v = structured_qkv(32, 8, 2)
    q2, _, _ = structured_qkv(32, 8, 2)
    assert torch.equal(q, q2) and q.shape == (32, 8) and v.shape == (32, 2)
    w = torch.softmax(q @ k.T / 8 ** 0.5, -1)
    near = sum(w.diagonal(o).mean() for o in (-1, 0, 1))
    far = w.diagonal(10).mean()
    assert near > 10 * far                        # weight concentrates near the diagonal


def test_errors_zero_when_pattern_covers_all_keys_and_against_torch():
    q, k, v = structured_qkv(16, 8, 3)
    e = approximation_errors(q, k, v, windows=(0, 15), blocks=(1, 16))
    assert e["local"][-1][1:] == (0.0, 0.0) and e["block"][-1][1:] == (0.0, 0.0)
    exact = F.scaled_dot_product_attention(q, k, v)
    diag_only = v                                 # window 0 / block 1: each query sees itself only
    assert e["local"][0][1] == pytest.approx(relative_error(diag_only, exact), rel=1e-12)
    assert e["block"][0][2] == pytest.approx(float((diag_only - exact).abs().max()), rel=1e-12)


def test_linear_error_against_direct_kernel_evaluation():
    q, k, v = structured_qkv(12, 4, 2)
    phi = lambda x: torch.where(x > 0, x + 1, torch.exp(x))       # elu(x) + 1
    kernel = phi(q) @ phi(k).T                                     # (L, L), O(L^2) reference
    direct = (kernel / kernel.sum(-1, keepdim=True)) @ v
    rel, mx = approximation_errors(q, k, v, windows=(), blocks=())["linear"]
    exact = F.scaled_dot_product_attention(q, k, v)
    assert rel == pytest.approx(relative_error(direct, exact), rel=1e-9)
    assert mx == pytest.approx(float((direct - exact).abs().max()), rel=1e-9)


def test_closed_forms():
    assert flops("dense", 1024, 64) == 4 * 1024 ** 2 * 64 == flops("tiled", 1024, 64)
    assert flops("local", 1024, 64, window=8) == 4 * 1024 * 17 * 64
    assert flops("block", 1024, 64, block_size=32) == 4 * 1024 * 32 * 64
    assert flops("linear", 1024, 64) == 4 * 1024 * 64 * 64
    assert flops("local", 10, 4, window=100) == flops("dense", 10, 4)
    assert memory_bytes("dense", 1024, 64) == 4 * (1024 * 1024 + 1024 * 64)
    assert memory_bytes("tiled", 1024, 64, block_size=128) == 4 * (128 * 128 + 1024 * 64)
    assert memory_bytes("linear", 1024, 64) == 4 * (3 * 1024 * 64 + 64 * 64)
    assert memory_bytes("dense", 16384, 64) / memory_bytes("tiled", 16384, 64) > 200


def test_bad_method_raises():
    with pytest.raises(ValueError, match="method: expected one of"):
        flops("sparse", 10, 4)
    with pytest.raises(ValueError, match="method: expected one of"):
        memory_bytes("sparse", 10, 4)
    with pytest.raises(ValueError, match="length"):
        structured_qkv(0)
