"""Every live figure says in words what it shows now (issue 38, docs/accessibility.md): each Play panel
of every notebook, both languages, built as its notebook builds it (tests/_notebook_panels.py, no
notebook run), has an accessible name (carried beside the text under the figure, for the Voila template
to make the image's alt) that is that text (or its ``describe``), in the notebook's language; moving a control changes the name,
and moving it back gives the name of that state again."""
import html
import re
from pathlib import Path

import ipywidgets as widgets
import matplotlib
import pytest

matplotlib.use("Agg")
from _notebook_panels import play_panels
from attnlab.i18n import language
from attnlab.ui import panels

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
ALL = [p for nb in NOTEBOOKS for p in (nb, ROOT / "notebooks" / "zh" / nb.name) if p.exists()]
CJK = re.compile(r"[\u4e00-\u9fff]")


def other_value(control):
    """(attribute, a value of it other than the control's own) for ``control``, or None where there is
    none to choose: a checkbox flips, a number steps, a menu picks another option (by index)."""
    if isinstance(control, widgets.Checkbox):
        return "value", not control.value
    if isinstance(control, (widgets.IntSlider, widgets.FloatSlider, widgets.BoundedIntText, widgets.BoundedFloatText)):
        step = control.step or 1
        return "value", control.value - step if control.value - step >= control.min else control.value + step
    if isinstance(control, widgets.widget_selection._Selection) and len(list(control.options)) > 1:
        return "index", 1 if control.index == 0 else 0
    return None


def carried(panel):
    """The figure's name as the page gets it (the hidden element beside the text)."""
    found = re.findall(r"<span class='attnlab-figure-name' hidden>(.*?)</span>", panel.text.value, re.S)
    assert len(found) == 1, panel.text.value
    return html.unescape(found[0])


def movable(panel):
    return [(name, c) for name, c in panel.controls.items() if other_value(c) is not None]


@pytest.mark.parametrize("path", ALL, ids=[f"{p.parent.name}-{p.stem}" if p.parent.name == "zh" else p.stem for p in ALL])
def test_every_live_figure_is_named_by_what_it_shows_now(path):
    zh = path.parent.name == "zh"
    with language("zh" if zh else "en"):      # an English notebook chooses no language: not the last one's
        found = play_panels(path)
    for i, panel in enumerate(found):
        where = f"{path.relative_to(ROOT)}, panel {i + 1} ({panel.name})"
        first = panel.accessible_name
        assert first, f"{where}: the figure has no accessible name"
        assert carried(panel) == first, f"{where}: the name is not carried beside the text"
        if panel.describe is None:
            assert first == panel.summary.strip(), f"{where}: the name is not the text under the figure"
        assert bool(CJK.search(first)) == zh, f"{where}: the name is not in the notebook's language: {first!r}"
        for name, control in movable(panel):
            attr, value = other_value(control)
            before, start, picture = panel.accessible_name, getattr(control, attr), bytes(panel.image.value)
            setattr(control, attr, value)
            moved = panel.accessible_name
            assert moved and carried(panel) == moved
            if bytes(panel.image.value) != picture:   # the figure changed (an untrained trainer's may not)
                assert moved != before, f"{where}: moving {name!r} changed the figure, not its name: {before!r}"
            setattr(control, attr, start)
            if bytes(panel.image.value) == picture:
                assert panel.accessible_name == before, f"{where}: {name!r} moved back, the name did not come back"


def test_describe_names_the_figure_and_none_from_it_falls_back_to_the_text():
    fig, ax = panels.new_figure()
    line, = ax.plot([0, 1], [0, 1])
    slider = widgets.IntSlider(value=1, min=1, max=3)

    def update(k):
        line.set_ydata([0, k])
        return f"slope {k}"
    p = panels.Panel(fig, {"k": slider}, update, describe=lambda k: f"a line rising to {k}" if k < 3 else None)
    assert p.accessible_name == carried(p) == "a line rising to 1"
    slider.value = 2
    assert p.accessible_name == "a line rising to 2"
    slider.value = 3
    assert p.accessible_name == "slope 3" and p.summary == "slope 3"


def test_describe_must_be_a_function():
    fig, _ = panels.new_figure()
    with pytest.raises(TypeError, match=r"describe: expected a function describe\(\*\*values\) -> str, or None, got str"):
        panels.Panel(fig, {}, lambda: None, describe="the figure")
