"""Tests for attnlab.rotation: closed forms and independent constructions as references."""
import math

import pytest
import torch
from hypothesis import given, settings, strategies as st

import attnlab as al
from attnlab.lessons import nb06_positional_encoding as rotation


def d2l_encoding(T, d, base=10000.0):
    """Seed 000's d2l construction, in float64 (an implementation we did not write for attnlab)."""
    X = torch.arange(T, dtype=torch.float64).reshape(-1, 1) / torch.pow(
        base, torch.arange(0, d, 2, dtype=torch.float64) / d)
    P = torch.zeros(T, d, dtype=torch.float64)
    P[:, 0::2] = torch.sin(X)
    P[:, 1::2] = torch.cos(X)
    return P


def generator_rotation(delta, d, base):
    """exp(δ G) with G the skew-symmetric generator of one step: an independent route to M_δ."""
    G = torch.zeros(d, d, dtype=torch.float64)
    for j in range(d // 2):
        w = base ** (-2 * j / d)
        G[2 * j, 2 * j + 1] = w          # d/dδ sin(ω(i+δ)) = ω cos(...)
        G[2 * j + 1, 2 * j] = -w         # d/dδ cos(ω(i+δ)) = -ω sin(...)
    return torch.linalg.matrix_exp(delta * G)


@pytest.mark.parametrize("d", [2, 4, 16, 32, 64])
@pytest.mark.parametrize("base", [10.0, 100.0, 10000.0])
@pytest.mark.parametrize("delta", [0, 1, 3, 17, -5])
def test_rotation_maps_row_i_to_row_i_plus_delta(d, base, delta):
    T = 80
    P = d2l_encoding(T, d, base)
    M = rotation.rotation_matrix(delta, d, base)
    for i in range(max(0, -delta), min(T, T - delta)):
        torch.testing.assert_close(M @ P[i], P[i + delta], atol=1e-12, rtol=0)


@pytest.mark.parametrize("d", [2, 8, 32])
def test_rotation_matrix_is_orthogonal_and_matches_generator(d):
    for delta in (0.0, 1.0, 2.5, -7.0, 40.0):
        M = rotation.rotation_matrix(delta, d, 10000.0)
        torch.testing.assert_close(M @ M.T, torch.eye(d, dtype=torch.float64), atol=1e-12, rtol=0)
        assert abs(torch.linalg.det(M).item() - 1.0) < 1e-12
        torch.testing.assert_close(M, generator_rotation(delta, d, 10000.0), atol=1e-12, rtol=0)


def test_rotations_compose_and_invert():
    d = 16
    M = lambda k: rotation.rotation_matrix(k, d)
    torch.testing.assert_close(M(3) @ M(4), M(7), atol=1e-12, rtol=0)
    torch.testing.assert_close(M(-5), M(5).T, atol=1e-12, rtol=0)


def test_rotation_matrix_is_block_diagonal():
    M = rotation.rotation_matrix(2, 8)
    mask = torch.block_diag(*[torch.ones(2, 2)] * 4).bool()
    assert torch.all(M[~mask] == 0)


def test_rotation_matrix_agrees_with_attnlab_encoding():
    P = al.sinusoidal_encoding(50, 32, dtype=torch.float64)
    M = rotation.rotation_matrix(7, 32)
    torch.testing.assert_close(P[:-7] @ M.T, P[7:], atol=1e-12, rtol=0)


def test_dtype_float32():
    M = rotation.rotation_matrix(1, 8, dtype=torch.float32)
    assert M.dtype == torch.float32
    assert rotation.offset_similarity(torch.arange(3), 8, dtype=torch.float32).dtype == torch.float32


def test_frequencies_and_wavelengths_closed_form():
    d, base = 32, 10000.0
    omega = rotation.frequencies(d, base)
    lam = rotation.wavelengths(d, base)
    assert omega.shape == (16,) and lam.shape == (16,)
    for j in range(16):
        assert math.isclose(omega[j].item(), 1 / base ** (2 * j / d), rel_tol=1e-12)
        assert math.isclose(lam[j].item(), 2 * math.pi * base ** (2 * j / d), rel_tol=1e-12)
    assert rotation.frequencies(5).shape == (3,)       # odd d: ceil(d/2) sine columns


@pytest.mark.parametrize("d,base", [(4, 10.0), (32, 10000.0), (64, 100.0)])
def test_offset_similarity_equals_every_diagonal_of_PPt(d, base):
    T = 60
    P = d2l_encoding(T, d, base)
    S = P @ P.T
    closed = rotation.offset_similarity(torch.arange(-(T - 1), T), d, base)
    for k in range(-(T - 1), T):
        diag = torch.diagonal(S, offset=k)
        torch.testing.assert_close(diag, closed[k + T - 1].expand_as(diag), atol=1e-10, rtol=0)
    assert math.isclose(rotation.offset_similarity(0, d, base).item(), d / 2, rel_tol=1e-12)


def test_similarity_by_offset_mean_and_spread():
    P = d2l_encoding(40, 16)
    mean, spread = rotation.similarity_by_offset(P, 10)
    assert mean.shape == spread.shape == (11,)
    torch.testing.assert_close(mean, rotation.offset_similarity(torch.arange(11), 16), atol=1e-12, rtol=0)
    assert spread.max().item() < 1e-12
    # an encoding that is not sinusoidal: the dot product then depends on i, not only on δ
    mean, spread = rotation.similarity_by_offset(torch.randn(40, 16, generator=torch.Generator().manual_seed(0),
                                                             dtype=torch.float64), 10)
    assert spread.min().item() > 1.0


@settings(max_examples=min(40, settings.default.max_examples), deadline=None)
@given(half=st.integers(1, 32), base=st.floats(2.0, 1e5), delta=st.integers(-30, 30), i=st.integers(0, 30))
def test_property_rotation_any_width_base_offset(half, base, delta, i):
    d = 2 * half
    P = d2l_encoding(100, d, base)
    M = rotation.rotation_matrix(delta, d, base)
    torch.testing.assert_close(M @ P[i + 30], P[i + 30 + delta], atol=1e-11, rtol=0)
    assert math.isclose((P[i + 30] @ P[i + 30 + delta]).item(),
                        rotation.offset_similarity(delta, d, base).item(), abs_tol=1e-10)


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"num_hiddens: expected an even number.*got 7"):
        rotation.rotation_matrix(1, 7)
    with pytest.raises(ValueError, match=r"num_hiddens: expected an even number.*got 5"):
        rotation.offset_similarity(1, 5)
    with pytest.raises(ValueError, match=r"base: expected a number > 0, got -1"):
        rotation.rotation_matrix(1, 8, base=-1.0)
    with pytest.raises(TypeError, match=r"delta: expected a real number, got str"):
        rotation.rotation_matrix("1", 8)
    with pytest.raises(ValueError, match=r"max_offset: expected at most n-1=9, got 10"):
        rotation.similarity_by_offset(torch.zeros(10, 4), 10)
    with pytest.raises(ValueError, match=r"P: expected a 2-D"):
        rotation.similarity_by_offset(torch.zeros(2, 10, 4), 1)
    with pytest.raises(TypeError, match=r"P: expected a torch.Tensor"):
        rotation.similarity_by_offset([[1.0]], 0)


def test_inputs_not_modified():
    deltas = torch.arange(5.0)
    before = deltas.clone()
    rotation.offset_similarity(deltas, 8)
    assert torch.equal(deltas, before)


# ---- RoPE: the rotation applied to queries and keys ----

def complex_rope(x, positions, base=10000.0):
    """Independent reference: pair (a, b) as z = b + i·a, turned by e^{iθ} (a' = Im, b' = Re)."""
    d = x.shape[-1]
    theta = positions.double()[:, None] * base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)   # (n, d/2)
    z = torch.complex(x[..., 1::2].double(), x[..., 0::2].double()) * torch.polar(torch.ones_like(theta), theta)
    return torch.stack([z.imag, z.real], -1).flatten(-2).to(x.dtype)


@pytest.mark.parametrize("dtype,tol", [(torch.float64, 1e-12), (torch.float32, 1e-5)])
@pytest.mark.parametrize("shape", [(1, 2), (5, 8), (2, 3, 7, 16)])
def test_rope_matches_complex_multiplication(dtype, tol, shape):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(*shape, generator=g, dtype=dtype)
    positions = torch.arange(shape[-2]) * 3 + 1
    out = rotation.rope(x, positions)
    assert out.dtype == dtype and out.shape == x.shape
    torch.testing.assert_close(out, complex_rope(x, positions), atol=tol, rtol=0)


def test_rope_default_positions_and_rows_of_P():
    P = al.sinusoidal_encoding(30, 16, dtype=torch.float64)
    torch.testing.assert_close(rotation.rope(P[:1].expand(30, 16)), P, atol=1e-12, rtol=0)   # P_i = M_i P_0


def test_rope_equals_rotation_matrix_and_leaves_input_alone():
    x = torch.randn(4, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    before = x.clone()
    out = rotation.rope(x, torch.tensor([0, 2, 5, 9]))
    for row, i in enumerate((0, 2, 5, 9)):
        torch.testing.assert_close(out[row], rotation.rotation_matrix(i, 8) @ x[row], atol=1e-12, rtol=0)
    assert torch.equal(x, before)


@settings(max_examples=min(40, settings.default.max_examples), deadline=None)
@given(i=st.integers(0, 500), j=st.integers(0, 500), shift=st.integers(-200, 200), seed=st.integers(0, 10 ** 6))
def test_rope_scores_depend_only_on_the_offset(i, j, shift, seed):
    q, k = torch.randn(2, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))
    score = lambda a, b: rotation.rope(q[None], torch.tensor([a]))[0] @ rotation.rope(k[None], torch.tensor([b]))[0]
    expected = q @ rotation.rotation_matrix(j - i, 16) @ k
    assert abs(score(i, j) - expected) < 1e-9
    if i + shift >= 0 and j + shift >= 0:
        assert abs(score(i + shift, j + shift) - expected) < 1e-9


def test_rope_bad_input():
    with pytest.raises(TypeError, match="x: expected a torch.Tensor"):
        rotation.rope([[1.0, 2.0]])
    with pytest.raises(ValueError, match=r"x: expected an even last dim \(pairs of columns\), got 3"):
        rotation.rope(torch.zeros(2, 3))
    with pytest.raises(ValueError, match=r"x: expected at least 2 dims"):
        rotation.rope(torch.zeros(4))
    with pytest.raises(ValueError, match=r"positions: expected shape \(2,\), one per row of x, got \(3,\)"):
        rotation.rope(torch.zeros(2, 4), torch.arange(3))
