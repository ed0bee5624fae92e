"""mask_gallery.py: bottom-right causal masks against torch.nn.attention.bias.causal_lower_right,
block masks against a loop, and the three fully-masked-row conventions against torch itself
(plain softmax of -inf, F.scaled_dot_product_attention, d2l's -1e6 fill written out here)."""
import warnings

import pytest
import torch
from torch.nn import functional as F
from torch.nn.attention.bias import causal_lower_right, causal_upper_left

import attnlab as al
from attnlab.lessons.nb07_masks_and_efficient_attention.masks import (
    MASK_KINDS,
    block_mask,
    causal_mask_bottom_right,
    make_mask,
    masked_row_conventions,
)

SIZES = [(1, 1), (2, 5), (5, 5), (5, 2), (3, 7), (7, 3)]


def _torch_mask(bias):
    with warnings.catch_warnings():                 # torch warns that Tq > Tk rows will be NaN
        warnings.simplefilter("ignore")
        return bias._materialize()


@pytest.mark.parametrize("Tq,Tk", SIZES)
def test_bottom_right_matches_torch_causal_lower_right(Tq, Tk):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _torch_mask(causal_lower_right(Tq, Tk))
    assert torch.equal(causal_mask_bottom_right(Tq, Tk), ref)


@pytest.mark.parametrize("Tq,Tk", SIZES)
def test_top_left_contract_unchanged_matches_causal_upper_left(Tq, Tk):
    assert torch.equal(al.causal_mask(Tq, Tk), _torch_mask(causal_upper_left(Tq, Tk)))
    assert torch.equal(make_mask("causal top-left", Tq, Tk), al.causal_mask(Tq, Tk))


def test_bottom_right_last_query_sees_every_key_and_equals_top_left_when_square():
    assert causal_mask_bottom_right(2, 5)[-1].all()
    assert causal_mask_bottom_right(2, 5).sum(-1).tolist() == [4, 5]
    assert al.causal_mask(2, 5).sum(-1).tolist() == [1, 2]
    assert torch.equal(causal_mask_bottom_right(6, 6), al.causal_mask(6, 6))


def test_bottom_right_in_sdpa_matches_torch_causal_bias():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, n, 4, generator=g, dtype=torch.float64) for n in (3, 7, 7))
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=causal_lower_right(3, 7))
    out, _ = al.scaled_dot_product_attention(q, k, v, causal_mask_bottom_right(3, 7))
    torch.testing.assert_close(out, ref, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("Tq,Tk,b", [(6, 6, 2), (7, 5, 3), (4, 4, 4), (5, 5, 1), (3, 3, 10)])
def test_block_mask_against_loop(Tq, Tk, b):
    ref = torch.tensor([[i // b == j // b for j in range(Tk)] for i in range(Tq)])
    assert torch.equal(block_mask(Tq, Tk, b), ref)


def test_make_mask_kinds():
    assert torch.equal(make_mask("local", 5, 5, window=1), al.local_mask(5, 5, 1))
    assert make_mask("padding", 3, 6, valid_len=4).tolist() == [[True] * 4 + [False] * 2] * 3
    assert make_mask("padding", 3, 6).shape == (3, 6)
    for kind in MASK_KINDS:
        assert make_mask(kind, 4, 6).dtype == torch.bool
    with pytest.raises(ValueError, match="kind: expected one of"):
        make_mask("diagonal", 3, 3)


def test_bad_sizes_raise():
    with pytest.raises(ValueError, match="num_keys"):
        causal_mask_bottom_right(2, -1)
    with pytest.raises(ValueError, match="block_size"):
        block_mask(3, 3, 0)


def test_three_conventions_for_a_fully_masked_row():
    scores = torch.tensor([[0.3, -1.2, 0.8, 0.1], [0.5, -0.4, 2.0, 1.0]], dtype=torch.float64)
    mask = torch.tensor([[True, True, False, False], [False] * 4])
    c = masked_row_conventions(scores, mask)
    # uniform: d2l's -1e6 fill, written out here
    ref_uniform = torch.softmax(torch.where(mask, scores, torch.tensor(-1e6, dtype=torch.float64)), -1)
    torch.testing.assert_close(c["uniform"], ref_uniform)
    assert c["uniform"][1].tolist() == [0.25] * 4
    assert torch.isnan(c["nan"][1]).all() and not torch.isnan(c["nan"][0]).any()
    # zero: what torch's SDPA does since 2.5; with equal scores and identity values its output
    # row is the weights themselves
    q, k = torch.ones(2, 1, 1, dtype=torch.float64), torch.zeros(2, 4, 1, dtype=torch.float64)
    v = torch.eye(4, dtype=torch.float64).expand(2, 4, 4)
    sdpa = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None, :])   # (2, 1, 4)
    assert sdpa[1].abs().sum() == 0                 # fully masked row: zero output in torch too
    assert sdpa[0, 0].tolist() == [0.5, 0.5, 0.0, 0.0]
    assert c["zero"][1].tolist() == [0.0] * 4
    torch.testing.assert_close(c["zero"][0], c["nan"][0])
    torch.testing.assert_close(c["zero"][0], c["uniform"][0])
    torch.testing.assert_close(c["zero"], al.masked_softmax(scores, mask))


def test_nan_row_poisons_the_next_layer_and_its_gradients():
    """Layer 2 masks the pad position (weight 0), yet 0 * NaN = NaN: with the -inf convention the
    loss and the gradient of layer 2's value projection are NaN; uniform and zero stay finite."""
    mask = torch.tensor([[True, True, False], [False, False, False]])          # row 1: a pad query
    values = torch.tensor([[1.0], [2.0], [3.0]], dtype=torch.float64)
    scores = torch.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, 1.0]], dtype=torch.float64)
    results = {}
    for name in ("uniform", "nan", "zero"):
        hidden = masked_row_conventions(scores, mask)[name] @ values                 # (2, 1) layer 1
        W_V = torch.tensor([[2.0]], dtype=torch.float64, requires_grad=True)
        w2 = torch.tensor([[1.0, 0.0]], dtype=torch.float64)                           # layer 2: pad masked
        loss = (w2 @ (hidden @ W_V)).sum()
        loss.backward()
        results[name] = (loss.detach(), W_V.grad)
    assert torch.isnan(results["nan"][0]) and torch.isnan(results["nan"][1]).all()
    for name in ("uniform", "zero"):
        assert torch.isfinite(results[name][0]) and torch.isfinite(results[name][1]).all()
    torch.testing.assert_close(results["zero"], results["uniform"])


# ---- sparse patterns (seed 002) ----

from attnlab.lessons import nb07_masks_and_efficient_attention as lesson
from attnlab.lessons.nb07_masks_and_efficient_attention import masks


def test_global_mask_rows_and_columns_against_loop():
    m = masks.global_mask(6, 7, (0, 4))
    for i in range(6):
        for j in range(7):
            assert m[i, j] == (i in (0, 4) or j in (0, 4))


def test_random_mask_is_seeded_and_has_r_keys_per_query():
    a = masks.random_mask(10, 12, 3, generator=torch.Generator().manual_seed(1))
    b = masks.random_mask(10, 12, 3, generator=torch.Generator().manual_seed(1))
    c = masks.random_mask(10, 12, 3, generator=torch.Generator().manual_seed(2))
    assert torch.equal(a, b) and not torch.equal(a, c)
    assert a.sum(-1).tolist() == [3] * 10


@pytest.mark.parametrize("n", [1, 2, 9, 33])
def test_log_sparse_mask_against_loop(n):
    m = masks.log_sparse_mask(n)
    for i in range(n):
        want = {i} | {i - 2 ** k for k in range(n.bit_length() + 1) if i - 2 ** k >= 0}
        assert set(torch.nonzero(m[i]).flatten().tolist()) == want
    assert not (m & ~al.causal_mask(n, n)).any()                               # causal


def test_lsh_mask_groups_equal_and_opposite_vectors():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(5, 8, generator=g, dtype=torch.float64)
    x = torch.cat([x, x[:2] * 3.0])                                            # rows 5, 6 = rows 0, 1 scaled
    buckets = masks.lsh_buckets(x, 4, generator=torch.Generator().manual_seed(3))
    assert buckets[5] == buckets[0] and buckets[6] == buckets[1]               # the angle decides, not the length
    m = masks.lsh_mask(x, 4, generator=torch.Generator().manual_seed(3))
    assert torch.equal(m, m.T) and m.diagonal().all()
    assert ((0 <= buckets) & (buckets < 4)).all()


def test_sparse_patterns_compose():
    p = lesson.sparse_patterns(16, window=1, global_tokens=(0,), num_random=2, seed=0)
    assert tuple(p) == masks.SPARSE_PATTERNS
    assert torch.equal(p["Longformer"], p["local"] | masks.global_mask(16, 16, (0,)))
    assert torch.equal(p["BigBird"], p["Longformer"] | p["random"])
    assert torch.equal(p["local"], al.local_mask(16, 16, 1))


def test_sparse_pattern_bad_input():
    with pytest.raises(ValueError, match="global_tokens: expected positions below 4, got 4"):
        masks.global_mask(4, 4, (4,))
    with pytest.raises(ValueError, match="num_random: expected at most num_keys=3, got 4"):
        masks.random_mask(2, 3, 4, generator=torch.Generator())
    with pytest.raises(TypeError, match="generator: expected a torch.Generator, got int"):
        masks.random_mask(2, 3, 1, generator=0)
    with pytest.raises(ValueError, match="num_buckets: expected an even number, got 3"):
        masks.lsh_buckets(torch.zeros(3, 2), 3, generator=torch.Generator())
    with pytest.raises(ValueError, match=r"x: expected a 2-D \(n, d\) tensor"):
        masks.lsh_buckets(torch.zeros(2, 3, 2), 2, generator=torch.Generator())
    with pytest.raises(ValueError, match="length: expected"):
        masks.log_sparse_mask(0)


# ---- seed 001's DotProductAttention ----

def test_seed_dot_product_nan_on_all_padding_and_fix_against_torch():
    torch.manual_seed(0)
    m = lesson.SeedDotProductAttention(8, 16)
    query, keys = torch.randn(3, 8), torch.randn(3, 5, 8)
    mask = torch.tensor([[1, 1, 1, 0, 0], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]])
    out, w = m(query, keys, keys, mask)
    assert w[1].isnan().all() and out[1].isnan().all() and not w[[0, 2]].isnan().any()
    # the seed's weights are softmax(q·k) without 1/sqrt(h): check against a plain computation
    Q, K = m.query(query), m.key(keys)
    raw = torch.einsum("bh,bnh->bn", Q, K)
    torch.testing.assert_close(w[2], torch.softmax(raw[2], -1))
    m.fixed = True
    out_f, w_f = m(query, keys, keys, mask)
    assert torch.equal(w_f[1], torch.zeros(5)) and torch.equal(out_f[1], torch.zeros(16))
    V = m.value(keys)
    ref = F.scaled_dot_product_attention(Q[:, None], K, V, attn_mask=mask.bool()[:, None])[:, 0]
    torch.testing.assert_close(out_f[[0, 2]], ref[[0, 2]], atol=1e-6, rtol=1e-5)
    before = query.clone()
    m(query, keys, keys, mask)
    assert torch.equal(query, before)


def test_score_spread_is_sqrt_d_then_one():
    unscaled, scaled = lesson.score_spread(64)
    assert abs(unscaled - 8.0) < 0.4 and abs(scaled - 1.0) < 0.05
    with pytest.raises(ValueError, match="hidden_dim: expected"):
        lesson.score_spread(0)


# ---- the exercises ----

def my_bottom_right(num_queries, num_keys):
    i = torch.arange(num_queries)[:, None]
    j = torch.arange(num_keys)[None, :]
    return j <= i + (num_keys - num_queries)


def my_masked_softmax(scores, mask):
    filled = scores.masked_fill(~mask, float("-inf"))
    row_max = filled.amax(dim=-1, keepdim=True).clamp_min(-1e30)
    e = torch.exp(filled - row_max)
    total = e.sum(dim=-1, keepdim=True)
    return e / torch.where(total == 0, torch.ones_like(total), total)


def test_exercise_solutions_pass(capsys):
    assert lesson.check_bottom_right(my_bottom_right)
    assert lesson.check_masked_softmax(my_masked_softmax)
    assert capsys.readouterr().out.count("cases match") == 2


@pytest.mark.parametrize("wrong,message", [
    (al.causal_mask, "this is the top-left mask"),
    (lambda q, k: torch.arange(k)[None, :] < torch.arange(q)[:, None] + (k - q), "off by one"),
    (lambda q, k: my_bottom_right(k, q).T, "rows and columns are swapped"),
])
def test_bottom_right_mistakes_recognised(wrong, message, capsys):
    assert not lesson.check_bottom_right(wrong)
    assert "Recognised mistake: " + message in capsys.readouterr().out


@pytest.mark.parametrize("wrong,message", [
    (lambda s, m: torch.softmax(s.masked_fill(~m, float("-inf")), -1), "the fully masked row is NaN"),
    (lambda s, m: torch.softmax(s.masked_fill(~m, -1e9), -1), "the fully masked row is uniform"),
    (lambda s, m: torch.softmax(s, -1), "the mask is ignored"),
    (lambda s, m: my_masked_softmax(s, ~m), "the mask is inverted"),
])
def test_masked_softmax_mistakes_recognised(wrong, message, capsys):
    assert not lesson.check_masked_softmax(wrong)
    assert "Recognised mistake: " + message in capsys.readouterr().out


def test_exercises_not_written_yet(capsys):
    def todo(*args):
        raise NotImplementedError
    assert not lesson.check_bottom_right(todo) and not lesson.check_masked_softmax(todo)
    out = capsys.readouterr().out
    assert out.count("is not written yet") == 2 and "Recognised" not in out
