"""Exercise 3 of notebook 07 (te.py): the reference tile update is flash attention's, a
correct answer is accepted, a stub is reported as one, and each usual mistake gets its own hint."""
import math

import pytest
import torch

import attnlab as al
from attnlab.lessons import nb07_masks_and_efficient_attention as lesson
from attnlab.lessons.nb07_masks_and_efficient_attention import exercises as te


def run_tiles(q, k, v, b):
    """Dense attention computed with te.tile_update only, tile by tile."""
    s_all = q @ k.T / math.sqrt(q.shape[-1])
    out = []
    for q0 in range(0, len(q), b):
        s = s_all[q0:q0 + b]
        state = (torch.full((len(s), 1), float("-inf"), dtype=q.dtype), torch.zeros(len(s), 1, dtype=q.dtype),
                 torch.zeros(len(s), v.shape[-1], dtype=q.dtype))
        for k0 in range(0, len(k), b):
            state = te.tile_update(*state, s[:, k0:k0 + b], v[k0:k0 + b])
        out.append(state[2] / state[1])
    return torch.cat(out)


@pytest.mark.parametrize("b", [1, 2, 3, 8])
def test_the_reference_update_is_exact_attention_and_the_lessons_step_through(b):
    q, k, v = lesson.toy_problem()
    mine = run_tiles(q, k, v, b)
    torch.testing.assert_close(mine, torch.softmax(q @ k.T / 2.0, -1) @ v, atol=1e-12, rtol=0)     # closed form
    torch.testing.assert_close(mine, torch.nn.functional.scaled_dot_product_attention(q, k, v), atol=1e-12, rtol=0)
    torch.testing.assert_close(mine, al.tiled_attention(q, k, v, block_size=b), atol=1e-12, rtol=0)
    torch.testing.assert_close(mine, list(lesson.tiled_attention_steps(q, k, v, block_size=b))[-1]["out"],
                               atol=1e-12, rtol=0)


def test_the_reference_update_matches_the_step_through_state_after_every_tile():
    q, k, v = lesson.toy_problem()
    s = q[:2] @ k.T / 2.0
    state = (torch.full((2, 1), float("-inf"), dtype=q.dtype), torch.zeros(2, 1, dtype=q.dtype),
             torch.zeros(2, 1, dtype=q.dtype))
    for k0, st in zip(range(0, 8, 2), list(lesson.tiled_attention_steps(q, k, v, block_size=2))[:4]):
        state = te.tile_update(*state, s[:, k0:k0 + 2], v[k0:k0 + 2])
        torch.testing.assert_close(state[0][:, 0], st["m"], atol=1e-14, rtol=0)
        torch.testing.assert_close(state[1][:, 0], st["l"], atol=1e-14, rtol=0)
        torch.testing.assert_close(state[2], st["acc"], atol=1e-14, rtol=0)


def test_the_cases_include_a_rising_max_and_a_tile_that_does_not_raise_it():
    cases = te.tile_cases()
    m, _, _, s, _ = cases[1]
    assert (s.amax(-1, keepdim=True) > m).any()                                    # tile 2 raises the max
    m, _, _, s, _ = cases[2]
    assert s[0].max() < m[0, 0]                                                    # tile 4 does not, for query 0
    assert torch.isinf(cases[3][3]).any()                                          # a masked score


def correct(m, l, acc, scores, v):
    m_new = torch.maximum(m, scores.amax(-1, keepdim=True))
    p, rescale = torch.exp(scores - m_new), torch.exp(m - m_new)
    return m_new, l * rescale + p.sum(-1, keepdim=True), acc * rescale + p @ v


def test_a_correct_answer_is_accepted(capsys):
    assert lesson.check_tile_update(correct) is True
    out = capsys.readouterr().out
    assert "all 5 cases match" in out and "Hint" not in out and "Recognised" not in out


def test_the_stub_is_reported_as_not_written(capsys):
    def my_tile_update(m, l, acc, scores, v):
        raise NotImplementedError
    assert lesson.check_tile_update(my_tile_update) is False
    assert "my_tile_update is not written yet" in capsys.readouterr().out


def no_acc_rescale(m, l, acc, s, v):
    m_new = torch.maximum(m, s.amax(-1, keepdim=True))
    p = torch.exp(s - m_new)
    return m_new, l * torch.exp(m - m_new) + p.sum(-1, keepdim=True), acc + p @ v


def no_l_rescale(m, l, acc, s, v):
    m_new = torch.maximum(m, s.amax(-1, keepdim=True))
    p = torch.exp(s - m_new)
    return m_new, l + p.sum(-1, keepdim=True), acc * torch.exp(m - m_new) + p @ v


def inverted(m, l, acc, s, v):
    m_new = torch.maximum(m, s.amax(-1, keepdim=True))
    p = torch.exp(s - m_new)
    r = torch.where(torch.isinf(m), torch.zeros_like(m), torch.exp(m_new - m))
    return m_new, l * r + p.sum(-1, keepdim=True), acc * r + p @ v


def tile_max(m, l, acc, s, v):
    t = s.amax(-1, keepdim=True)
    p = torch.exp(s - t)
    return t, l * torch.exp(m - t) + p.sum(-1, keepdim=True), acc * torch.exp(m - t) + p @ v


def normalised(m, l, acc, s, v):
    m_new, l_new, acc_new = correct(m, l, acc, s, v)
    return m_new, l_new, acc_new / l_new


def no_max(m, l, acc, s, v):
    p = torch.exp(s)
    return torch.maximum(m, s.amax(-1, keepdim=True)), l + p.sum(-1, keepdim=True), acc + p @ v


@pytest.mark.parametrize("fn, words", [
    (no_acc_rescale, "acc is not rescaled"), (no_l_rescale, "l is not rescaled"),
    (inverted, "the rescale is upside down"), (tile_max, "m is the tile's own max"),
    (normalised, "acc is divided by l"), (no_max, "exp(scores) without subtracting the max")])
def test_each_usual_mistake_is_recognised(fn, words, capsys):
    assert lesson.check_tile_update(fn) is False
    out = capsys.readouterr().out
    assert f"Recognised mistake: {words}" in out
    others = [h.message.split(":")[0] for h in te.TILE_HINTS[:6] if not h.message.startswith(words)]   # the mistakes
    assert not [o for o in others if f"Recognised mistake: {o}:" in out], out            # and no other mistake's hint


def test_a_wrong_return_is_reported_in_words(capsys):
    assert lesson.check_tile_update(lambda m, l, acc, s, v: acc) is False
    assert "raised TypeError: expected three tensors (m, l, acc), got Tensor" in capsys.readouterr().out
    assert lesson.check_tile_update(lambda m, l, acc, s, v: (m, l, acc[:, :0])) is False
    assert "raised ValueError: expected shapes m" in capsys.readouterr().out
