"""exercises.py of notebook 08: the references agree with the model's own modules and with einsum,
the solutions pass, and each known mistake is recognised."""
import pytest
import torch

from attnlab.lessons import nb08_bahdanau_attention as lesson
from attnlab.lessons.nb08_bahdanau_attention import exercises, gru_pooling


def test_additive_scores_match_the_models_attention_module():
    model = lesson.pretrained("additive")
    att = model.attention
    run = lesson.trace(model, "17 mar 1994")
    s, H = run["queries"][6], run["states"]
    with torch.no_grad():
        want = att.w_v(torch.tanh(att.W_q(s) + att.W_k(H))).squeeze(-1)
        got = exercises.additive_scores(s, H, att.W_q.weight, att.W_k.weight, att.w_v.weight[0])
    torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-6)
    torch.testing.assert_close(torch.softmax(got, -1), run["weights"][6], atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_context_matches_einsum_and_the_fixed_pool(dtype):
    g = torch.Generator().manual_seed(0)
    outputs = torch.randn(7, 3, 10, generator=g, dtype=dtype)
    weights = torch.softmax(torch.randn(3, 7, 1, generator=g, dtype=dtype), dim=1)
    want = torch.einsum("nbd,bn->bd", outputs, weights[..., 0])
    torch.testing.assert_close(exercises.context(outputs, weights), want)
    torch.testing.assert_close(gru_pooling.pool(outputs, weights, fixed=True), want)


def my_additive_scores(s, H, W_q, W_k, w_v):
    return torch.tanh(W_q @ s + H @ W_k.T) @ w_v


def my_context(outputs, weights):
    return torch.bmm(outputs.permute(1, 2, 0), weights).squeeze(2)


def test_solutions_pass(capsys):
    assert lesson.check_additive_scores(my_additive_scores)
    assert lesson.check_context(my_context)
    assert lesson.check_context(lambda o, w: torch.einsum("nbd,bn->bd", o, w[..., 0]))
    assert capsys.readouterr().out.count("cases match") == 3


@pytest.mark.parametrize("wrong,message", [
    (lambda s, H, Wq, Wk, wv: torch.softmax(my_additive_scores(s, H, Wq, Wk, wv), -1), "you returned the weights"),
    (lambda s, H, Wq, Wk, wv: (Wq @ s + H @ Wk.T) @ wv, "the tanh is missing"),
    (lambda s, H, Wq, Wk, wv: torch.tanh(H @ Wk.T) @ wv * 0 + H @ Wk.T @ wv, "the query is missing"),
])
def test_score_mistakes_recognised(wrong, message, capsys):
    assert not lesson.check_additive_scores(wrong)
    assert "Recognised mistake: " + message in capsys.readouterr().out


@pytest.mark.parametrize("wrong,message", [
    (lambda o, w: torch.bmm(o.transpose(0, 1), w).squeeze(2), "this is seed 001's line"),
    (lambda o, w: o.mean(0), "you averaged over time"),
    (lambda o, w: (o * w.transpose(0, 1)).sum(-1).T, "you summed over the features"),
])
def test_context_mistakes_recognised(wrong, message, capsys):
    assert not lesson.check_context(wrong)
    assert "Recognised mistake: " + message in capsys.readouterr().out


def test_not_written_yet(capsys):
    def todo(*args):
        raise NotImplementedError
    assert not lesson.check_additive_scores(todo) and not lesson.check_context(todo)
    out = capsys.readouterr().out
    assert out.count("is not written yet") == 2 and "Recognised" not in out
