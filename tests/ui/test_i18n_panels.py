"""Long-lived widgets (Panel, self-checks, Trainer) remember the language they were built in: a
callback run after ``set_language`` still writes in the build language, and the other way round."""
import ipywidgets as widgets
import pytest

import attnlab
from attnlab.i18n import gettext as _, language
from attnlab.ui import panels, selfcheck
from attnlab.ui.trainer import Trainer

# msgids of the catalog with a Chinese msgstr (drawing layer)
WEIGHT, HEAD = "weight", "head {h}"


@pytest.fixture(autouse=True)
def english_after():
    yield
    attnlab.set_language("en")


def _titled_panel():
    fig, ax = panels.new_figure(figsize=(3, 2))
    step = widgets.IntSlider(value=1, min=1, max=4, description="h")

    def update(h):
        ax.set_title(_(HEAD).format(h=h))
        return _(WEIGHT)

    return panels.Panel(fig, {"h": step}, update, name="lang"), ax


def test_the_catalog_has_chinese_for_the_strings_used_here():
    with language("zh"):
        assert _(HEAD) != HEAD and _(WEIGHT) != WEIGHT


@pytest.mark.parametrize("built, later", [("en", "zh"), ("zh", "en")])
def test_a_panel_redraws_in_the_language_it_was_built_in(built, later):
    with language(built):
        panel, ax = _titled_panel()
        want_title, want_text = _(HEAD).format(h=3), _(WEIGHT)
        buttons = [b.description for b in panel.widget.children[-1].children if isinstance(b, widgets.Button)]
    attnlab.set_language(later)
    panel.controls["h"].value = 3                             # a move after the switch
    assert ax.get_title() == want_title
    assert panel.summary == want_text
    with language(built):
        assert buttons == [_("Download {format}").format(format=f) for f in ("PNG", "SVG")]
    assert attnlab.get_language() == later                    # the panel left the global choice alone


GONE = ("Controls disabled: the kernel is gone, so this figure no longer follows them. "
        "Restart the kernel and run the cells again.")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_panels_kernel_gone_note_is_in_its_language_hidden_until_its_views_are_disconnected(lang):
    """The note JupyterLab shows when the kernel is gone (issue 28; tests/browser/test_lab_kernel_lost.py
    shows it in a real JupyterLab): the panel's first child, in the build language, hidden twice (its
    box by the style, its text by the `hidden` attribute), shown only under the class ipywidgets'
    JupyterLab manager gives a view whose kernel is gone."""
    with language(lang):
        panel, _ax = _titled_panel()
        want = _(GONE)
    assert lang == "en" or want != GONE
    gone = panel.widget.children[0]
    assert gone is panel.gone and "attnlab-disconnected-note" in gone._dom_classes
    value = gone.value
    assert f"<div class='attnlab-disconnected-text' role='status' hidden>{want}</div>" in value
    assert ".attnlab-panel > .attnlab-disconnected-note { display: none; }" in value
    assert ".attnlab-panel.jupyter-widgets-disconnected > .attnlab-disconnected-note { display: block" in value
    assert "attnlab-panel" in panel.widget._dom_classes


@pytest.mark.parametrize("built, later", [("en", "zh"), ("zh", "en")])
def test_a_self_check_answers_in_the_language_it_was_built_in(built, later):
    with language(built):
        check = selfcheck.numeric("?", answer=2.0, hint="")
        want_small = _("{value} is too small. {hint}").format(value="1", hint="")
        want_hide = _("Hide solution")
    attnlab.set_language(later)
    assert check.check(1.0) is False
    assert want_small in check.feedback.value
    check.reveal.value = True
    assert check.reveal.description == want_hide


@pytest.mark.parametrize("built, later", [("en", "zh"), ("zh", "en")])
def test_a_trainer_reports_in_the_language_it_was_built_in(built, later):
    def run(steps):
        for i in range(steps):
            yield {"loss": 1.0 / (i + 1)}

    with language(built):
        trainer = Trainer(run, steps=10, min_steps=10, max_steps=20, step=10)
        want = _("step {step} of {total}: {numbers}").format(
            step=10, total=10, numbers=_("{curve} {value:.4f}").format(curve=_("loss"), value=0.1))
    attnlab.set_language(later)
    trainer.train()
    assert trainer.summary == want


def test_a_hint_marked_for_the_catalog_shows_in_the_language_of_the_check(capsys):
    """Lessons keep their mistake lists as English msgids (N_); check_function looks each up when it shows it."""
    import torch

    from attnlab.lessons import nb07_masks_and_efficient_attention as nb07
    from attnlab.lessons.nb07_masks_and_efficient_attention import exercises as nb07_exercises
    top_left_hint = nb07_exercises.BOTTOM_RIGHT_MISTAKES[0]      # "this is the top-left mask (al.causal_mask) ..."
    with language("zh"):
        translated = _(top_left_hint.message)
        assert translated != top_left_hint.message
        nb07.check_bottom_right(lambda num_queries, num_keys: torch.ones(num_queries, num_keys, dtype=torch.bool).tril())
    zh = capsys.readouterr().out
    assert translated in zh and top_left_hint.message not in zh
    nb07.check_bottom_right(lambda num_queries, num_keys: torch.ones(num_queries, num_keys, dtype=torch.bool).tril())
    assert top_left_hint.message in capsys.readouterr().out


def test_two_panels_in_two_languages_refreshed_at_the_same_time_each_draw_in_their_own():
    """Each update waits inside its refresh until the other is inside its own (a barrier): one
    language for the whole process would put one panel's title in the other's language."""
    import threading
    barrier = threading.Barrier(2, timeout=10)
    built = {}
    for lang in ("zh", "en"):
        with language(lang):
            fig, ax = panels.new_figure(figsize=(3, 2))
            step = widgets.IntSlider(value=1, min=1, max=4, description="h")
            wait = []

            def update(h, ax=ax, wait=wait):
                if wait:
                    barrier.wait()
                ax.set_title(_(HEAD).format(h=h))
                return _(WEIGHT)

            built[lang] = (panels.Panel(fig, {"h": step}, update, name=lang), ax, wait, _(HEAD).format(h=2))
    attnlab.set_language("en")
    for _panel, _ax, wait, _want in built.values():
        wait.append(True)
    threads = [threading.Thread(target=lambda p=p: setattr(p.controls["h"], "value", 2)) for p, *_ in built.values()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for lang, (panel, ax, _wait, want) in built.items():
        assert ax.get_title() == want, lang
        assert panel.error.value == ""
    assert built["zh"][3] != built["en"][3]
    assert attnlab.get_language() == "en"


def test_a_panel_whose_update_raises_leaves_the_kernels_language_and_keeps_its_own():
    with language("zh"):
        panel, ax = _titled_panel()
        want = _(HEAD).format(h=4)
    attnlab.set_language("en")
    good = panel.update
    panel.update = lambda h: 1 / 0
    panel.controls["h"].value = 2
    assert "ZeroDivisionError" in panel.error.value
    assert attnlab.get_language() == "en"
    panel.update = good
    panel.controls["h"].value = 4
    assert ax.get_title() == want and panel.error.value == ""


@pytest.mark.parametrize("lang, want", [
    ("en", "Live panel 'labels' with controls: temperature T, top-k (0: off), mode, top_p"),
    ("zh", "交互面板“labels”，控件：温度 T、top-k（0：关）、mode、top_p"),
])
def test_a_panels_text_names_its_controls_by_their_labels_in_its_language(lang, want):
    """Issue 49: the text/plain lists what the learner sees: each control's label (markup and a trailing colon
    dropped), its keyword name only when it has none; a Chinese list takes the enumeration comma."""
    fig, ax = panels.new_figure(figsize=(2, 1.5))
    with language(lang):
        controls = {"temperature": widgets.FloatSlider(description=_("temperature T")),
                    "top_k": widgets.IntSlider(description=_("top-k (0: off)")),
                    "mode": widgets.Dropdown(options=["a"], description="<b>mode</b>:"),
                    "top_p": widgets.FloatSlider()}
        panel = panels.Panel(fig, controls, lambda **values: None, name="labels")
    attnlab.set_language("en" if lang == "zh" else "zh")          # built earlier: its text stays in its language
    assert panel._repr_mimebundle_()["text/plain"] == want
    assert panels.panel.label_of(widgets.Text(description="  prompt ： "), "x") == "prompt"


@pytest.mark.parametrize("lang, want", [
    ("en", "Live panel 'training': train button (steps, model), progress bar, live curves: loss, accuracy"),
    ("zh", "交互面板“training”：训练按钮（步数、模型）、进度条、实时曲线：损失、准确率"),
])
def test_a_trainers_text_names_its_steps_and_controls_by_their_labels(lang, want):
    def run(steps, layers):
        for i in range(steps):
            yield {"loss": 1.0 / (i + 1), "accuracy": 0.5}

    with language(lang):
        trainer = Trainer(run, steps=10, min_steps=10, max_steps=20, step=10, curves=("loss", "accuracy"),
                          controls={"layers": widgets.ToggleButtons(options=[1, 2], description=_("model"))})
    attnlab.set_language("en" if lang == "zh" else "zh")
    assert trainer._repr_mimebundle_()["text/plain"].split("\n")[0] == want
