import torch
from torch.nn import functional as F

from attnlab.lessons import nb08_bahdanau_attention as lesson
from attnlab.lessons.nb08_bahdanau_attention import figures, gru_pooling, live, seq2seq


def _explorer():
    return lesson.play(models={"additive": seq2seq.pretrained("additive"), "dot": seq2seq.pretrained("dot")},
                       text="7 mar 1994")


def test_labels():
    assert figures.source_labels("7 mar") == ["7", "␣", "m", "a", "r"]
    assert figures.output_labels("1994-03-07") == list("1994-03-07") + ["<eos>"]
    assert figures.output_labels("19") == ["1", "9", "<eos>"] + ["·"] * 8


def test_explorer_shows_valid_input_and_refuses_invalid_without_traceback():
    ex = _explorer()
    assert "7←7" in ex.text.value and ex.error.value == ""
    assert ex.axes[0].images[0].get_array().shape == (11, 10)
    ex.date.value = "1 january 2000"
    assert "Input not accepted: expected at most 11 characters" in ex.text.value
    assert ex.error.value == "" and ex.message.get_visible()
    assert "the dimmed heatmaps still show 7 mar 1994" in ex.message.get_text()
    ex.date.value = "31 dec 2049"
    assert not ex.message.get_visible() and "2049-12-31" in ex.axes[1].get_title()
    assert ex.current_source() == "31 dec 2049"


def test_under_a_refusal_the_dimmed_heatmaps_follow_the_menus():
    ex = _explorer()
    ex.date.value = "1 january 2000"             # too long: refused
    assert ex.axes[0].get_title().startswith("additive: 7 mar 1994")
    ex.left.value = "dot"            # the menu and the dimmed picture name the same model
    assert ex.axes[0].get_title().startswith("dot: 7 mar 1994") and ex.message.get_visible()
    assert ex.axes[0].images[0].get_alpha() == 0.15 and ex.error.value == ""
    assert "Input not accepted" in ex.text.value


def test_trainer_adds_its_model_to_the_explorer():
    ex = _explorer()
    tr = lesson.play_trainer(explorer=ex, steps=10, redraws=2)
    tr.controls["scoring"].value = "dot"
    model = tr.train()
    assert tr.progress.value == 10 and len(tr.history["loss"]) == 10 and not tr.button.disabled
    assert "Exact-match accuracy" in tr.status.value
    assert ex.right.value == "yours: dot, 10 steps" and ex.left.value == "additive"
    assert len(tr.lines["loss"].get_xdata()) == 10
    assert model is tr.result and model.attention_kind == "dot"


def test_play_and_play_trainer_take_keywords_and_the_trainer_feeds_that_explorer():
    import pytest
    ex = lesson.play(models={"additive": seq2seq.pretrained("additive")}, text="7 mar 1994")
    assert type(ex) is live.AlignmentExplorer and ex.date.value == "7 mar 1994"
    tr = lesson.play_trainer(explorer=ex, steps=10, redraws=2)
    assert tr.steps.value == 10
    tr.train()
    assert ex.right.value == "yours: additive, 10 steps"                  # its model joined that explorer
    with pytest.raises(TypeError, match="positional"):
        lesson.play({"additive": seq2seq.pretrained("additive")})
    with pytest.raises(TypeError, match="explorer: expected the AlignmentExplorer, got dict"):
        lesson.play_trainer(explorer={"additive": seq2seq.pretrained("additive")})
    with pytest.raises(TypeError, match=r"models\['a'\]: expected a DateTranslator, got str"):
        lesson.play(models={"a": "additive"})
    with pytest.raises(ValueError, match="models: expected at least 1 entries, got 0"):
        lesson.play(models={})
    with pytest.raises(TypeError, match="text: expected a str, got int"):
        lesson.play(models={"a": seq2seq.pretrained("additive")}, text=7)


def test_a_typed_date_is_checked_once_on_its_way_to_the_heatmaps(monkeypatch):
    """The explorer checks the typed text (dates.check_source) and then calls the unchecked internals."""
    ex = _explorer()
    calls = []
    real = figures.dates.check_source
    monkeypatch.setattr(figures.dates, "check_source", lambda text: calls.append(text) or real(text))
    ex.date.value = "8 mar 1994"
    assert calls == ["8 mar 1994"] and "8←8" in ex.text.value


def test_the_scoring_toggle_shows_before_training():
    """Before a press, the picture names the scoring the next press trains (so the toggle answers)."""
    tr = lesson.play_trainer(explorer=_explorer(), steps=10, redraws=2)
    first = bytes(tr.image.value)
    assert tr.extra_ax.get_title() == "no additive model yet: press “Train a fresh model”"
    tr.controls["scoring"].value = "dot"
    assert tr.extra_ax.get_title() == "no dot model yet: press “Train a fresh model”"
    assert bytes(tr.image.value) != first and tr.error.value == ""


def _ticks(ax):
    return "".join(t.get_text() for t in ax.get_xticklabels()).replace("␣", " ")


def test_the_trainer_follows_the_date_typed_in_the_explorer():
    """Before and after training, the trainer's alignment shows the explorer's current date (it used to
    keep the date of the first render as its placeholder's columns), and a refused date keeps the last
    accepted one, as the explorer's dimmed heatmaps do."""
    ex = _explorer()
    tr = lesson.play_trainer(explorer=ex, steps=10, redraws=2)
    assert _ticks(tr.extra_ax) == "7 mar 1994"
    ex.date.value = "31 dec 2049"
    assert _ticks(tr.extra_ax) == "31 dec 2049" and tr.extra_ax.images[0].get_array().shape == (11, 11)
    ex.date.value = "1 january 2000"                  # refused: both panels stay on the last accepted date
    assert _ticks(tr.extra_ax) == "31 dec 2049" and ex.current_source() == "31 dec 2049"
    tr.train()
    assert tr.extra_ax.get_title().startswith("your model after 10 steps: 31 dec 2049 → ")
    ex.date.value = "5 jan 2001"                      # after training: the trained model on the new date
    assert _ticks(tr.extra_ax) == "5 jan 2001"
    assert tr.extra_ax.get_title().startswith("your model after 10 steps: 5 jan 2001 → ")
    assert tr.error.value == ""


def test_trainer_gives_the_same_model_twice_and_leaves_the_global_rng_alone():
    ex = _explorer()
    tr = lesson.play_trainer(explorer=ex, steps=10, redraws=5)
    state = torch.random.get_rng_state()
    first = [p.detach().clone() for p in tr.train().parameters()]
    second = list(tr.train().parameters())
    assert all(torch.equal(a, b) for a, b in zip(first, second))
    assert torch.equal(torch.random.get_rng_state(), state)


def test_seed_pooling_line_fails_and_the_fix_matches_attention_pooling():
    torch.manual_seed(0)
    outputs = torch.randn(10, 2, 8)                       # (T, B, 2h), 2h != T
    weights = torch.softmax(torch.randn(2, 10, 1), dim=1)  # (B, T, 1)
    try:
        gru_pooling.pool(outputs, weights, fixed=False)
        raise AssertionError("expected a shape error")
    except RuntimeError as exc:
        assert "batch1" in str(exc) or "size" in str(exc)
    expected = torch.einsum("tbh,bt->bh", outputs, weights[..., 0])    # sum_j alpha_j h_j
    torch.testing.assert_close(gru_pooling.pool(outputs, weights), expected)


def test_seed_module_is_pooling_with_one_learned_query():
    torch.manual_seed(0)
    m = gru_pooling.SeedGRUAttention(4, 3, 5, fixed=True)
    x = torch.randn(7, 2, 4)
    out, w = m(x)
    assert out.shape == (2, 5) and w.shape == (2, 7, 1)
    h = m.gru(x)[0].transpose(0, 1)                                       # (B, T, 2h)
    w_ref = F.softmax(h @ m.attention.weight[0], dim=-1)                  # one query w for every sequence
    torch.testing.assert_close(w[..., 0], w_ref)
