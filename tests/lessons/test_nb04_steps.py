"""attnlab.walkthrough: the six steps against torch's own attention, and the cost formulas."""
import math

import numpy as np
import pytest
import torch
from torch.nn import functional as F

import attnlab as al
from attnlab.lessons.nb04_self_attention_walkthrough import steps as wt
from attnlab.lessons.nb04_self_attention_walkthrough.data import thinking_machines, toy_sentence, translation_pair


def _qkv(d):
    return d["X"] @ d["W_Q"], d["X"] @ d["W_K"], d["X"] @ d["W_V"]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("d_k", [1, 4, 64, 256])
def test_steps_match_torch_sdpa(dtype, d_k):
    d = thinking_machines(d_k=d_k, dtype=dtype)
    steps = wt.self_attention_steps(d["X"], d["W_Q"], d["W_K"], d["W_V"])
    q, k, v = _qkv(d)
    want = F.scaled_dot_product_attention(q[None], k[None], v[None])[0]
    tol = dict(atol=1e-5, rtol=1e-4) if dtype == torch.float32 else dict(atol=1e-12, rtol=1e-10)
    torch.testing.assert_close(steps["output"], want, **tol)
    torch.testing.assert_close(steps["weights"], torch.softmax(q @ k.T / math.sqrt(d_k), -1), **tol)
    assert steps["output"].dtype == dtype


def test_intermediate_results():
    d = thinking_machines()
    s = wt.self_attention_steps(d["X"], d["W_Q"], d["W_K"], d["W_V"])
    assert s["sqrt_d_k"] == 8.0 and s["d_k"] == 64
    assert s["q"].shape == (2, 64) and s["scores"].shape == (2, 2) and s["weighted"].shape == (2, 2, 64)
    torch.testing.assert_close(s["scores"][0, 1], torch.dot(s["q"][0], s["k"][1]))
    torch.testing.assert_close(s["scaled"], s["scores"] / 8)
    torch.testing.assert_close(s["weights"].sum(-1), torch.ones(2, dtype=torch.float64))
    torch.testing.assert_close(s["weighted"].sum(1), s["output"])


@pytest.mark.parametrize("causal", [False, True])
def test_steps_and_masks_match_attnlab_and_torch(causal):
    d = toy_sentence(d_k=16)
    mask = al.causal_mask(6, 6) if causal else None
    steps = wt.self_attention_steps(d["X"], d["W_Q"], d["W_K"], d["W_V"], mask)
    out, w = steps["output"], steps["weights"]
    q, k, v = _qkv(d)
    ref_out, ref_w = al.scaled_dot_product_attention(q, k, v, causal=causal)
    torch.testing.assert_close(out, ref_out)
    torch.testing.assert_close(w, ref_w)
    torch.testing.assert_close(steps["output"], ref_out)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, is_causal=causal))


def test_fully_masked_query_gets_zero_weights():
    d = toy_sentence(d_k=8)
    mask = torch.ones(6, 6, dtype=torch.bool)
    mask[5] = False
    s = wt.self_attention_steps(d["X"], d["W_Q"], d["W_K"], d["W_V"], mask)
    assert torch.equal(s["weights"][5], torch.zeros(6, dtype=torch.float64))
    assert torch.equal(s["output"][5], torch.zeros(8, dtype=torch.float64))


def test_toy_data():
    d = toy_sentence()
    assert torch.equal(d["X"][0], d["X"][4])                  # "The" and "the" share a vector
    assert not torch.equal(d["X"][0], d["X"][1])
    t = translation_pair()
    assert t["W_Q"] is t["W_K"]
    q, k, v = t["X_target"] @ t["W_Q"], t["X_source"] @ t["W_K"], t["X_source"] @ t["W_V"]
    _, w = al.scaled_dot_product_attention(q, k, v)
    assert w.argmax(-1).tolist() == [0, 2, 1, 3]             # le-the, chat-cat, noir-black, dort-sleeps


def test_short_and_tables():
    assert wt.short(torch.tensor([1.0, -2.0, 3.0, 4.0, 5.0])) == "[1.00, -2.00, 3.00, 4.00, …]"
    assert wt.short(torch.tensor([1.0, 2.0])) == "[1.00, 2.00]"
    d = thinking_machines()
    s = wt.self_attention_steps(d["X"], d["W_Q"], d["W_K"], d["W_V"])
    table = wt.step_table(s, d["words"], step=3)
    assert [n for n, _, _ in table] == [0, 1, 1, 1, 2, 3, 4, 5, 6]
    assert table[6][2] == ["?", "?"] and table[5][2] != ["?", "?"]
    for step in range(1, 7):
        assert wt.describe_step(s, d["words"], step).startswith(f"Step {step}")


def test_costs():
    n = np.array([1.0, 10.0, 100.0])
    np.testing.assert_allclose(wt.layer_cost("self-attention", n, 8), n ** 2 * 8)
    np.testing.assert_allclose(wt.layer_cost("RNN", n, 8), n * 64)
    np.testing.assert_allclose(wt.layer_cost("CNN", n, 8, k=3), 3 * n * 64)
    d = 512
    assert wt.crossover(d) == d and wt.crossover(d, k=3, versus="CNN") == 3 * d
    assert wt.layer_cost("self-attention", d + 1, d) > wt.layer_cost("RNN", d + 1, d)
    assert wt.layer_cost("self-attention", d - 1, d) < wt.layer_cost("RNN", d - 1, d)
    assert wt.path_length("CNN", 81.0, 3) == 27 and wt.path_length("CNN", 81.0, 3, dilated=True) == pytest.approx(4)
    assert wt.path_length("self-attention", 1000.0) == 1
    assert "O(log_κ n)" in wt.complexity_table()


def test_errors():
    d = thinking_machines(d_k=8)
    with pytest.raises(ValueError, match="W_K: expected 8 columns"):
        wt.self_attention_steps(d["X"], d["W_Q"], d["W_K"][:, :4], d["W_V"])
    with pytest.raises(ValueError, match=r"W_Q: expected shape \(512, size\)"):
        wt.self_attention_steps(d["X"], d["W_Q"][:10], d["W_K"], d["W_V"])
    with pytest.raises(ValueError, match="X: expected shape"):
        wt.self_attention_steps(d["X"][None], d["W_Q"], d["W_K"], d["W_V"])
    with pytest.raises(ValueError, match="mask: expected a shape"):
        wt.self_attention_steps(d["X"], d["W_Q"], d["W_K"], d["W_V"], torch.ones(3, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="kind: expected one of"):
        wt.layer_cost("LSTM", 10, 8)
    with pytest.raises(ValueError, match="versus: expected"):
        wt.crossover(8, versus="self-attention")


def test_sentence_attention_masks():
    words, w = wt.sentence_attention(16)
    assert words == wt.SENTENCE and torch.allclose(w.sum(-1), torch.ones(6, dtype=torch.float64))
    torch.testing.assert_close(w[0], w[4])                    # "The" and "the": same vector, same row
    _, w = wt.sentence_attention(16, causal=True)
    assert torch.equal(w.triu(1), torch.zeros(6, 6, dtype=torch.float64)) and w[0, 0] == 1
    words, w = wt.sentence_attention(16, padding=2)
    assert words[-2:] == ("<pad>", "<pad>") and torch.equal(w[:, 4:], torch.zeros(6, 2, dtype=torch.float64))
    torch.testing.assert_close(w.sum(-1), torch.ones(6, dtype=torch.float64))   # pad queries still attend
    words, w = wt.sentence_attention(16, padding=2, mask_pad_queries=True, causal=True)
    assert torch.equal(w[4:], torch.zeros(2, 6, dtype=torch.float64))
    d = toy_sentence(words, d_k=16)
    q, k, v = _qkv(d)
    ref = torch.softmax((q[:4] @ k[:4].T / 4).masked_fill(~al.causal_mask(4, 4), float("-inf")), -1)
    torch.testing.assert_close(w[:4, :4], ref)
    with pytest.raises(ValueError, match="padding: expected at most 6"):
        wt.sentence_attention(16, padding=7)


def test_exercise_checks_pass_the_answers_and_name_mistakes(capsys):
    import math

    import attnlab as al
    from attnlab.lessons import nb04_self_attention_walkthrough as lesson

    def attention(Q, K, V):
        return torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1]), -1) @ V

    assert lesson.check_attention(attention)
    wrong = {"no ÷ √d_k": lambda Q, K, V: torch.softmax(Q @ K.transpose(-2, -1), -1) @ V,
             "divided by d_k, not by √d_k": lambda Q, K, V: torch.softmax(Q @ K.transpose(-2, -1) / Q.shape[-1], -1) @ V,
             "softmax ran over the queries": lambda Q, K, V: torch.softmax(
                 Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1]), -2) @ V,
             "after the softmax": lambda Q, K, V: torch.softmax(Q @ K.transpose(-2, -1), -1) @ V / math.sqrt(Q.shape[-1])}
    capsys.readouterr()
    for message, fn in wrong.items():
        assert not lesson.check_attention(fn)
        assert message in capsys.readouterr().out

    def masked(S, m):
        w = torch.softmax(S.masked_fill(~m, float("-inf")), -1)
        return torch.where(m.any(-1, keepdim=True), w, torch.zeros_like(w))

    assert lesson.check_masked_softmax(masked) and lesson.check_masked_softmax(al.masked_softmax)
    wrong = {"got NaN": lambda S, m: torch.softmax(S.masked_fill(~m, float("-inf")), -1),
             "uniform weights": lambda S, m: torch.softmax(S.masked_fill(~m, -1e6), -1),
             "wrong way round": lambda S, m: al.masked_softmax(S, ~m),
             "not applied": lambda S, m: torch.softmax(S, -1)}
    capsys.readouterr()
    for message, fn in wrong.items():
        assert not lesson.check_masked_softmax(fn)
        assert message in capsys.readouterr().out
