"""Notebook 12's Play panels, figures and exercises (attnlab/lessons/nb12_gpt/{live,figures,exercises}.py): each
control changes the figure and its text, a prompt outside the vocabulary shows generate's message in the panel,
the step slider replays without generating, both languages; the figures' texts agree with ``filtered``."""
import numpy as np
import pytest
import torch

import attnlab
from attnlab.lessons import nb12_gpt as lesson
from attnlab.lessons.nb12_gpt import figures, live


@pytest.fixture(scope="module")
def panel():
    return live.play(prompt="The attention weights ", temperature=0.8, top_p=0.9, seed=0, step=1)


def _view(panel):
    return panel.update.__self__


def _state(panel):
    return bytes(panel.image.value), panel.summary


@pytest.mark.parametrize("name,value", [("temperature", 0.3), ("top_k", 5), ("top_p", 0.5), ("seed", 3),
                                        ("step", 40), ("prompt", "Each head ")])
def test_moving_each_control_changes_the_figure_and_its_text(panel, name, value):
    before = _state(panel)
    old = panel.controls[name].value
    panel.controls[name].value = value
    after = _state(panel)
    panel.controls[name].value = old
    assert panel.error.value == ""
    assert after[0] != before[0] and after[1] != before[1]


def test_the_step_slider_replays_without_generating(panel):
    view = _view(panel)
    runs = view.runs
    for step in (10, 60, 100, 1):
        panel.controls["step"].value = step
        assert f"step {step} of 100" in panel.summary
    assert view.runs == runs
    panel.controls["temperature"].value = 1.3                   # a new setting generates once
    assert view.runs == runs + 1
    panel.controls["temperature"].value = 0.8                   # ... and a setting seen before does not
    assert view.runs == runs + 1


def test_the_text_grows_one_character_per_step(panel):
    panel.controls["step"].value = 5
    five = panel.summary.splitlines()[0]
    panel.controls["step"].value = 6
    six = panel.summary.splitlines()[0]
    assert len(six) == len(five) + 1
    panel.controls["step"].value = 1


def test_the_panel_shows_the_distribution_each_character_was_drawn_from(panel):
    view = _view(panel)
    prompt = panel.controls["prompt"].value
    g = view.generation(prompt, 0.8, None, 0.9, 0)
    direct = lesson.generate(view.model, prompt, live.STEPS, temperature=0.8, top_p=0.9, seed=0)
    assert g.text == direct.text
    assert torch.equal(g.probs, lesson.filtered(g.logits, temperature=0.8, top_p=0.9))


@pytest.mark.parametrize("prompt,names", [("ℵ is a letter", "'ℵ'"), ("", "at least one character"),
                                          ("x" * 200, "steps: expected at most")])
def test_a_bad_prompt_shows_the_error_in_the_panel(prompt, names):
    p = live.play(prompt=prompt)
    assert p.error.value == ""                                   # not a traceback: a message in the panel
    assert "Cannot continue this prompt" in p.summary and names in p.summary


def test_the_panel_never_executes_the_prompt():
    p = live.play(prompt="__import__('os')")                       # characters of the vocabulary: just text
    assert p.error.value == "" and "__import__('os')" in p.summary.splitlines()[0]


def test_the_panel_speaks_chinese():
    with attnlab.i18n.language("zh"):
        p = live.play(prompt="注意力", temperature=0.8, seed=1)
    assert "第 1 步" in p.summary and p.error.value == ""
    p.controls["step"].value = 2
    assert "第 2 步" in p.summary                                 # later moves keep the panel's language


@pytest.mark.parametrize("kwargs,match", [({"temperature": 0.0}, "temperature: expected a number >= 0.05"),
                                          ({"top_k": 0}, "top_k: expected"), ({"top_p": 1.5}, "top_p: expected"),
                                          ({"seed": 100}, "seed: expected"), ({"step": 101}, "step: expected"),
                                          ({"prompt": 3}, "prompt: expected a str")])
def test_play_checks_its_starting_values(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        live.play(**kwargs)


@pytest.fixture(scope="module")
def kv_panel():
    return live.play_kv(kv_heads=4, length=200, layer=2)


@pytest.mark.parametrize("name,value,phrase", [("kv_heads", 1, "query heads 1–4 share kv head 1"),
                                               ("length", 50, "after 50 positions"), ("layer", 3, None)])
def test_moving_each_kv_control_changes_the_figure_and_its_text(kv_panel, name, value, phrase):
    before = _state(kv_panel)
    old = kv_panel.controls[name].value
    kv_panel.controls[name].value = value
    after = _state(kv_panel)
    assert kv_panel.error.value == "" and after[0] != before[0]
    if phrase:
        assert phrase in kv_panel.summary and after[1] != before[1]
    kv_panel.controls[name].value = old


def test_the_kv_panel_reports_the_formula_bytes(kv_panel):
    kv_panel.controls["kv_heads"].value = 2
    model = lesson.pretrained(kv_heads=2)
    assert f"{lesson.cache_bytes(model, 200):,} bytes (50% of" in kv_panel.summary
    kv_panel.controls["kv_heads"].value = 4


@pytest.mark.parametrize("kwargs,match", [({"kv_heads": 3}, "kv_heads: expected one of"),
                                          ({"length": 0}, "length: expected"), ({"layer": 5}, "layer: expected")])
def test_play_kv_checks_its_starting_values(kwargs, match):
    with pytest.raises(ValueError, match=match):
        live.play_kv(**kwargs)


def test_the_filters_text_says_what_the_figure_draws():
    logits = torch.tensor([3.0, 2.0, 1.0, 0.0, -1.0] + [-5.0] * 20)
    stages = figures.filter_stages(logits, 0.5, 3, 0.9)
    assert np.allclose(stages[3], lesson.filtered(logits, temperature=0.5, top_k=3, top_p=0.9).numpy())
    assert np.allclose(stages[1], torch.softmax(logits.double() / 0.5, 0).numpy())
    text = lesson.filters_text(logits, temperature=0.5, top_k=3, top_p=0.9)
    kept = int((stages[3] > 0).sum())
    assert "top-k keeps 3 characters" in text and f"{kept} characters can be drawn" in text


def test_a_filter_left_off_passes_the_stage_on():
    logits = torch.randn(30, generator=torch.Generator().manual_seed(0))
    stages = figures.filter_stages(logits, 1.0, None, None)
    assert all(np.array_equal(stages[0], s) for s in stages[1:])


@pytest.mark.parametrize("call,match", [
    (lambda: lesson.filters_figure(torch.zeros(5), temperature=0), "temperature: expected a number > 0"),
    (lambda: lesson.timing_figure([], [], []), "lengths: expected"),
    (lambda: lesson.patterns_figure(torch.zeros(4, 3), kv_heads=2, labels=list("abc")), "weights: expected"),
    (lambda: lesson.induction_figure(torch.zeros(4), {"a": 1.0}), "induction: expected")])
def test_figures_check_their_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_the_shown_text_wraps_wide_characters_at_half_the_count():
    assert live.shown_text("a" * 10, width=4).splitlines() == ["aaaa", "aaaa", "aa"]
    assert live.shown_text("注意力权重", width=4).splitlines() == ["注意", "力权", "重"]
    assert live.shown_text("ab\ncd", width=4).splitlines() == ["ab", "cd"]
