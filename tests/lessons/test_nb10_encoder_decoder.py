"""Notebook 10's lesson: the API the issue lists, the KV cache, the refused inputs, the shipped model."""
import pytest
import torch

from attnlab.lessons import nb10_encoder_decoder as lesson
from attnlab.lessons.nb10_encoder_decoder import analysis, data, model as nb10_model, training


@pytest.fixture(scope="module")
def fresh():
    return nb10_model.DateTransformer(seed=3).eval()


def test_random_dates_cover_every_format():
    pairs = lesson.random_dates(200, seed=1)
    assert pairs == lesson.random_dates(200, seed=1)
    assert {lesson.format_of(s) for s, _ in pairs} == set(data.FORMATS)
    assert all(data.is_date(t) for _, t in pairs)
    assert all(len(s) <= data.MAX_SOURCE_LEN and set(s) <= set(data.SOURCE_CHARS) for s, _ in pairs)


def test_held_out_dates_are_never_trained_on():
    test = {t for _, t in data.test_dates()}
    assert len(data.test_dates()) == 2000 and all(data.held_out(t) for t in test)
    assert not any(data.held_out(t) for _, t in data.training_dates(2000, seed=0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_cached_decoding_equals_recomputing(fresh, dtype):
    model = fresh.to(dtype)
    try:
        src, valid = data.encode_sources(["7 mar 1994", "september 30, 1994", "03/07/1994"])
        with torch.no_grad():
            a = nb10_model.greedy(model, src, valid, cache=True)
            b = nb10_model.greedy(model, src, valid, cache=False)
        assert torch.equal(a[0], b[0])                                   # same tokens
        tol = dict(atol=1e-5, rtol=1e-4) if dtype == torch.float32 else dict(atol=1e-11, rtol=1e-9)
        torch.testing.assert_close(a[1], b[1], **tol)                    # same logits, to round-off
        torch.testing.assert_close(a[2], b[2], **tol)                    # same cross-attention
    finally:
        fresh.float()


def test_teacher_forced_logits_equal_greedy_logits_on_its_own_output(fresh):
    src, valid = data.encode_sources(["1994 mar 7"])
    with torch.no_grad():
        tokens, logits, _ = nb10_model.greedy(fresh, src, valid)
        dec_in = torch.cat([torch.tensor([[data.TARGET_VOCAB.index(data.BOS)]]), tokens[:, :-1]], 1)
        torch.testing.assert_close(fresh(src, valid, dec_in), logits, atol=1e-5, rtol=1e-4)


def test_decode_shapes(fresh):
    d = lesson.decode(fresh, " 7 MAR 1994 ")
    steps = len(d.tokens)
    assert d.source == "7 mar 1994"
    assert d.logits.shape == (steps, len(data.TARGET_VOCAB))
    L, H = fresh.config["num_layers"], fresh.config["num_heads"]
    assert d.cross_attention.shape == (L, H, steps, len("7 mar 1994"))
    torch.testing.assert_close(d.cross_attention.sum(-1), torch.ones(L, H, steps))
    assert d.cache_sizes == list(range(1, steps + 1))


@pytest.mark.parametrize("text", ["", "x" * 40, "__import__('os')", "1994-03-07", "7 mär 1994"])
def test_unreadable_text_is_refused_naming_text(fresh, text):
    with pytest.raises(ValueError, match="^text: "):
        lesson.decode(fresh, text)
    with pytest.raises(ValueError, match="^text: "):
        lesson.translate(fresh, [text])
    assert data.source_problem(text)


def test_not_a_str_or_not_a_model():
    with pytest.raises(TypeError, match="^text: "):
        data.check_source(1994)
    with pytest.raises(TypeError, match="^model: "):
        lesson.decode("model", "7 mar 1994")


@pytest.mark.skipif(not nb10_model.CHECKPOINT.exists(), reason="no shipped checkpoint")
def test_shipped_model_reads_every_format():
    model = lesson.pretrained()
    assert not model.training
    assert lesson.translate(model, ["7 mar 1994", "march 7, 1994", "07.03.1994", "1994 mar 7", "03/07/1994"]) \
        == ["1994-03-07"] * 5
    acc = lesson.accuracy(model)
    assert acc["all"] >= 0.99, acc


def test_source_fields_find_year_month_day_in_every_format():
    for source, target in lesson.random_dates(100, seed=7):
        fields = analysis.source_fields(source)
        y, m, d = target.split("-")
        year = "".join(c for c, f in zip(source, fields) if f == "year")
        day = "".join(c for c, f in zip(source, fields) if f == "day")
        assert year == y and int(day) == int(d), (source, fields)
        assert any(f == "month" for f in fields)


def test_play_panel_steps_and_refuses_bad_text_with_a_message(fresh):
    import matplotlib
    matplotlib.use("Agg")
    panel = lesson.play(model=fresh, text="1994 mar 7")
    assert "1994 mar 7" in panel.text.value and not panel.error.value
    panel.controls["step"].value = 3
    assert "3" in panel.text.value and not panel.error.value
    panel.controls["text"].value = "import os; os.system('x')"
    assert "Traceback" not in panel.error.value and not panel.error.value
    assert "Cannot read" in panel.text.value


def test_head_ablation_restores_the_weights(fresh):
    before = {k: v.clone() for k, v in fresh.state_dict().items()}
    with analysis.without_head(fresh, 1, 2):
        assert fresh.decoder[1].cross_attention.W_o.weight[:, 24:36].abs().sum() == 0
    assert all(torch.equal(before[k], v) for k, v in fresh.state_dict().items())


@pytest.mark.parametrize("text", ["nope", "7 mar 1800", "7 mar  1994", "march 7 1994"])
def test_letters_that_are_not_a_date_are_refused_too(fresh, text):
    """Right characters, wrong shape (or a year it never saw): refused, not decoded into a guess."""
    with pytest.raises(ValueError, match="^text: expected a (date written like|year from)"):
        lesson.decode(fresh, text)
    panel = lesson.play(model=fresh, text=text)
    assert "Cannot read" in panel.text.value and not panel.error.value


def test_the_train_button_trains_the_live_model_and_reports_per_format():
    import matplotlib
    matplotlib.use("Agg")
    t = lesson.play_trainer(steps=100)
    assert t.steps.value == 100 and t.result is None
    model = t.train()
    assert isinstance(model, nb10_model.DateTransformer) and model.config["num_layers"] == training.LIVE["num_layers"]
    assert len(t.history["loss"]) == 100
    status = t.status.value
    assert "Held-out exact match" in status and all(fmt in status for fmt in data.FORMATS), status
    assert "Traceback" not in status


def test_the_live_numbers_are_measured():
    live = lesson.measured()["live"]
    assert live["steps"] == training.LIVE_STEPS and live["config"] == training.LIVE
    assert live["held-out exact match"]["all"] >= 0.99


def test_training_dates_in_chosen_formats():
    assert data.training_dates(300, 5) == [p for p in lesson.random_dates(300, seed=5) if not data.held_out(p[1])]
    only = data.training_dates(300, 5, formats=("d mon yyyy",))
    assert len(only) > 200 and {lesson.format_of(s) for s, _ in only} == {"d mon yyyy"}
    assert not any(data.held_out(t) for _, t in only)
    with pytest.raises(ValueError, match=r"formats\[0\]: expected one of \['d mon yyyy'.*got 'dd/mm'"):
        data.training_dates(3, 0, formats=["dd/mm"])
    with pytest.raises(ValueError, match="formats: expected at least 1 entries, got 0"):
        training.run(2, formats=())


def _comparison():
    return lesson.measured()["bahdanau"]


def test_the_comparison_with_08_is_measured_and_well_formed():
    from attnlab.lessons.nb08_bahdanau_attention import seq2seq as nb08_seq2seq
    comparison = _comparison()
    every, curves = comparison["every"], comparison["curves"]
    assert set(curves) == set(analysis.COMPARED) and comparison["format"] == "d mon yyyy"
    assert comparison["dates"] == sum(lesson.format_of(s) == "d mon yyyy" for s, _ in data.test_dates())
    for name, curve in curves.items():
        total = curve["settings"]["steps"]
        expected = list(range(every, total + 1, every)) + ([total] if total % every else [])
        assert curve["steps"] == expected, name
        n = len(expected)
        assert len(curve["exact match"]) == len(curve["cpu seconds"]) == len(curve["wall seconds"]) == n
        assert all(0 <= a <= 1 for a in curve["exact match"])
        for key in ("cpu seconds", "wall seconds"):
            assert all(0 < a <= b for a, b in zip(curve[key], curve[key][1:])), (name, key)
        reached = [(s, c) for s, a, c in zip(curve["steps"], curve["exact match"], curve["cpu seconds"]) if a >= 0.99]
        first = curve["first at >= 0.99"]
        assert (first["step"], first["cpu seconds"]) == (reached[0] if reached else (None, None))
        assert curve["settings"]["formats"] == ["d mon yyyy"]
    gru, transformer = curves["Bahdanau GRU (08)"], curves["Transformer (10)"]
    assert gru["parameters"] == sum(p.numel() for p in nb08_seq2seq.DateTranslator("additive").parameters())
    assert transformer["parameters"] == lesson.parameters(nb10_model.DateTransformer(**transformer["settings"]["config"]))
    # the Transformer was trained with the shipped model's settings, which the notebook says it was
    settings = transformer["settings"]
    assert settings["steps"] == training.SHIPPED_STEPS and settings["config"] == lesson.pretrained().config
    assert {k: settings[k] for k in training.DEFAULTS} == training.DEFAULTS
    assert 0 <= gru["held-out dates seen in training"] <= 1 and 0 <= gru["exact match on the unseen ones"] <= 1


def test_the_comparison_figure_draws_results_json():
    from matplotlib.figure import Figure
    axes = lesson.comparison_figure(axes=Figure().subplots(1, 2))
    curves = _comparison()["curves"]
    for ax, x in zip(axes, ("steps", "cpu seconds")):
        lines = [line for line in ax.get_lines() if not line.get_label().startswith("_")]     # the labelled curves
        assert len(lines) == 2
        for line, name in zip(lines, analysis.COMPARED):
            assert list(line.get_xdata()) == curves[name][x] and list(line.get_ydata()) == curves[name]["exact match"]
    labels = [t.get_text() for t in axes[0].get_legend().get_texts()]
    assert [str(curves[name]["parameters"]) in label for name, label in zip(analysis.COMPARED, labels)] == [True, True]


def test_the_comparison_lines_print_results_json():
    from attnlab.i18n import language
    curves = _comparison()["curves"]
    with language("en"):
        lines = lesson.comparison_lines()
    assert len(lines) == 4
    for line, name in zip(lines, analysis.COMPARED):
        curve = curves[name]
        assert line.startswith(name) and f"{curve['parameters']} parameters" in line
        first = curve["first at >= 0.99"]
        assert f"first >= 0.99 at step {first['step']} after {first['cpu seconds']} s CPU" in line
        assert f"{curve['cpu seconds'][-1]} s CPU ({curve['wall seconds'][-1]} s wall)" in line
    with language("zh"):
        assert "个参数" in lesson.comparison_lines()[0]


def test_the_kv_cache_heatmaps_position_labels_do_not_run_into_each_other(fresh):
    """At the panel's own size (the pixels a learner sees), the named positions under the KV-cache
    heatmap are apart: all eleven 0..10 overlapped there."""
    import matplotlib
    matplotlib.use("Agg")
    panel = lesson.play(model=fresh, text="march 7, 1994")
    panel.controls["step"].value = 11
    fig = panel.figure
    fig.canvas.draw()
    ax = fig.axes[0]
    boxes = [t.get_window_extent() for t in ax.get_xticklabels() if t.get_text()]
    assert len(boxes) >= 5
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:]), [b.bounds for b in boxes]


def test_play_and_play_trainer_take_keywords_and_check_them_once(fresh, monkeypatch):
    import matplotlib
    matplotlib.use("Agg")
    with pytest.raises(TypeError, match="positional"):
        lesson.play(fresh)
    with pytest.raises(TypeError, match=r"model: expected a DateTransformer \(e.g. pretrained\(\)\), got str"):
        lesson.play(model="shipped")
    with pytest.raises(TypeError, match="text: expected a str, got int"):
        lesson.play(model=fresh, text=7)
    with pytest.raises(ValueError, match=r"steps: expected an int <= 3000 \(the slider's range\), got 5000"):
        lesson.play_trainer(steps=5000)
    panel = lesson.play(model=fresh, text="7 mar 1994")
    checked = []
    real = data.check_source
    monkeypatch.setattr(data, "check_source", lambda text: checked.append(text) or real(text))
    panel.controls["text"].value = "8 mar 1994"                     # the typed text: source_problem, then decode_unchecked
    assert checked == [] and "8 mar 1994" in panel.text.value and not panel.error.value
