"""tools/stored_figures.py: the check nbval runs (conftest.py) that a notebook's stored pictures,
shown by the Voila template before the kernel has run, are the ones its code draws."""
import base64
import io
import sys
from pathlib import Path

import matplotlib
import nbformat
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import stored_figures as sf


def png(ys, label="x", dpi=60):
    fig, ax = plt.subplots(figsize=(4, 3), dpi=dpi)
    ax.plot(ys)
    ax.set_title(label)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def image_output(p, widget=False):
    data = {"image/png": base64.b64encode(p).decode(), "text/plain": "<Figure>"}
    if widget:
        data["application/vnd.jupyter.widget-view+json"] = {"model_id": "x", "version_major": 2, "version_minor": 0}
    return nbformat.v4.new_output("display_data", data=data)


def html_output(*pngs):
    html = "".join(f'<img src="data:image/png;base64,{base64.b64encode(p).decode()}">' for p in pngs)
    return nbformat.v4.new_output("display_data", data={"text/html": html, "text/plain": "<HTML>"})


def test_same_picture_passes_and_a_redrawn_equal_one_too():
    a = png([0, 1, 0])
    assert sf.differences([image_output(a)], [image_output(a)]) == []
    assert sf.differences([image_output(a)], [image_output(png([0, 1, 0]))]) == []


@pytest.mark.parametrize("fresh", [png([0, 1, 0.05]),          # a curve moved a little
                                   png([0, 1, 0], label="y"),   # one letter of a label
                                   png([0, 1, 0], dpi=61)])     # another size
def test_a_changed_picture_fails(fresh):
    found = sf.differences([image_output(png([0, 1, 0]))], [image_output(fresh)])
    assert len(found) == 1 and "picture 0" in found[0] and "re-execute" in found[0]


def test_a_picture_missing_or_added_fails():
    a = png([0, 1, 0])
    assert sf.differences([image_output(a)], []) == ["1 stored picture(s), 0 drawn by the code"]
    assert sf.differences([], [image_output(a)]) == ["0 stored picture(s), 1 drawn by the code"]


def test_pictures_inside_html_are_compared():
    a, b = png([0, 1, 0]), png([1, 0, 1])
    assert sf.differences([html_output(a, b)], [html_output(a, b)]) == []
    found = sf.differences([html_output(a, b)], [html_output(a, a)])
    assert len(found) == 1 and found[0].startswith("picture 1:")


def test_widget_views_are_not_shown_stored_so_not_compared():
    """A panel's bundle carries its picture, but the template never shows a stored widget view."""
    assert sf.pictures([image_output(png([0, 1, 0]), widget=True)]) == []
    assert sf.differences([image_output(png([0, 1, 0]), widget=True)],
                          [image_output(png([1, 0, 1]), widget=True)]) == []


def test_rms_tolerance_below_a_one_pixel_change():
    """RMS_TOL is under the RMS of the smallest change that matters (one label letter)."""
    assert sf.rms(png([0, 1, 0]), png([0, 1, 0], label="y")) > 10 * sf.RMS_TOL
    assert sf.rms(png([0, 1, 0]), png([0, 1, 0], dpi=61)) == float("inf")


def test_nbval_uses_the_comparison():
    """conftest.py wraps nbval's compare_outputs (nbval alone skips image/png)."""
    from nbval.plugin import IPyNbCell

    class Cell:
        parent = type("P", (), {"skip_compare": ("metadata", "image/png")})()
        colors = type("C", (), {"FAIL": "", "ENDC": "", "OKBLUE": "", "OKGREEN": ""})()

        def sanitize(self, s):
            return s

    cell = Cell()
    a, b = image_output(png([0, 1, 0])), image_output(png([0, 1, 0.05]))
    assert IPyNbCell.compare_outputs(cell, [a], [a]) is True
    assert IPyNbCell.compare_outputs(cell, [b], [a]) is False
    assert any("picture 0" in line for line in cell.comparison_traceback)
