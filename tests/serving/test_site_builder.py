"""tools/build_site.py on small notebooks made here: which representation an output gets, how
widgets are drawn from the stored widget state, and that a page references nothing outside."""
import base64
import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
# the repository's address as pyproject.toml writes it (a fork's own, in a fork: no test names the owner)
_PYPROJECT = (ROOT / "pyproject.toml").read_text()
SLUG = re.search(r'^Repository = "https://github\.com/([^"]+)"', _PYPROJECT, re.M).group(1)
BRANCH = re.search(r'^default-branch = "([^"]+)"', _PYPROJECT, re.M).group(1)
sys.path.insert(0, str(ROOT / "tools"))
import build_site

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"0" * 20).decode()
VIEW = "application/vnd.jupyter.widget-view+json"


def model(name, **state):
    return {"model_name": name, "model_module": "@jupyter-widgets/controls", "state": state}


def notebook_with(state, outputs):
    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": state, "version_major": 2,
                                                                             "version_minor": 0}}
    nb.cells = [nbformat.v4.new_markdown_cell("# T\n\n$x^2$"), nbformat.v4.new_code_cell("x", outputs=outputs)]
    return nb


def display(data):
    return nbformat.v4.new_output("display_data", data=data)


SELFCHECK = {
    "q": model("HTMLModel", value="<b>Self-check.</b> Which?"),
    "c": model("RadioButtonsModel", _options_labels=["one <b>", "two"], index=None),
    "h": model("HBoxModel", children=[]),
    "f": model("HTMLModel", value=""),
    "s": model("HTMLModel", value="<div>Because two.</div>"),
    "box": model("VBoxModel", _dom_classes=["attnlab-selfcheck"],
                 children=["IPY_MODEL_q", "IPY_MODEL_c", "IPY_MODEL_h", "IPY_MODEL_f", "IPY_MODEL_s"]),
}


def test_selfcheck_shows_question_options_and_a_folded_solution():
    nb = build_site.static_outputs(notebook_with(SELFCHECK, [display({VIEW: {"model_id": "box"}, "text/plain": "Self-check"})]))
    out = nb.cells[1].outputs[0]["data"]
    assert list(out) == ["text/html"]
    html = out["text/html"]
    assert "Which?" in html and "<li>one &lt;b&gt;</li>" in html and "<li>two</li>" in html
    assert re.search(r"<details><summary>Solution</summary><div>Because two.</div></details>", html)
    assert "<details open" not in html
    assert nb.cells[1].metadata["transient"]["remove_source"]      # the code that holds the answer is hidden


def test_panel_image_comes_from_the_stored_widget_buffer():
    state = {"img": dict(model("ImageModel", format="png"), buffers=[{"path": ["value"], "encoding": "base64", "data": PNG}]),
             "t": model("HTMLModel", value="<pre>σ = 0.3</pre>"),
             "sl": model("FloatSliderModel", description="σ", value=0.3),
             "btn": model("ButtonModel", description="Download PNG"),
             "p": model("VBoxModel", _dom_classes=["attnlab-panel"], children=["IPY_MODEL_sl", "IPY_MODEL_img", "IPY_MODEL_t", "IPY_MODEL_btn"])}
    nb = build_site.static_outputs(notebook_with(state, [display({VIEW: {"model_id": "p"}, "text/plain": "Live panel"})]))
    html = nb.cells[1].outputs[0]["data"]["text/html"]
    assert f"src='data:image/png;base64,{PNG}'" in html
    assert "σ = 0.3" in html and "Download" not in html
    assert html.startswith("<div class='attnlab-static-panel'>")


def test_image_png_wins_over_the_widget_view_wherever_present():
    nb = build_site.static_outputs(notebook_with(SELFCHECK, [display({VIEW: {"model_id": "box"}, "image/png": PNG,
                                                                     "text/plain": "Live panel 'x'\nq1: cat 0.70"})]))
    page = nb.cells[1].outputs[0]["data"]["text/html"]
    assert list(nb.cells[1].outputs[0]["data"]) == ["text/html"]
    # its alt is what the figure shows (the panel's text summary, issue 38), not "live panel"
    assert page.startswith("<div class='attnlab-static-panel'><img alt=\"q1: cat 0.70\" src='data:image/png;base64,")
    assert PNG in page and "<pre>q1: cat 0.70</pre>" in page     # the picture, framed, and its text summary
    assert "widgets" not in nb.metadata


def test_a_widget_without_stored_state_falls_back_to_its_text():
    nb = build_site.static_outputs(notebook_with({}, [display({VIEW: {"model_id": "gone"}, "text/plain": "Live panel 'x'"})]))
    assert nb.cells[1].outputs[0]["data"] == {"text/plain": "Live panel 'x'"}


def test_links_between_notebooks_point_at_their_pages():
    nb = notebook_with({}, [])
    nb.cells[0].source = "[next](02_scoring_functions.ipynb), [part](03_x.ipynb#Play), [ext](https://x.org/a.ipynb)"
    assert build_site.static_outputs(nb).cells[0].source == (
        "[next](02_scoring_functions.html), [part](03_x.html#Play), [ext](https://x.org/a.ipynb)")


def test_link_and_install_cells_are_left_out_of_the_page():
    nb = notebook_with({}, [])
    nb.cells.insert(0, nbformat.v4.new_code_cell("try: ...", id="attnlab-colab"))
    nb.cells.insert(0, nbformat.v4.new_markdown_cell("links", id="attnlab-links"))
    assert [c.get("id") for c in build_site.static_outputs(nb).cells if c.get("id", "").startswith("attnlab")] == []


@pytest.fixture(scope="module")
def small_site(tmp_path_factory):
    d = tmp_path_factory.mktemp("site")
    nb = notebook_with(SELFCHECK, [display({VIEW: {"model_id": "box"}, "text/plain": "x"}), display({"image/png": PNG})])
    nbformat.write(nb, d / "01_small.ipynb")
    return build_site.build(d / "out", katex=None, notebooks=[d / "01_small.ipynb"])


def test_pages_reference_nothing_outside_the_site(small_site):
    for page in small_site.glob("*.html"):
        text = page.read_text()
        for tag in re.findall(r"<(?:script|link|img|iframe|source)\b[^>]*>", text):
            for url in re.findall(r"(?:src|href)\s*=\s*[\"']([^\"']*)", tag):
                assert not re.match(r"(https?:)?//", url), f"{page.name}: {tag[:120]}"
        assert "require.min.js" not in text and "mathjax" not in text.lower() and "cdn" not in text.lower()


def test_every_page_links_to_run_it_live(small_site):
    page = (small_site / "01_small.html").read_text()
    for url in (f"https://colab.research.google.com/github/{SLUG}/blob/{BRANCH}/notebooks/01_small.ipynb",
                f"https://mybinder.org/v2/gh/{SLUG}/HEAD?urlpath=lab%2Ftree%2Fnotebooks%2F01_small.ipynb",
                f"https://mybinder.org/v2/gh/{SLUG}/HEAD?urlpath=voila%2Frender%2Fnotebooks%2F01_small.ipynb"):
        assert f'href="{url}"' in page
    index = (small_site / "index.html").read_text()
    assert "href='01_small.html'" in index and "<title>" in index
