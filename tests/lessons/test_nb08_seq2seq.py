import pytest
import torch

from attnlab.lessons.nb08_bahdanau_attention import dates, seq2seq


@pytest.mark.parametrize("kind", ["additive", "dot"])
def test_pretrained_translates_unseen_dates(kind):
    model = seq2seq.pretrained(kind)
    assert seq2seq.accuracy(model, n=100, seed=777) >= 0.97
    out, w = seq2seq.translate(model, ["7 mar 1994", "31 dec 2049"])
    assert out == ["1994-03-07", "2049-12-31"]
    assert w.shape == (2, dates.TARGET_LEN + 1, dates.MAX_SOURCE_LEN)
    assert torch.allclose(w.sum(-1), torch.ones(2, dates.TARGET_LEN + 1))
    assert (w[0, :, 10:] == 0).all()                      # padding of the 10-character input


def test_additive_alignment_reads_the_year_for_the_year():
    _, w = seq2seq.translate(seq2seq.pretrained("additive"), ["17 mar 1994"])
    year_cols = slice(7, 11)                                # "1994" in the input
    assert w[0, :4, year_cols].sum(-1).min() > 0.5          # output chars 0-3 are the year


def test_training_lowers_the_loss_and_is_deterministic():
    def run():
        torch.manual_seed(0)
        model = seq2seq.DateTranslator("dot", embed=8, hidden=8)
        seen = []
        losses = seq2seq.train(model, steps=6, batch_size=16, seed=2, callback=lambda s, l: seen.append(s))
        return losses, seen
    (losses, seen), (again, _) = run(), run()
    assert seen == list(range(6)) and losses == again
    assert losses[-1] < losses[0]


def test_errors():
    with pytest.raises(ValueError, match="attention: expected 'additive' or 'dot', got 'cosine'"):
        seq2seq.DateTranslator("cosine")
    with pytest.raises(ValueError, match="at most 11 characters"):
        seq2seq.translate(seq2seq.pretrained("dot"), "1 january 2000")
    with pytest.raises(ValueError, match="steps: expected an int >= 1, got 0"):
        seq2seq.train(seq2seq.DateTranslator(), steps=0)


def test_trace_rebuilds_the_weights_from_the_additive_formula():
    model = seq2seq.pretrained("additive")
    run = seq2seq.trace(model, " 17 Mar 1994")
    assert run["source"] == "17 mar 1994" and run["output"] == "1994-03-17"
    assert run["states"].shape == (11, 64) and run["queries"].shape == (11, 64)
    att = model.attention
    e = att.w_v(torch.tanh(att.W_q(run["queries"])[:, None] + att.W_k(run["states"])[None])).squeeze(-1)
    torch.testing.assert_close(torch.softmax(e, -1), run["weights"])
    _, w = seq2seq.translate(model, "17 mar 1994")
    torch.testing.assert_close(w[0], run["weights"])
