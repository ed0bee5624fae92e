"""A dashboard as on Binder: `jupyter server` with Voila as its extension, no preheated pool,
progressive rendering, attnlab's kernel manager with its spare kernel (the config binder/postBuild
writes, read from it), in headless Chromium.

The attnlab template sends the notebook as stored (text, stored figures and printed text; no
widget view) before it asks for a kernel, then replaces each stored output by the live one when
the kernel has run its cell. Per notebook: the first picture on screen is a stored one and every
stored static picture is there before any live output; when the kernel has run every cell, no
stored output is left, no cell shows two outputs, the page holds as many pictures as the notebook
stores plus its live panels, a live slider still redraws its panel's figure, and nothing went wrong.

The notebooks are two tiny ones, executed and stored here as a lesson notebook is (nbclient, then
tools/static_panels.py's treatment), with real attnlab panels (the index's and lesson 02's Play cells):
one with stored pictures, printed text, a formula and a panel; one with two panels and no stored picture
(the two ends the lesson notebooks span). The template and its stored-first script are the same for every
page, so this tests them and the server, not the lessons: every lesson notebook's live page (same
template, all panels and sliders, both languages) is test_dashboards.py's, and no lesson notebook runs
here (tests/notebook_runs.py counts).
"""
import json
import re
import sys
import time

import nbformat
import pytest

from dashboard_helpers import (
    BINDER_CONFIG,
    INDEX_PANEL,
    LESSON_PANEL,
    PROBLEMS,
    ROOT,
    TYPESET,
    JupyterServer,
    expected_panels,
    postbuild_server_config,
    wait_for_panels,
)
from test_dashboards import RENDER_TIMEOUT, SLIDERS, UPDATE_TIMEOUT, slider_step

sys.path.insert(0, str(ROOT / "tools"))
import static_panels
import stored_figures

# The tiny notebooks: (markdown, code cells) each.
FIGURES = ("import matplotlib.pyplot as plt\n"
           "for k in (1, 2):\n"
           "    fig, ax = plt.subplots(figsize=(3, 2))\n"
           "    ax.plot([0, 1], [0, k])\n"
           "    plt.show()\n"
           "print('printed text, stored')")
TINY = {
    "pictures.ipynb": ("# Stored first\n\nText a learner reads while the kernel starts: the weights are "
                       "$\\mathrm{softmax}(s)_i = e^{s_i} / \\sum_j e^{s_j}$.", [FIGURES, INDEX_PANEL]),
    "panels.ipynb": ("# Two panels\n\nText a learner reads while the kernel starts, then two live panels.",
                     [LESSON_PANEL, INDEX_PANEL]),
}

FIRST_LOOK = """() => {
  const seen = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && el.offsetParent !== null; };
  const text = [...document.querySelectorAll('.jp-RenderedMarkdown')].some(e => e.textContent.trim().length > 20 && seen(e));
  const imgs = [...document.querySelectorAll('.jp-OutputArea-output img')].filter(i => i.complete && i.naturalWidth > 0 && seen(i));
  if (!text || !imgs.length) return null;
  return {stored: imgs.filter(i => i.closest('.attnlab-stored')).length, live: imgs.length - imgs.filter(i => i.closest('.attnlab-stored')).length};
}"""

DONE = """() => document.querySelector('[cell-index]') && window.themeLoaded
  && !document.querySelector('.voila-skeleton-container') && !document.querySelector('.attnlab-stored')"""

AFTER = """() => ({
  twice: [...document.querySelectorAll('[cell-index]')].filter(c => c.querySelectorAll('.jp-Cell-outputWrapper').length > 1).length,
  pictures: [...document.querySelectorAll('.jp-OutputArea-output img')].filter(i => !i.closest('.attnlab-panel')).length,
})"""


def stored_pictures(path):
    nb = nbformat.read(path, as_version=4)
    return sum(len(stored_figures.pictures(c.get("outputs", []))) for c in nb.cells if c.cell_type == "code")


def test_postbuild_writes_the_config_these_tests_use():
    text = (ROOT / "binder" / "postBuild").read_text()
    found = re.search(r"cat > \"\$etc/voila.json\" <<'JSON'\n(.*?)\nJSON", text, re.S)
    assert found and json.loads(found.group(1)) == BINDER_CONFIG


@pytest.fixture(scope="module")
def tiny_notebooks(tmp_path_factory):
    """TINY executed and stored under <folder>/notebooks/, as a lesson notebook is committed."""
    import nbclient
    folder = tmp_path_factory.mktemp("binder_notebooks")
    (folder / "notebooks").mkdir()
    paths = []
    for name, (markdown, cells) in TINY.items():
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(markdown),
                                             *map(nbformat.v4.new_code_cell, cells)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                resources={"metadata": {"path": str(folder / "notebooks")}}).execute()
        static_panels.drop_panel_views(nb)
        nbformat.write(nb, folder / "notebooks" / name)
        paths.append(folder / "notebooks" / name)
    return paths


@pytest.fixture(scope="module")
def binder_server(tmp_path_factory, tiny_notebooks):
    """From the repo root (its voila.json), serving the folder of the tiny notebooks."""
    server = JupyterServer(tmp_path_factory.mktemp("binder") / "server.log", jupyter_config=postbuild_server_config(),
                           extra_args=[f"--ServerApp.root_dir={tiny_notebooks[0].parent.parent}"])
    yield server
    server.stop()


def test_the_tiny_notebooks_span_what_the_lessons_show(tiny_notebooks):
    """Stored pictures and none, one live panel and two: the shapes the template's script must handle."""
    shape = {p.name: (stored_pictures(p), expected_panels(p)) for p in tiny_notebooks}
    assert shape == {"pictures.ipynb": (2, 1), "panels.ipynb": (0, 2)}, shape


@pytest.mark.parametrize("name", list(TINY))
def test_binder_dashboard_stored_first_then_live(binder_server, tiny_notebooks, new_page, name):
    [path] = [p for p in tiny_notebooks if p.name == name]
    n_stored, n_panels = stored_pictures(path), expected_panels(path)
    page, watch = new_page()
    page.goto(f"{binder_server.url}{binder_server.prefix}{path.name}", wait_until="commit", timeout=RENDER_TIMEOUT)
    if n_stored:
        first = page.wait_for_function(FIRST_LOOK, timeout=RENDER_TIMEOUT, polling=20).json_value()
        assert first == {"stored": n_stored, "live": 0}, first
    page.wait_for_function(DONE, timeout=RENDER_TIMEOUT, polling=100)
    wait_for_panels(page, n_panels, RENDER_TIMEOUT, watch, binder_server)
    time.sleep(0.5)                                   # late console errors
    after = page.evaluate(AFTER)
    assert after == {"twice": 0, "pictures": n_stored}, after
    assert page.locator(".attnlab-panel").count() == n_panels
    with_sliders = [p for p, labels in enumerate(page.evaluate(SLIDERS)) if labels]
    if with_sliders:
        assert slider_step(page, with_sliders[0], 0), "a panel's slider did not redraw its figure"
    problems = page.evaluate(PROBLEMS)
    assert not problems, f"shown to the learner: {problems}"
    # Under `jupyter server` Voila's page would load MathJax 2 from cdnjs unless the server's settings
    # name no MathJax (binder/postBuild): then it typesets with the MathJax 3 it bundles, offline too.
    assert not watch.outside, f"requests left 127.0.0.1: {sorted(set(watch.outside))}"
    assert not watch.errors, watch.errors
    if any("$" in c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown"):
        page.wait_for_function(TYPESET, timeout=UPDATE_TIMEOUT)      # the formulas typeset, from 127.0.0.1


def test_the_server_runs_attnlabs_kernel_manager_and_pages_take_its_spare(binder_server):
    """postBuild's settings applied (they once sat in jupyter_server_config.d/, which only enables
    extensions, and none applied): the classroom manager, and the pages above took its spare kernel."""
    log = binder_server.log()
    assert "attnlab classroom: at most" in log, log[-2000:]
    assert "attnlab classroom: a page took spare kernel" in log, log[-2000:]
