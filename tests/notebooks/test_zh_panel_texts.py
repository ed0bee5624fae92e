"""A Chinese notebook's Play panels describe themselves with the names a learner sees (issue 49).

A panel's text/plain (what JupyterLab, nbviewer and static views show for a panel, and the first line of
its text form) lists its controls. It must list them as the learner sees them, by their labels in the
panel's language ("控件：训练步"), never by the Python keyword names of the lesson's code ("控件：step",
"训练按钮（steps, layers）"). This builds every Play panel of every zh notebook from the Play cells' own
arguments (tests/_notebook_panels.play_panels: no notebook is executed) and reads the first line of the
text/plain of what each Play cell displays, its quoted name (the downloads' file name) aside: no control's
keyword name may stand there as a word, unless that control's label holds it too (a symbol: T, d_k,
"查询数 Tq"), nor a trainer's "steps".
"""
import re
from pathlib import Path

import pytest

import attnlab
from _notebook_panels import last_plan, play_panels
from attnlab.ui.trainer import Trainer

ZH = Path(__file__).parents[2] / "notebooks" / "zh"
NOTEBOOKS = sorted(p.stem for p in ZH.glob("[0-9][0-9]_*.ipynb"))


def _label(control):
    return re.sub(r"<[^>]*>", "", getattr(control, "description", "") or "").strip().rstrip(":：").strip()


def _word(name):
    return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")


def keyword_names_shown(first_line, controls):
    """The keyword names of ``controls`` ({name: widget}) that ``first_line`` shows as a word, where the
    control's label does not hold that word itself (a symbol in its label: "查询数 Tq", "n（键数）")."""
    return [name for name, control in controls.items()
            if not _word(name).search(_label(control)) and _word(name).search(first_line)]


def test_the_check_finds_a_keyword_name_and_leaves_a_symbol_label_alone():
    import ipywidgets as widgets
    controls = {"top_k": widgets.IntSlider(description="top-k（0：关）"), "T": widgets.FloatSlider(description="T")}
    assert keyword_names_shown("交互面板“12”，控件：top_k、T", controls) == ["top_k"]
    assert keyword_names_shown("交互面板“12”，控件：top-k（0：关）、T", controls) == []
    assert keyword_names_shown("交互面板“12”，控件：top_kx", controls) == []
    tq = {"Tq": widgets.IntSlider(description="查询数 Tq")}
    assert keyword_names_shown("控件：查询数 Tq", tq) == [] and keyword_names_shown("控件：Tq", {"Tq": widgets.IntSlider()}) == ["Tq"]


@pytest.fixture
def english_after():
    yield
    attnlab.set_language("en")          # the zh notebooks' first cell chose Chinese for this process


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_a_zh_play_panels_text_names_its_controls_as_the_learner_sees_them(notebook, english_after):
    made = play_panels(ZH / f"{notebook}.ipynb")
    assert made, f"{notebook}: no Play panel built"
    controls = {}
    for panel in made:
        controls.update(panel.controls)
    bad = []
    for result in last_plan["results"]:
        first = result._repr_mimebundle_()["text/plain"].split("\n", 1)[0]
        first = re.sub(r"“[^”]*”|'[^']*'", "", first)       # the panel's name (its downloads' file name) aside
        shown = keyword_names_shown(first, controls)
        if isinstance(result, Trainer) and _word("steps").search(first):
            shown.append("steps")                         # a trainer's steps slider
        if shown:
            bad.append(f"{first!r} shows {shown}")
    assert not bad, f"{notebook}: control keyword names in a panel's text/plain:\n" + "\n".join(bad)
