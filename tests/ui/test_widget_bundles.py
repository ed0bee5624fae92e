"""Everything built around a widget displays through ``panels.widget_bundle``: a Trainer, each kind of
self-check, and the lesson widgets of 01, 08 and 09. Shown through IPython's display formatter (what a
notebook does), each gives the widget view (protocol 2) of its own live widget, a text form, and the
current figure as PNG where it has one. This module runs under ipywidgets 8 (the main suite) and 7.7
(`make test-ipywidgets7`, as Colab ships it); ipywidgets 7 has no ``Widget._repr_mimebundle_``, so any
object that still called it would fail there.

Also ``trainer.one_thread``, the one place lessons switch torch to one thread for training.
"""
import base64
import warnings

import ipywidgets
import pytest
import torch
from IPython.core.formatters import DisplayFormatter

from attnlab.ui import panels, selfcheck
from attnlab.ui.trainer import Trainer, one_thread

VIEW = "application/vnd.jupyter.widget-view+json"
PNG = b"\x89PNG\r\n\x1a\n"


def shown(obj):
    """The display bundle a notebook would store for ``obj``."""
    data, _ = DisplayFormatter().format(obj)
    return data


def assert_live_view(data, widget):
    view = data[VIEW]
    assert (view["version_major"], view["version_minor"]) == (2, 0)
    assert view["model_id"] == widget.model_id
    with warnings.catch_warnings():                 # the registry is public in 7, deprecated in 8
        warnings.simplefilter("ignore", DeprecationWarning)
        assert ipywidgets.Widget.widgets[view["model_id"]] is widget      # a live widget of that id
    assert isinstance(data["text/plain"], str) and data["text/plain"].strip()


def png_of(data):
    raw = base64.b64decode(data["image/png"])
    assert raw.startswith(PNG)
    return raw


# --- the helper ------------------------------------------------------------------------------------

def test_widget_bundle_holds_view_text_and_png():
    box = ipywidgets.VBox([ipywidgets.HTML("hi")])
    png = PNG + b"rest"
    bundle = panels.widget_bundle(box, "a text", png)
    assert bundle["text/plain"] == "a text"
    assert base64.b64decode(bundle["image/png"]) == png
    assert bundle[VIEW] == {"version_major": 2, "version_minor": 0, "model_id": box.model_id}
    assert bundle["text/html"] == ("<div class='attnlab-static-panel'><img alt=\"a text\" src='data:image/png;base64,"
                                   f"{bundle['image/png']}' style='max-width:100%;height:auto'><pre style='margin:4px 0;"
                                   "white-space:pre-wrap'>a text</pre></div>")
    shown_text = panels.widget_bundle(box, "Live panel 'p' <b>\nw = 0.5 & more", png)["text/html"]
    assert "alt=\"Live panel &#x27;p&#x27; &lt;b&gt;\"" in shown_text      # first line, escaped
    assert ">Live panel &#x27;p&#x27; &lt;b&gt;\nw = 0.5 &amp; more</pre>" in shown_text
    assert set(panels.widget_bundle(box, "a text")) == {"text/plain", VIEW}      # no picture, no HTML


def test_widget_bundle_refuses_bad_arguments():
    box = ipywidgets.VBox()
    with pytest.raises(TypeError, match=r"widget: expected a live ipywidgets widget .*got str"):
        panels.widget_bundle("box", "text")
    with pytest.raises(TypeError, match=r"text: expected a str, got int"):
        panels.widget_bundle(box, 3)
    with pytest.raises(TypeError, match=r"png: expected PNG bytes or None, got str"):
        panels.widget_bundle(box, "text", "picture.png")
    with pytest.raises(ValueError, match=r"png: expected PNG bytes \(starting with the PNG signature\), got b'GIF89a"):
        panels.widget_bundle(box, "text", b"GIF89a....")
    closed = ipywidgets.VBox()
    closed.close()
    with pytest.raises(TypeError, match=r"widget: expected a live ipywidgets widget .*got VBox"):
        panels.widget_bundle(closed, "text")


# --- Trainer and self-checks -----------------------------------------------------------------------

def _run(steps, scale):
    for step in range(steps):
        yield {"loss": scale / (step + 1)}
    return "model"


def test_a_trainer_displays_its_widget_figure_and_text():
    trainer = Trainer(_run, steps=10, controls={"scale": ipywidgets.FloatSlider(value=1.0, min=0.5, max=2)},
                      name="t")
    before = shown(trainer)
    assert_live_view(before, trainer.widget)
    assert before["text/plain"] == ("Live panel 't': train button (steps, scale), progress bar, "
                                    "live curves: loss\nNot trained yet.")
    assert png_of(before) == bytes(trainer.image.value)
    assert trainer.train() == "model"
    after = shown(trainer)
    assert_live_view(after, trainer.widget)
    assert after["text/plain"].endswith("\nstep 10 of 10: loss 0.1000")
    assert "\nDone: 10 steps in " in after["text/plain"]
    assert png_of(after) == bytes(trainer.image.value) != png_of(before)     # the trained curve


@pytest.mark.parametrize("kind", ["multiple_choice", "numeric"])
def test_each_self_check_displays_its_widget_and_question(kind):
    check = (selfcheck.multiple_choice("Pick <b>b</b>?", {"a": "no", "b": "yes"}, "b") if kind == "multiple_choice"
             else selfcheck.numeric("How much is 1 &lt; 2 ? 3 : 4?", 3))
    data = shown(check)
    assert_live_view(data, check.widget)
    assert data["text/plain"] == ("Self-check: Pick <b>b</b>?" if kind == "multiple_choice"
                                  else "Self-check: How much is 1 < 2 ? 3 : 4?")
    assert "image/png" not in data                                 # no figure, no picture


# --- every lesson's Play panels: one door, each a Panel (a Trainer is one) ------------------------------

def test_lesson_01_explorer_and_training_view_display():
    from attnlab.lessons import nb01_kernel_regression as lesson
    explorer = lesson.play(sigma=0.3, n_train=20, query=4.0)
    data = shown(explorer)
    assert_live_view(data, explorer.widget)
    assert png_of(data) == bytes(explorer.image.value)
    training = lesson.play_trainer(explorer=explorer, steps=5)
    data = shown(training)
    assert_live_view(data, training.widget)
    assert data["text/plain"].startswith("Live panel 'kernel-regression-training': train button (steps, "
                                         "leave one out), progress bar, live curves: error")
    assert training.summary in data["text/plain"]
    assert png_of(data) == bytes(training.image.value)


@pytest.mark.parametrize("lesson_name,make", [
    ("nb00_index", lambda m: m.play()),
    ("nb02_scoring_functions", lambda m: m.play(d_k=16, num_queries=64)),
    ("nb06_positional_encoding", lambda m: m.play(n=20)),
    ("nb07_masks_and_efficient_attention", lambda m: m.play()),
    ("nb07_masks_and_efficient_attention", lambda m: m.play_tiles(**dict(zip(("queries", "keys", "values"), m.toy_problem())))),
    ("nb08_bahdanau_attention", lambda m: m.play(models={"additive (shipped)": m.pretrained("additive")})),
    ("nb09_transformer_block", lambda m: m.play()),
])
def test_a_lesson_panel_displays_as_a_panel(lesson_name, make):
    """Every Play function returns a Panel, shown by the Panel's own bundle (view, text, PNG): no lesson has a
    display of its own."""
    import importlib
    obj = make(importlib.import_module(f"attnlab.lessons.{lesson_name}"))
    assert isinstance(obj, panels.Panel) and type(obj)._repr_mimebundle_ is panels.Panel._repr_mimebundle_
    data = shown(obj)
    assert_live_view(data, obj.widget)
    assert data["text/plain"].startswith(f"Live panel '{obj.name}'")
    assert obj.summary and data["text/plain"].endswith(obj.summary)
    assert png_of(data) == bytes(obj.image.value)


@pytest.mark.parametrize("lesson_name", ["nb08_bahdanau_attention", "nb09_transformer_block"])
def test_a_lessons_trainer_displays_and_feeds_the_explorer(lesson_name):
    import importlib
    lesson = importlib.import_module(f"attnlab.lessons.{lesson_name}")
    explorer = (lesson.play(models={"additive (shipped)": lesson.pretrained("additive")})
                if lesson_name.startswith("nb08") else lesson.play())
    trainer = lesson.play_trainer(explorer=explorer, steps=20)
    assert isinstance(trainer, Trainer) and isinstance(trainer, panels.Panel)
    data = shown(trainer)
    assert_live_view(data, trainer.widget)
    assert png_of(data) == bytes(trainer.image.value)


# --- one_thread ------------------------------------------------------------------------------------

@pytest.fixture
def two_threads():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


def test_one_thread_runs_on_one_thread_and_restores(two_threads):
    with one_thread():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == 2


def test_one_thread_restores_the_thread_count_when_the_block_raises(two_threads):
    with pytest.raises(RuntimeError, match="inside"):
        with one_thread():
            raise RuntimeError("inside")
    assert torch.get_num_threads() == 2


def test_the_lessons_train_with_the_shared_one_thread():
    from attnlab.lessons.nb08_bahdanau_attention import seq2seq
    from attnlab.lessons.nb09_transformer_block import training
    assert seq2seq.one_thread is one_thread and training.one_thread is one_thread
