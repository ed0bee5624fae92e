"""Lesson 11: the repeats task, the attention-only model, the hand-built circuit, the scores, ablation.

References the lesson did not write: torch's scaled_dot_product_attention for one layer, a direct loop over
positions for the scores, the Frobenius-norm formula written out for K-composition."""
import math

import pytest
import torch
from hypothesis import given, settings, strategies as st
from torch.nn import functional as F

from attnlab.lessons.nb11_induction_heads import (
    analysis,
    circuits,
    data,
    exercises,
    figures,
    live,
    model,
    shipped,
    training,
)


def test_repeats_has_the_documented_shape_and_kinds():
    b = data.repeats(5, seed=0)
    assert b.tokens.shape == b.predictable.shape == (5, data.CONTEXT)
    assert b.tokens.dtype == torch.int64 and b.predictable.dtype == torch.bool
    assert (b.tokens[:, 0] == data.BOS).all() and (b.tokens[:, 1:] >= 1).all() and (b.tokens < data.VOCAB).all()
    assert torch.equal(data.repeats(5, seed=0).tokens, b.tokens)          # seeded: the same batch again


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), low=st.integers(2, 23), span=st.integers(0, 21))
def test_each_sequence_is_x_then_x_of_distinct_symbols_and_predictable_is_exact(seed, low, span):
    high = min(low + span, 23)
    b = data.repeats(8, lengths=(low, high), seed=seed)
    for tokens, predictable, L in zip(b.tokens.tolist(), b.predictable.tolist(), b.lengths.tolist()):
        assert low <= L <= high
        x = tokens[1:L + 1]
        assert len(set(x)) == L and tokens[L + 1:2 * L + 1] == x
        # the next token of t is determined by the first copy exactly when t and t+1 are both in the second copy
        assert [t for t, p in enumerate(predictable) if p] == list(range(L + 1, 2 * L))
        for t in range(L + 1, 2 * L):
            first = tokens.index(tokens[t])                  # its first occurrence
            assert tokens[first + 1] == tokens[t + 1]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("positions", ["learned", "rope"])
def test_a_layer_is_torchs_attention_per_head(dtype, positions):
    m = model.AttentionOnly(layers=2, width=16, heads=2, positions=positions, seed=3).to(dtype)
    b = data.repeats(3, seed=1)
    stream = m.embed[b.tokens] + torch.randn(3, data.CONTEXT, 16, dtype=dtype, generator=torch.Generator().manual_seed(0))
    out, weights = model.layer_attention(m, 1, stream)
    qk_in = stream + m.position if positions == "learned" else stream
    expected = torch.zeros_like(stream)
    for h in range(2):
        q, k, v = qk_in @ m.W_Q[1, h].T, qk_in @ m.W_K[1, h].T, stream @ m.W_V[1, h].T
        if positions == "rope":
            q, k = al_rope(q), al_rope(k)
        z = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        expected += z @ m.W_O[1, h].T
    tol = 1e-12 if dtype == torch.float64 else 1e-5
    torch.testing.assert_close(out, expected, atol=tol, rtol=tol)
    assert torch.allclose(weights.sum(-1), torch.ones((), dtype=dtype)) and (weights.triu(1) == 0).all()


def al_rope(x):
    """attnlab's RoPE (attnlab/core/positional.py, notebooks 06 and 12), one row per position."""
    from attnlab.core.positional import rope
    return rope(x)


def su_rope(x):
    """RoPE as Su et al. write it (pair j of row i times e^{+i θ}, θ = i · 10000^(-2j/d)) by complex numbers: the
    sign convention notebook 11 used before it took the core's RoPE (which turns by e^{-i θ}, as notebook 06 teaches)."""
    *lead, n, d = x.shape
    z = torch.view_as_complex(x.reshape(*lead, n, d // 2, 2).contiguous())
    angle = torch.arange(n, dtype=torch.float64)[:, None] * 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    return torch.view_as_real(z * torch.polar(torch.ones_like(angle), angle).to(z.dtype)).reshape(x.shape)


def resigned(state):
    """The state with the second column of every pair of W_Q and W_K negated (an exact change in any dtype):
    then Su's RoPE on it gives the scores the core's RoPE gives on ``state`` (R(-θ) = F R(θ) F, F = diag(1, -1))."""
    out = dict(state)
    for name in ("W_Q", "W_K"):
        w = state[name].clone()
        w[:, :, 1::2, :] = -w[:, :, 1::2, :]
        out[name] = w
    return out


# sha256 of the rope checkpoint's tensors (float16, by name) as trained and shipped with Su's convention
SHIPPED_SU_ROPE = "c04c2121a066af1a4fdd38e69029bafff94e45ffc9c61071869ff5c90ba40d70"


def digest(state):
    import hashlib
    h = hashlib.sha256()
    for k in sorted(state):
        h.update(k.encode())
        h.update(state[k].contiguous().view(torch.int16).numpy().tobytes())
    return h.hexdigest()


def su_model_logits(state, config, tokens):
    """The attention-only model written out with Su's RoPE (the reference for the converted checkpoint)."""
    W = {k: v.double() for k, v in state.items()}
    stream = W["embed"][tokens]
    T = tokens.shape[1]
    for layer in range(config["layers"]):
        out = torch.zeros_like(stream)
        for h in range(config["heads"]):
            q, k = su_rope(stream @ W["W_Q"][layer, h].T), su_rope(stream @ W["W_K"][layer, h].T)
            z = F.scaled_dot_product_attention(q, k, stream @ W["W_V"][layer, h].T, is_causal=True)
            out += W["keep"][layer, h] * z @ W["W_O"][layer, h].T
        stream = stream + out
    return stream[:, :T] @ W["unembed"].T


def test_the_rope_checkpoint_is_the_shipped_one_converted_to_the_cores_sign_exactly(held_out):
    """Notebook 11's rope model trained with Su's sign (θ); the core's RoPE turns by -θ. Its checkpoint was
    converted by negating the second column of each pair of W_Q and W_K: re-signing it back gives the
    shipped tensors bit for bit, and the model with the core's RoPE gives the logits of the shipped weights
    with Su's RoPE (float64: equal to round-off; float32: the same predictions, the same accuracy)."""
    from attnlab.lessons.nb11_induction_heads.checkpoints import CHECKPOINTS
    saved = torch.load(CHECKPOINTS["rope"], weights_only=True)
    assert digest(resigned(saved["state"])) == SHIPPED_SU_ROPE
    assert digest(saved["state"]) != SHIPPED_SU_ROPE                          # the rule can fail
    tokens = held_out.tokens[:64]
    m = shipped.pretrained(variant="rope")
    reference = su_model_logits(resigned(saved["state"]), saved["config"], tokens)
    with torch.no_grad():
        torch.testing.assert_close(m.double()(tokens), reference, atol=1e-10, rtol=1e-10)
        m = shipped.pretrained(variant="rope")
        assert torch.equal(m(tokens).argmax(-1), reference.argmax(-1))
        wrong = su_model_logits(saved["state"], saved["config"], tokens)      # the sign not converted
        assert not torch.allclose(wrong, reference, atol=1e-3)
    r = shipped.measured()["rope"]
    assert abs(r["held-out accuracy"] - model.accuracy(m, held_out)) < 0.005
    torch.testing.assert_close(circuits.scores(m, held_out).induction, torch.tensor(r["induction"]), atol=0.01, rtol=0)


def test_the_hand_built_circuit_completes_every_repeat_and_one_layer_cannot():
    held_out = data.repeats(2000, seed=777)
    assert model.accuracy(model.hand_built(), held_out) == 1.0
    assert model.accuracy(model.hand_built(layers=1), held_out) < 0.05
    s = circuits.scores(model.hand_built(), held_out)
    assert s.previous_token[0, 0] > 0.99 and s.induction[1, 0] > 0.99


def loop_scores(patterns, tokens, lengths):
    """The two scores by a plain loop over sequences and positions."""
    layers, heads = len(patterns), patterns[0].shape[1]
    prev, ind = torch.zeros(layers, heads, dtype=torch.float64), torch.zeros(layers, heads, dtype=torch.float64)
    n_prev = n_ind = 0
    for i, L in enumerate(lengths.tolist()):
        for t in range(1, 2 * L + 1):
            n_prev += 1
            for l in range(layers):
                prev[l] += patterns[l][i, :, t, t - 1].double()
        for t in range(L + 1, 2 * L + 1):
            n_ind += 1
            first = tokens[i, :t].tolist().index(tokens[i, t].item())
            for l in range(layers):
                ind[l] += patterns[l][i, :, t, first + 1].double()
    return prev / n_prev, ind / n_ind


def test_scores_equal_a_loop_over_positions():
    m = model.AttentionOnly(layers=2, width=16, heads=3, seed=5)
    b = data.repeats(6, seed=2)
    s = circuits.scores(m, b)
    prev, ind = loop_scores(m.attention(b.tokens), b.tokens, b.lengths)
    torch.testing.assert_close(s.previous_token.double(), prev, atol=1e-6, rtol=1e-6)
    torch.testing.assert_close(s.induction.double(), ind, atol=1e-6, rtol=1e-6)


def test_k_composition_is_the_normalised_frobenius_norm():
    m = model.AttentionOnly(layers=2, width=12, heads=2, seed=1)
    got = circuits.k_composition(m)
    for a in range(2):
        for b in range(2):
            W_QK = m.W_Q[1, a].T @ m.W_K[1, a]
            W_OV = m.W_O[0, b] @ m.W_V[0, b]
            expected = torch.linalg.norm(W_QK @ W_OV) / (torch.linalg.norm(W_QK) * torch.linalg.norm(W_OV))
            assert math.isclose(got[a, b].item(), expected.item(), rel_tol=1e-5)
    assert ((got >= 0) & (got <= 1)).all()


def test_ablate_removes_one_head_and_leaves_the_model_alone():
    m = model.hand_built()
    held_out = data.repeats(200, seed=3)
    cut = model.ablate(m, 0, 0)
    assert model.accuracy(cut, held_out) < 0.05 and model.accuracy(m, held_out) == 1.0
    assert m.keep.eq(1).all() and cut.keep[0, 0] == 0


def test_training_yields_rows_and_stops_when_asked():
    seen = []
    m, history, _ = training.train(30, seed=0, every=10, on_step=lambda row: seen.append(row) or len(seen) < 12)
    assert len(seen) == 12 and len(history["loss"]) == 12 and not m.training
    assert "scores" in seen[9] and seen[9]["scores"].induction.shape == (2, 4)


@pytest.mark.parametrize("call, error, match", [
    (lambda: data.repeats(0), ValueError, "n: expected an int >= 1"),
    (lambda: data.repeats(2, lengths=(1, 4)), ValueError, r"lengths\[0\]: expected"),
    (lambda: data.repeats(2, lengths=(6, 30)), ValueError, r"lengths: expected repeats that fit the context"),
    (lambda: data.repeats(2, lengths=6), TypeError, r"lengths: expected a pair"),
    (lambda: model.AttentionOnly()(torch.zeros(2, 5)), TypeError, "tokens: expected an integer tensor"),
    (lambda: model.AttentionOnly()(torch.full((2, 5), 64)), ValueError, r"tokens: expected token ids in 0..63, got 64"),
    (lambda: model.AttentionOnly()(torch.zeros(2, 49, dtype=torch.long)), ValueError, "tokens: expected 1 to 48 positions"),
    (lambda: model.AttentionOnly()(torch.zeros(5, dtype=torch.long)), ValueError, r"tokens: expected"),
    (lambda: model.ablate(model.hand_built(), 2, 0), ValueError, r"layer: expected 0..1, got 2"),
    (lambda: model.ablate(model.hand_built(), 0, 1), ValueError, r"head: expected 0..0, got 1"),
    (lambda: model.ablate("model", 0, 0), TypeError, "model: expected an AttentionOnly model"),
    (lambda: circuits.scores(model.hand_built(), torch.zeros(2)), TypeError, "batch: expected a batch of repeats"),
    (lambda: model.hand_built(layers=3), ValueError, "layers: expected one of"),
])
def test_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---- the shipped models (python -m attnlab.lessons.nb11_induction_heads), as issue 35's "done means" states them
@pytest.fixture(scope="module")
def held_out():
    return data.repeats(2000, seed=777)


@pytest.fixture(scope="module")
def shipped_two():
    return shipped.pretrained(layers=2)


def test_pretrained_is_in_eval_mode_and_answers_the_documented_api(shipped_two):
    from attnlab.lessons import nb11_induction_heads as lesson
    assert not shipped_two.training
    b = lesson.repeats(3, seed=0)
    assert shipped_two(b.tokens).shape == (3, lesson.CONTEXT, lesson.VOCAB)
    weights = shipped_two.attention(b.tokens)
    assert len(weights) == 2 and weights[0].shape == (3, 4, lesson.CONTEXT, lesson.CONTEXT)
    s = lesson.scores(shipped_two, b)
    assert s.previous_token.shape == s.induction.shape == (2, 4)
    assert lesson.ablate(shipped_two, 0, 0).keep[0, 0] == 0 and shipped_two.keep.eq(1).all()
    assert shipped.pretrained(layers=1).config["layers"] == 1
    assert shipped.pretrained(variant="rope").config["positions"] == "rope"


def test_the_shipped_two_layer_model_completes_held_out_repeats(shipped_two, held_out):
    assert model.accuracy(shipped_two, held_out) >= 0.99


def test_the_shipped_model_has_a_previous_token_head_and_an_induction_head(shipped_two, held_out):
    s = circuits.scores(shipped_two, held_out)
    assert s.previous_token[0].max() >= 0.6
    assert s.induction[1].max() >= 0.6


def test_removing_the_previous_token_head_breaks_the_circuit_and_other_heads_cost_little(shipped_two, held_out):
    s = circuits.scores(shipped_two, held_out)
    previous = int(s.previous_token[0].argmax())
    assert model.accuracy(model.ablate(shipped_two, 0, previous), held_out) <= 0.5
    others = [model.accuracy(model.ablate(shipped_two, layer, head), held_out)
              for layer in range(2) for head in range(4) if (layer, head) != (0, previous)]
    assert min(others) >= 0.8, others


def test_the_shipped_one_layer_control_cannot_copy(held_out):
    assert model.accuracy(shipped.pretrained(layers=1), held_out) <= 0.4


def test_the_shipped_measurements_are_what_the_checkpoints_give(shipped_two, held_out):
    """results.json was written from the float32 model; the checkpoint is stored in float16."""
    r = shipped.measured()["two_layer"]
    assert abs(r["held-out accuracy"] - model.accuracy(shipped_two, held_out)) < 0.005
    s = circuits.scores(shipped_two, held_out)
    torch.testing.assert_close(s.induction, torch.tensor(r["induction"]), atol=0.01, rtol=0)
    snaps = shipped.snapshots()
    assert snaps.patterns.shape == (len(snaps.steps), 2, 4, 21, 21) and snaps.steps == r["curves"]["step"]


@pytest.mark.parametrize("call, error, match", [
    (lambda: shipped.pretrained(layers=3), ValueError, "layers: expected one of"),
    (lambda: shipped.pretrained(variant="big"), ValueError, "variant: expected one of"),
    (lambda: shipped.pretrained(layers=1, variant="rope"), ValueError, "variant: expected 'standard' for a 1-layer"),
    (lambda: training.train(5, on_step="print"), TypeError, "on_step: expected"),
])
def test_shipped_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---- analysis
def test_loss_by_position_is_the_cross_entropy_at_each_place_of_each_copy():
    m = model.AttentionOnly(layers=2, width=16, heads=2, seed=4)
    first, second = analysis.loss_by_position(m, length=5, n=7, seed=2)
    b = data.repeats_unchecked(7, 5, 5, torch.Generator().manual_seed(2))
    logits = m(b.tokens)
    for i in range(1, 5):                                     # predicting the (i+1)-th symbol of each copy
        want1 = F.cross_entropy(logits[:, i], b.tokens[:, i + 1])
        want2 = F.cross_entropy(logits[:, 5 + i], b.tokens[:, 5 + i + 1])
        assert math.isclose(first[i - 1].item(), want1.item(), rel_tol=1e-5)
        assert math.isclose(second[i - 1].item(), want2.item(), rel_tol=1e-5)


def test_the_hand_built_circuit_reads_as_diagonal_qk_and_ov_tables():
    v = analysis.circuit_views(model.hand_built(), previous_head=0, induction_head=0)
    assert v.qk.shape == v.ov.shape == (data.VOCAB - 1, data.VOCAB - 1)
    assert v.qk_diagonal == 1.0 and v.ov_diagonal == 1.0
    c = analysis.circuit(model.hand_built(), data.repeats(50, seed=1))
    assert (c.previous_head, c.induction_head) == (0, 0) and c.previous_score > 0.99 and c.induction_score > 0.99


def test_restart_bets_are_the_probability_of_x1_at_each_place_of_the_first_copy():
    m = model.AttentionOnly(layers=2, width=16, heads=2, seed=4)
    bets = analysis.restart_bets(m, length=5, n=7, seed=2)
    b = data.repeats_unchecked(7, 5, 5, torch.Generator().manual_seed(2))
    probs = m(b.tokens).softmax(-1)
    for t in range(1, 5):                                     # position t predicts the symbol at place t + 1
        want = sum(probs[i, t, b.tokens[i, 1]].item() for i in range(7)) / 7
        assert math.isclose(bets[t - 1].item(), want, rel_tol=1e-5)
    assert bets.shape == (4,)


def test_previous_token_where_splits_the_score_by_part_and_uniform_scores_are_the_closed_form():
    m = model.AttentionOnly(layers=2, width=16, heads=3, seed=5)
    b = data.repeats(6, seed=2)
    where = analysis.previous_token_where(m, b, layer=1, head=2)
    w = m.attention(b.tokens)[1][:, 2].double()                 # (n, T, T)
    parts = {"first copy": [], "second copy": [], "repeated part": [], "whole context": []}
    for i, L in enumerate(b.lengths.tolist()):
        for t in range(1, w.shape[-1]):
            x = w[i, t, t - 1].item()
            parts["whole context"].append(x)
            if t <= 2 * L:
                parts["repeated part"].append(x)
                parts["first copy" if t <= L else "second copy"].append(x)
    for name, values in parts.items():
        assert math.isclose(where[name], sum(values) / len(values), rel_tol=1e-5), name
    assert math.isclose(where["repeated part"], circuits.scores(m, b).previous_token[1, 2].item(), rel_tol=1e-5)
    u = analysis.uniform_scores(b)
    prev = [1 / (t + 1) for L in b.lengths.tolist() for t in range(1, 2 * L + 1)]
    ind = [1 / (t + 1) for L in b.lengths.tolist() for t in range(L + 1, 2 * L + 1)]
    assert math.isclose(u.previous_token.item(), sum(prev) / len(prev), rel_tol=1e-5)
    assert math.isclose(u.induction.item(), sum(ind) / len(ind), rel_tol=1e-5)
    with pytest.raises(ValueError, match=r"layer, head: expected a head of the model \(2 layers, 3 heads, from 0\), got \(0, 3\)"):
        analysis.previous_token_where(m, b, layer=0, head=3)


def test_shortcut_measures_shares_and_accuracies_another_way():
    m = model.hand_built()
    b = data.repeats(40, seed=3)
    found = analysis.shortcut(m, b, length=6, n=30, seed=1)
    lengths = b.lengths.tolist()
    assert math.isclose(found.query_share, sum(L for L in lengths if L == 6) / sum(lengths), rel_tol=1e-6)
    assert math.isclose(found.position_share, sum(L - 1 for L in lengths if L == 6) / sum(L - 1 for L in lengths),
                        rel_tol=1e-6)
    one = data.repeats_unchecked(30, 6, 6, torch.Generator().manual_seed(1))
    assert found.accuracy == model.accuracy(m, one) == 1.0
    assert found.without == [model.accuracy(model.ablate(m, 0, 0), one)]         # one head per layer
    torch.testing.assert_close(found.one_length, circuits.scores(m, one).induction[0])


def test_the_printed_tables_line_up_and_hold_the_numbers():
    from attnlab.i18n import language
    from attnlab.ui.text import display_width
    m = model.AttentionOnly(layers=2, width=16, heads=4, seed=5)
    b = data.repeats(8, seed=2)
    first, second = analysis.loss_by_position(m, length=5, n=4)
    curves = shipped.measured()["two_layer"]["curves"]
    for lang in ("en", "zh"):
        with language(lang):
            tables = [figures.loss_table(first, second, analysis.restart_bets(m, length=5, n=4)),
                      figures.training_table(curves, steps=(50, 900)),
                      figures.previous_token_table(m, b, layer=0, head=1),
                      figures.length_table({"a": {"6": 0.5, "7": 1.0}, "b": {6: 0.25, 7: 0.125}}, lengths=(6, 7)),
                      figures.shortcut_table(m, b, length=6, early_step=50, early_accuracy=0.5)]
        for k, text in enumerate(tables):
            lines = text.split("\n")
            assert len(lines) >= 3
            if k != 1:                                         # a right-aligned last column: every line ends in one column
                assert len({display_width(line) for line in lines}) == 1, text
        assert "0.125" in tables[3] and f"{curves['loss'][17]:.2f}" in tables[1]
    with pytest.raises(ValueError, match=r"steps: expected steps of the run \(50, 100, \.\.\.\), got 55"):
        figures.training_table(curves, steps=(55,))


def test_phase_change_finds_the_jump():
    steps = [50, 100, 150, 200, 250, 300]
    assert analysis.phase_change(steps, [0.1, 0.2, 0.25, 0.5, 0.95, 0.99]) == (150, 250)
    assert analysis.phase_change(steps, [0.1, 0.2, 0.25, 0.5, 0.6, 0.7]) is None
    assert analysis.phase_change(steps, [0.95] * 6) == (50, 50)


def test_guesses_of_the_hand_built_model_are_all_right_and_chance_is_the_mean_of_one_over_candidates():
    b = data.repeats(20, lengths=(4, 4), seed=0)
    g = analysis.guesses(model.hand_built(), b)
    assert g.right == g.candidate == g.first_copy == 1.0
    assert math.isclose(g.chance, (1 / 3 + 1 / 2 + 1) / 3, abs_tol=1e-4)      # 3, 2 then 1 symbols not yet repeated


# ---- the Play panels: moving each control changes the figure and the text under it
def test_the_snapshot_slider_changes_the_patterns_and_the_numbers():
    p = live.play()
    before, text = bytes(p.image.value), p.summary
    steps = shipped.snapshots().steps
    p.controls["step"].value = steps[len(steps) // 4]
    assert bytes(p.image.value) != before and p.summary != text and p.error.value == ""
    assert f"step {steps[len(steps) // 4]}:" in p.summary


@pytest.mark.parametrize("control, value", [("remove", "0.1"), ("remove", "1.3"), ("length", 20), ("length", 4)])
def test_each_control_of_the_circuit_panel_changes_the_figure(control, value):
    p = live.play_circuit()
    before, text = bytes(p.image.value), p.summary
    p.controls[control].value = value
    assert p.error.value == "" and bytes(p.image.value) != before and p.summary != text


def test_the_trainer_trains_and_reports_scores():
    t = live.play_trainer(steps=100, layers=1)
    t.train()
    assert "Done: 100 steps" in t.status.value and "final accuracy" in t.status.value
    assert "previous-token score" in t.summary and t.result is not None and not t.result.training
    # the loss axis shows the plateau (ln V ≈ 4.16) and where the second copy is learnt, on a linear scale
    loss_axis = t.axes["loss"]
    assert loss_axis.get_yscale() == "linear" and loss_axis.get_ylim() == (3.0, 4.8)
    assert all(3.0 < v < 4.8 for v in t.history["loss"][-50:])


@pytest.mark.parametrize("call, error, match", [
    (lambda: live.play(step=0), ValueError, "step: expected an int >= 1"),
    (lambda: live.play(step=99_999), ValueError, r"step: expected a training step in 50..\d+, got 99999"),
    (lambda: live.play_circuit(remove="2.0"), ValueError, "remove: expected one of"),
    (lambda: live.play_circuit(length=30), ValueError, "length: expected an int <= 23"),
    (lambda: live.play_trainer(steps=50), ValueError, "steps: expected an int >= 100"),
    (lambda: live.play_trainer(layers=3), ValueError, "layers: expected one of"),
    (lambda: analysis.circuit_views(model.hand_built(), previous_head=1, induction_head=0), ValueError,
     "previous_head: expected 0..0, got 1"),
    (lambda: analysis.loss_by_position("model"), TypeError, "model: expected an AttentionOnly model"),
    (lambda: analysis.circuit(model.hand_built(layers=1), data.repeats(2, seed=0)), ValueError,
     "model: expected a 2-layer model"),
    (lambda: exercises.check_induction_score("f"), TypeError, "fn: expected"),
    (lambda: model.accuracy(model.hand_built(), torch.zeros(2, 5, dtype=torch.long)), TypeError,
     r"batch: expected a batch of repeats\(\.\.\.\), got Tensor"),
    (lambda: model.accuracy("model", data.repeats(2, seed=0)), TypeError, "model: expected an AttentionOnly model"),
    (lambda: analysis.guesses(model.hand_built(), [1, 2]), TypeError, "batch: expected a batch of repeats"),
    (lambda: figures.loss_figure([1.0, 2.0], [[1.0]]), ValueError, "second: expected a 1-D array, got shape"),
    (lambda: figures.scores_figure("a", [[0.1]]), TypeError, "previous: expected a tensor or an array"),
    (lambda: figures.k_composition_figure([0.1, 0.2]), ValueError, "matrix: expected a 2-D array"),
    (lambda: figures.patterns_figure([], titles=[], length=4), ValueError, "patterns: expected at least 1 entries"),
    (lambda: figures.length_figure({"a": {}}, ax="ax"), TypeError, "ax: expected a matplotlib Axes"),
])
def test_lesson_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()
