"""Every notebook as on Binder: `jupyter server` with Voila as its extension, no preheated pool,
progressive rendering, attnlab's kernel manager with its spare kernel (the config binder/postBuild
writes, read from it), in headless Chromium.

The attnlab template sends the notebook as stored (text, stored figures and printed text; no
widget view) before it asks for a kernel, then replaces each stored output by the live one when
the kernel has run its cell. Per notebook: the first picture on screen is a stored one and every
stored static picture is there before any live output; when the kernel has run every cell, no
stored output is left, no cell shows two outputs, the page holds as many pictures as the notebook
stores plus its live panels, a live slider still redraws its panel's figure, and nothing went wrong.
(nbval checks that the stored pictures are the ones the code draws: conftest.py.)

Three notebooks, chosen by rule (REPRESENTATIVE), not all of them: the template and its stored-first
script are the same for every page; what differs per notebook is how many stored pictures and live
panels it has. So: the most stored pictures, the fewest, and the lesson with the most panels. Each
notebook cost a Jupyter Server page running it whole (~15 s on two cores, x11); every notebook's live
page (same template, all panels and sliders, both languages) is test_dashboards.py's.
"""
import json
import re
import sys
import time

import nbformat
import pytest

from dashboard_helpers import (
    BINDER_CONFIG,
    NOTEBOOKS,
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
import stored_figures

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
def binder_server(tmp_path_factory):
    server = JupyterServer(tmp_path_factory.mktemp("binder") / "server.log", jupyter_config=postbuild_server_config())
    yield server
    server.stop()


def representative(notebooks):
    """The notebooks whose stored and live outputs differ most: the one with the most stored
    pictures, the one with the fewest (the most panels among those), and of the rest, the one with
    the most live panels (the most stored pictures among those)."""
    if not notebooks:
        return []
    shape = {p: (stored_pictures(p), expected_panels(p)) for p in notebooks}
    most = max(notebooks, key=lambda p: shape[p])
    fewest = min(notebooks, key=lambda p: (shape[p][0], -shape[p][1]))
    rest = [p for p in notebooks if p not in (most, fewest)]
    richest = [max(rest, key=lambda p: (shape[p][1], shape[p][0]))] if rest else []
    return sorted({most, fewest, *richest})


REPRESENTATIVE = representative(NOTEBOOKS)


def test_the_representatives_are_the_extremes():
    """The rule picks by stored pictures and panels, so it can name a notebook that is neither."""
    shape = {p: (stored_pictures(p), expected_panels(p)) for p in NOTEBOOKS}
    if len(NOTEBOOKS) < 3:
        pytest.skip("fewer than three notebooks")
    assert len(REPRESENTATIVE) == 3
    stored = [shape[p][0] for p in REPRESENTATIVE]
    assert max(stored) == max(s for s, _ in shape.values()) and min(stored) == min(s for s, _ in shape.values())
    assert max(shape[p][1] for p in REPRESENTATIVE) == max(n for _, n in shape.values())


@pytest.mark.parametrize("path", REPRESENTATIVE, ids=[p.stem for p in REPRESENTATIVE])
def test_binder_dashboard_stored_first_then_live(binder_server, new_page, path):
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
    if not REPRESENTATIVE:
        pytest.skip("no notebook")
    log = binder_server.log()
    assert "attnlab classroom: at most" in log, log[-2000:]
    assert "attnlab classroom: a page took spare kernel" in log, log[-2000:]
