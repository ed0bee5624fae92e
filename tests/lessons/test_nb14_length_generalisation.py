"""Lesson 14: the two tasks, the five encodings, ALiBi's bias, the shipped models and the notebook's printed table.

References the lesson did not write: Press et al.'s slopes written out as numbers (and their definition of the
bias as a loop), torch's scaled_dot_product_attention (with the bias as a float mask), attnlab.core's rope and
sinusoidal_encoding called from here, plain Python loops over the sequences for the tasks' answers.
"""
import json
import math
import re
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings, strategies as st
from torch.nn import functional as F

from attnlab.core.positional import rope, sinusoidal_encoding
from attnlab.lessons import nb14_length_generalisation as lesson
from attnlab.lessons.nb14_length_generalisation import data, exercises, model, training

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "14_length_generalisation.ipynb"


# ---------------------------------------------------------------- the tasks

def test_batch_has_the_documented_shapes_and_is_seeded():
    for task in lesson.TASKS:
        b = lesson.batch(task, 6, 17, seed=3)
        assert b.tokens.shape == b.targets.shape == (6, 17)
        assert b.tokens.dtype == torch.int64 and b.targets.dtype == torch.bool
        assert (b.tokens[:, 0] == data.BOS).all() and (b.tokens[:, 1:] > 0).all() and (b.tokens < data.VOCAB).all()
        assert not b.targets[:, 0].any()
        assert torch.equal(lesson.batch(task, 6, 17, seed=3).tokens, b.tokens)
        assert not torch.equal(lesson.batch(task, 6, 17, seed=4).tokens, b.tokens)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), length=st.integers(data.MIN_LENGTH, 90))
def test_copy_is_x_then_x_and_scores_the_second_copy_after_its_first_symbol(seed, length):
    b = lesson.batch("copy", 4, length, seed=seed)
    m = math.ceil((length - 1) / 2)
    for tokens, targets in zip(b.tokens.tolist(), b.targets.tolist()):
        x = tokens[1:m + 1]
        assert len(set(x)) == m                                        # distinct symbols (m <= 63 here)
        assert tokens[m + 1:] == x[:length - 1 - m]
        assert [t for t, s in enumerate(targets) if s] == list(range(m + 2, length))
        for t in range(m + 2, length):                                 # the answer: after the earlier occurrence
            assert tokens[tokens.index(tokens[t - 1]) + 1] == tokens[t]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), length=st.integers(data.MIN_LENGTH, 90))
def test_latest_scores_reads_whose_value_is_the_keys_latest_value(seed, length):
    b = lesson.batch("latest", 4, length, seed=seed)
    for tokens, targets in zip(b.tokens.tolist(), b.targets.tolist()):
        holds = {}
        for t in range(1, length, 2):                                   # keys at odd positions, values after
            key = tokens[t]
            assert 1 <= key <= data.KEYS
            if t + 1 == length:
                break
            value = tokens[t + 1]
            assert value > data.KEYS and not targets[t]
            if targets[t + 1]:
                assert holds[key] == value                              # a read: what the key holds
            holds[key] = value


def test_latest_reads_about_half_the_pairs_of_written_keys():
    b = lesson.batch("latest", 2000, 40, seed=0)
    keys, values = b.tokens[:, 1::2], b.tokens[:, 2::2]
    written = torch.zeros_like(b.targets[:, 2::2])
    for p in range(1, values.shape[1]):
        written[:, p] = (keys[:, :p] == keys[:, p:p + 1]).any(1)
    share = b.targets[:, 2::2][written].float().mean().item()
    assert abs(share - data.READ) < 0.02


# ---------------------------------------------------------------- ALiBi

PAPER_SLOPES = {                       # Press et al. 2022 (section 3 and their get_slopes), written out
    1: [2 ** -8],
    2: [2 ** -4, 2 ** -8],
    4: [2 ** -2, 2 ** -4, 2 ** -6, 2 ** -8],
    8: [2 ** -1, 2 ** -2, 2 ** -3, 2 ** -4, 2 ** -5, 2 ** -6, 2 ** -7, 2 ** -8],
    6: [2 ** -2, 2 ** -4, 2 ** -6, 2 ** -8, 2 ** -1, 2 ** -3],          # 4's, then every other one of 8's
    12: [2 ** (-h) for h in range(1, 9)] + [2 ** -0.5, 2 ** -1.5, 2 ** -2.5, 2 ** -3.5],
}


@pytest.mark.parametrize("heads", sorted(PAPER_SLOPES))
def test_alibi_slopes_are_the_papers(heads):
    assert model.alibi_slopes(heads).tolist() == pytest.approx(PAPER_SLOPES[heads], rel=1e-12)


@pytest.mark.parametrize("heads,length", [(1, 1), (4, 7), (8, 5), (6, 4), (12, 3)])
def test_alibi_bias_is_the_papers_definition(heads, length):
    bias = lesson.alibi_bias(heads, length)
    assert bias.shape == (heads, length, length) and bias.dtype == torch.float32
    for h in range(heads):
        m = PAPER_SLOPES[heads][h]
        for i in range(length):
            row = [-m * (i - j) if j <= i else 0.0 for j in range(length)]      # m · [-(i), ..., -1, 0], then 0
            assert bias[h, i].tolist() == pytest.approx(row, abs=1e-7)
    assert not torch.signbit(bias).logical_and(bias == 0).any()              # no -0.0 on the diagonal


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("encoding", ["nope", "alibi", "rope"])
def test_attention_equals_torchs_sdpa_with_the_encoding_written_here(encoding, dtype):
    """One attention layer against torch's SDPA: RoPE from attnlab.core's public rope (notebook 06's sign), ALiBi
    as a float mask (bias, -inf above the diagonal)."""
    layer = model.CausalAttention(16, 4, encoding).to(dtype)
    X = torch.randn(3, 9, 16, dtype=dtype, generator=torch.Generator().manual_seed(0))
    out, weights = layer(X)
    q, k, v = (w(X).reshape(3, 9, 4, 4).transpose(1, 2) for w in (layer.W_q, layer.W_k, layer.W_v))
    if encoding == "rope":
        q, k = rope(q), rope(k)
    causal = torch.ones(9, 9, dtype=torch.bool).tril()
    mask = torch.zeros(4, 9, 9, dtype=dtype).masked_fill(~causal, float("-inf"))
    if encoding == "alibi":
        mask = mask + lesson.alibi_bias(4, 9).to(dtype)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    tol = dict(atol=1e-12, rtol=1e-10) if dtype == torch.float64 else dict(atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(out, layer.W_o(expected.transpose(1, 2).reshape(3, 9, 16)), **tol)
    assert torch.allclose(weights.sum(-1), torch.ones((), dtype=dtype)) and (weights.triu(1) == 0).all()


def test_sinusoidal_adds_attnlab_cores_P_and_learned_its_own_rows():
    tokens = lesson.batch("copy", 2, 12, seed=0).tokens
    for encoding, added in (("sinusoidal", sinusoidal_encoding(12, 64)), ("nope", torch.zeros(12, 64))):
        m = model.Decoder(encoding, seed=1)
        seen = []
        m.blocks[0].norm1.register_forward_hook(lambda mod, args, out, seen=seen: seen.append(args[0]))
        m(tokens)
        torch.testing.assert_close(seen[0], m.embed(tokens) + added)
    learned = model.Decoder("learned", seed=1)
    assert learned.position.shape == (lesson.TRAIN_LENGTH, 64)


def test_rope_scores_depend_on_the_offset_only_and_alibi_penalises_distance():
    """Shifting every position by 5 leaves a RoPE layer's weights unchanged (the positions enter as offsets);
    ALiBi's bias depends on i - j only; interpolation (scale) changes RoPE's weights."""
    layer = model.CausalAttention(16, 4, "rope")
    X = torch.randn(1, 8, 16, generator=torch.Generator().manual_seed(1))
    q, k = (w(X).reshape(1, 8, 4, 4).transpose(1, 2) for w in (layer.W_q, layer.W_k))
    shifted = rope(q, torch.arange(5, 13)) @ rope(k, torch.arange(5, 13)).transpose(-1, -2)
    torch.testing.assert_close(shifted, rope(q) @ rope(k).transpose(-1, -2), atol=1e-5, rtol=1e-5)
    assert not torch.allclose(layer(X, scale=0.5)[1], layer(X)[1])
    bias = lesson.alibi_bias(4, 10)
    assert torch.equal(bias[:, 3:, 3:], bias[:, :7, :7])


def test_without_positions_one_layer_sees_the_earlier_tokens_as_a_set():
    """NoPE's first layer at a position t after the swap depends on which tokens came before, not on their order (the causal mask
    gives only the count); every encoding of positions makes the order count there. A second layer reads the
    first layer's outputs at the earlier positions, which did see different prefixes: stacked, NoPE sees order."""
    tokens = lesson.batch("copy", 1, 12, seed=5).tokens
    swapped = tokens.clone()
    swapped[0, [2, 6]] = tokens[0, [6, 2]]
    for encoding in lesson.ENCODINGS:
        m = model.Decoder(encoding, seed=2).double()
        outputs = []
        for t in (tokens, swapped):
            X = m.embed(t) + (m.position[:12] if encoding == "learned" else 0)
            X = X + (sinusoidal_encoding(12, 64, dtype=X.dtype) if encoding == "sinusoidal" else 0)
            outputs.append(m.blocks[0](X)[0][0, 7:])               # after both swapped places
        assert torch.allclose(*outputs, atol=1e-10) == (encoding == "nope"), encoding
        assert not torch.allclose(m(tokens)[0, 8:], m(swapped)[0, 8:], atol=1e-6), encoding


def test_a_learned_model_refuses_lengths_past_its_table_and_the_others_take_any():
    short = model.Decoder("learned", seed=0)
    with pytest.raises(ValueError, match=r"tokens: expected at most 20 positions \(a learned model has .* 20 rows, no row for position 20 or later\), got 21"):
        short(lesson.batch("copy", 1, 21, seed=0).tokens)
    with pytest.raises(ValueError, match=r"length: expected at most 20 positions \(a learned model .*\), got 40"):
        lesson.accuracy(short, "copy", 40, n=2)
    with pytest.raises(ValueError, match=r"length: expected at most 20 positions \(a learned model"):
        lesson.first_token_weights(short, 21, n=2)
    assert 0 <= lesson.accuracy(short, "copy", 20, n=4) <= 1
    for encoding in ("nope", "sinusoidal", "rope", "alibi"):
        logits = model.Decoder(encoding, seed=0)(lesson.batch("latest", 2, 300, seed=0).tokens)
        assert logits.shape == (2, 300, data.VOCAB) and torch.isfinite(logits).all()


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("call,error,match", [
    (lambda: lesson.batch("reverse", 2, 10, seed=0), ValueError, r"task: expected one of \['copy', 'latest'\]"),
    (lambda: lesson.batch(3, 2, 10, seed=0), TypeError, "task: expected one of"),
    (lambda: lesson.batch("copy", 0, 10, seed=0), ValueError, "n: expected an int >= 1"),
    (lambda: lesson.batch("copy", 2, 4, seed=0), ValueError, "length: expected an int >= 5"),
    (lambda: lesson.batch("copy", 2, 10.0, seed=0), TypeError, "length: expected an int, got float"),
    (lambda: lesson.batch("copy", 2, 10, seed=-1), ValueError, "seed: expected an int >= 0"),
    (lambda: lesson.batch("copy", 20_000, 4096, seed=0), ValueError, r"n: expected n \* length <= 50,000,000"),
    (lambda: lesson.pretrained("alibi2", "copy"), ValueError, "encoding: expected one of"),
    (lambda: lesson.pretrained("alibi", "count"), ValueError, "task: expected one of"),
    (lambda: lesson.accuracy("model", "copy", 10), TypeError, "m: expected a model of this lesson"),
    (lambda: lesson.accuracy(model.Decoder("nope"), "copy", 2), ValueError, "length: expected an int >= 5"),
    (lambda: lesson.accuracy(model.Decoder("nope"), "copy", 10, n=0), ValueError, "n: expected an int >= 1"),
    (lambda: lesson.accuracy(model.Decoder("nope"), "copy", 10, scale=0.0), ValueError, "scale: expected a number > 0"),
    (lambda: lesson.accuracy(model.Decoder("nope"), "latest", 5, n=1, seed=1), ValueError,
     "n: expected sequences with at least one scored token"),
    (lambda: lesson.alibi_bias(0, 4), ValueError, "heads: expected an int >= 1"),
    (lambda: lesson.alibi_bias(4, 0), ValueError, "length: expected an int >= 1"),
    (lambda: lesson.alibi_bias(4, 2.0), TypeError, "length: expected an int"),
    (lambda: lesson.train("rope", "copy", steps=0), ValueError, "steps: expected an int >= 1"),
    (lambda: lesson.train("ropes", "copy", steps=1), ValueError, "encoding: expected one of"),
    (lambda: lesson.train("rope", "copy", steps=1, length=8), ValueError, "length: expected an int >= 10"),
    (lambda: lesson.train("rope", "copy", steps=1, on_step=3), TypeError, "on_step: expected a function"),
    (lambda: model.Decoder("nope")(torch.zeros(2, 3)), TypeError, "tokens: expected an integer tensor"),
    (lambda: model.Decoder("rope", width=12, heads=4), ValueError, "width: expected a multiple of heads=4 with an even"),
    (lambda: model.Decoder("nope", width=10, heads=4), ValueError, "width: expected a multiple of heads=4"),
    (lambda: model.Decoder("nope", layers=0), ValueError, "layers: expected an int >= 1"),
    (lambda: model.Decoder("nope")(torch.full((2, 3), 64)), ValueError, r"tokens: expected token ids in 0..63, got 64"),
    (lambda: lesson.play(length=81), ValueError, r"length: expected an int <= 80 \(the slider's range\)"),
    (lambda: lesson.play(encoding="none"), ValueError, "encoding: expected one of"),
    (lambda: lesson.play(layer=4), ValueError, "layer: expected an int <= 3"),
    (lambda: lesson.play_trainer(length=42), ValueError, r"length: expected an int <= 40 \(the slider's range\)"),
    (lambda: lesson.play_trainer(steps=50), ValueError, "steps: expected an int >= 100"),
    (lambda: lesson.first_token_weights(model.Decoder("nope"), 1), ValueError, "length: expected an int >= 2"),
])
def test_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------------- training and measuring

def test_training_is_seeded_yields_rows_and_stops_when_asked():
    a = lesson.train("alibi", "latest", steps=3, seed=4)
    b = lesson.train("alibi", "latest", steps=3, seed=4)
    assert a.history["loss"] == b.history["loss"] and len(a.history["loss"]) == 3
    assert set(a.history) == {"loss", "accuracy"} and set(a.seconds) == {"wall", "cpu"}
    assert not a.model.training
    for (k, v), (k2, v2) in zip(a.model.state_dict().items(), b.model.state_dict().items()):
        assert k == k2 and torch.equal(v, v2)
    seen = []
    stopped = lesson.train("nope", "copy", steps=50, seed=0, on_step=lambda row: seen.append(row) or len(seen) < 2)
    assert len(seen) == 2 and len(stopped.history["loss"]) == 2
    short = lesson.train("learned", "copy", steps=1, length=12)
    assert short.model.position.shape[0] == 12
    assert lesson.accuracy(short, "copy", 12, n=3) == lesson.accuracy(short.model, "copy", 12, n=3)


def test_accuracy_counts_the_scored_tokens_predicted_right():
    """Against a count written here: logits row t predicts token t + 1, scored where targets[t + 1]."""
    m = model.Decoder("rope", seed=3)
    b = lesson.batch("latest", 30, 24, seed=9)
    with torch.no_grad():
        guess = m(b.tokens).argmax(-1)
    right = total = 0
    for i in range(30):
        for t in range(1, 24):
            if b.targets[i, t]:
                total += 1
                right += int(guess[i, t - 1] == b.tokens[i, t])
    assert lesson.accuracy(m, "latest", 24, n=30, seed=9) == right / total


def test_first_token_weights_is_the_mean_weight_on_position_0():
    m = model.Decoder("nope", seed=1)
    w = lesson.first_token_weights(m, 9, n=5, seed=2)
    tokens = lesson.batch("copy", 5, 9, seed=2).tokens
    expected = m.attention(tokens)[..., 0].mean(1)                        # (layers, H, T)
    torch.testing.assert_close(w, expected)
    assert torch.allclose(w[..., 0], torch.ones(())) and w.shape == (3, 4, 9)


# ---------------------------------------------------------------- the shipped models and results

@pytest.fixture(scope="module")
def results():
    return lesson.measured()


def test_every_shipped_run_learnt_its_task_inside_the_training_range(results):
    assert results["train length"] == lesson.TRAIN_LENGTH and results["seeds"] == [0, 1, 2]
    inside = [L for L in results["curve"]["lengths"] if lesson.TRAIN_LENGTH // 2 <= L <= lesson.TRAIN_LENGTH]
    for task in lesson.TASKS:
        for encoding in lesson.ENCODINGS:
            for seed, run in results["runs"][task][encoding].items():
                assert min(run["curve"][str(L)] for L in inside) >= 0.95, (task, encoding, seed)
                assert ("interpolated" in run) == (encoding == "rope")
                past = [int(L) for L in run["curve"] if int(L) > lesson.TRAIN_LENGTH]
                assert past == ([] if encoding == "learned" else [L for L in results["curve"]["lengths"]
                                                                   if L > lesson.TRAIN_LENGTH])


def test_the_shipped_runs_fit_the_cpu_budget(results):
    cpu = sum(r["cpu seconds"] for t in results["runs"].values() for e in t.values() for r in e.values())
    assert cpu <= 20 * 60 and results["cpu seconds"] <= 20 * 60


@pytest.mark.parametrize("encoding,task,length", [("rope", "copy", 40), ("learned", "latest", 20), ("nope", "copy", 15)])
def test_a_shipped_model_reproduces_its_measured_point(results, encoding, task, length):
    m = lesson.pretrained(encoding, task)
    assert not m.training and m.encoding == encoding
    c = training.CURVE
    assert lesson.accuracy(m, task, length, n=c["n"], seed=c["seed"] + length) == pytest.approx(
        results["runs"][task][encoding]["0"]["curve"][str(length)], abs=5e-5)


def _printed_table(notebook=NOTEBOOK):
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        if cell["cell_type"] == "code" and "TABLE_SEED" in "".join(cell["source"]):
            text = "".join("".join(o.get("text", "")) for o in cell["outputs"] if o.get("output_type") == "stream")
            return "".join(cell["source"]), text
    raise AssertionError("the notebook has no cell printing the table (TABLE_SEED)")


def _table_rows(text):
    return [line.split() for line in text.splitlines() if line.split() and line.split()[0] in lesson.ENCODINGS]


def test_the_chinese_notebook_prints_the_same_table():
    zh = NOTEBOOK.parent / "zh" / NOTEBOOK.name
    assert _table_rows(_printed_table(zh)[1]) == _table_rows(_printed_table()[1]) != []


def test_the_notebooks_printed_table_is_a_rerun_of_lesson_accuracy():
    source, text = _printed_table()
    found = re.search(r"TABLE_SEED, TABLE_N, TABLE_LENGTHS = (\d+), (\d+), \(([\d, ]+)\)", source)
    seed, n = int(found.group(1)), int(found.group(2))
    lengths = [int(x) for x in found.group(3).split(",")]
    rows = _table_rows(text)
    assert len(rows) == 2 * len(lesson.ENCODINGS)
    for i, row in enumerate(rows):
        task = lesson.TASKS[i // len(lesson.ENCODINGS)]
        m = lesson.pretrained(row[0], task)
        for length, printed in zip(lengths, row[1:]):
            if printed == "—":
                assert row[0] == "learned" and length > lesson.TRAIN_LENGTH
                continue
            assert printed == f"{lesson.accuracy(m, task, length, n=n, seed=seed):.3f}", (task, row[0], length)


# ---------------------------------------------------------------- figures, panels, exercise

def test_figures_draw_from_the_results(results):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    axes = lesson.curves_figure(results)
    assert len(axes) == 2 and axes[0].get_ylim()[1] > 1
    assert len(lesson.interpolation_figure(results)) == 2
    angles = lesson.angles_figure()
    assert len(angles[0].patches) == 2 * 8 and len(angles[1].patches) == 2 * 32
    ax = lesson.alibi_figure()
    assert [round(line.get_ydata()[1], 8) for line in ax.lines] == [-0.25, -0.0625, -0.015625, -0.00390625]
    ax = lesson.counting_figure(torch.full((4, 10), 0.1))
    assert len(ax.lines) == 5
    plt.close("all")
    turned = model.largest_angles(20, 16)
    assert turned[0] == 19 and turned[1].item() == pytest.approx(19 * 10 ** -0.5)


def test_the_pattern_panel_follows_its_controls_and_says_when_a_learned_model_cannot_run():
    from attnlab.lessons.nb14_length_generalisation import live
    panel = lesson.play(encoding="nope", task="copy", length=12, layer=1)
    expected = lesson.accuracy(lesson.pretrained("nope", "copy"), "copy", 12, n=live.PANEL_N, seed=live.EXAMPLE_SEED + 12)
    assert f"accuracy {expected:.3f} on {live.PANEL_N}" in panel.summary and panel.error.value == ""
    panel.controls["encoding"].value = "learned"
    panel.controls["length"].value = 30
    assert "cannot read 30 tokens" in panel.summary and panel.error.value == ""
    panel.controls["encoding"].value = "alibi"
    panel.controls["layer"].value = 3
    assert "ALiBi on copy at n = 30" in panel.summary


def test_the_pattern_panel_runs_the_model_once_per_length_and_draws_the_same_from_what_it_kept(monkeypatch):
    """Moving the layer, or back to a length already seen, only draws: the text and the heads' pictures equal
    a fresh panel's, which runs the model."""
    from attnlab.lessons.nb14_length_generalisation import live
    from attnlab.ui.panels import Later
    runs = []
    real = live.run_unchecked
    monkeypatch.setattr(live, "run_unchecked", lambda m, tokens: runs.append(tokens.shape) or real(m, tokens))
    view = live.PatternView()
    moves = [("nope", "copy", 24, 1), ("nope", "copy", 24, 3), ("nope", "copy", 25, 3), ("nope", "copy", 24, 2),
             ("rope", "copy", 24, 2), ("nope", "copy", 25, 1)]
    texts = []
    for move in moves:
        text = view.update(*move)
        if isinstance(text, Later):          # a new setting: the sequence drawn at once, the measure after it
            assert "being measured…" in text.text and text.draws
            text = text.finish()
        texts.append(text)
    # nope 24, nope 25, rope 24: the sequence drawn alone, then all PANEL_N; the rest only draws
    assert runs == [(1, 24), (live.PANEL_N, 24), (1, 25), (live.PANEL_N, 25), (1, 24), (live.PANEL_N, 24)]
    for move, text in zip(moves, texts):
        assert live.PatternView().update(*move).finish() == text
    view.update(*moves[3])
    fresh = live.PatternView()
    later = fresh.update(*moves[3])
    for a, b in zip(fresh.images, view.images):   # the first part's heads, from the sequence alone: the same picture
        torch.testing.assert_close(torch.as_tensor(a.get_array()), torch.as_tensor(b.get_array()), atol=1e-6, rtol=0)
    later.finish()
    for a, b in zip(view.images, fresh.images):
        assert torch.equal(torch.as_tensor(a.get_array()), torch.as_tensor(b.get_array()))
    monkeypatch.setattr(live, "MEASURED_KEPT", 1)
    view.update("nope", "copy", 26, 1).finish()
    assert list(view.measured) == [("nope", "copy", 26)]


def test_the_trainer_trains_and_puts_its_curve_beside_the_shipped_ones():
    t = lesson.play_trainer(encoding="rope", task="latest", length=10, steps=100)
    t.steps.value = 100
    model_ = t.train()
    assert model_ is not None and "at n = 10" in t.status.value
    assert "your model against the test length" in t.summary


def test_check_alibi_bias_accepts_the_lessons_own_bias(capsys):
    """The learner-style mistakes are in tests/test_exercise_mistakes.py."""
    assert exercises.check_alibi_bias(lambda heads, length: lesson.alibi_bias(heads, length))
    assert "all 4 cases match" in capsys.readouterr().out
