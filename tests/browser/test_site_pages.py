"""The static site (tools/build_site.py, `make site`) built from the stored notebooks and opened in
Chromium from a loopback HTTP server: pictures present and decoded, panels as pictures, self-checks
with folded solutions, math typeset by the site's own KaTeX, links to run it live, and no request
to any outside host. Screenshots go to screenshots/site_*.png (look at them)."""
import functools
import http.server
import json
import re
import sys
import threading
from pathlib import Path

import pytest

from dashboard_helpers import LOCAL, ROOT, SCREENSHOTS, free_port

sys.path.insert(0, str(ROOT / "tools"))
import build_site

pytestmark = pytest.mark.site
KATEX = ROOT / "build" / "katex" / "package" / "dist"       # fetched by `make site` (npm pack katex)
PAGES = ["01_kernel_regression", "03_multi_head_attention", "06_positional_encoding"]
# the repository's address as pyproject.toml writes it (a fork's own, in a fork: no test names the owner)
_PYPROJECT = (ROOT / "pyproject.toml").read_text()
SLUG = re.escape(re.search(r'^Repository = "https://github\.com/([^"]+)"', _PYPROJECT, re.M).group(1))
BRANCH = re.escape(re.search(r'^default-branch = "([^"]+)"', _PYPROJECT, re.M).group(1))


def stored(path):
    """(figures stored as image/png, panels, self-checks) in a stored notebook."""
    nb = json.loads(Path(path).read_text())
    pngs = panels = checks = 0
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            text = data.get("text/plain", "")
            text = "".join(text) if isinstance(text, list) else text
            pngs += "image/png" in data and "application/vnd.jupyter.widget-view+json" not in data
            panels += text.startswith("Live panel")
            checks += text.startswith("Self-check")
    return pngs, panels, checks


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if not (KATEX / "katex.min.js").exists():
        pytest.skip("KaTeX is not fetched: run `make site` first (npm pack katex)")
    out = build_site.build(tmp_path_factory.mktemp("site") / "site", katex=KATEX)
    port = free_port()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Quiet, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield out, f"http://127.0.0.1:{port}"
    server.shutdown()


def test_index_lists_every_notebook(site, browser):
    out, url = site
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    outside = []
    page.on("request", lambda r: None if LOCAL.match(r.url) else outside.append(r.url))
    assert page.goto(url + "/index.html").status == 200
    names = page.eval_on_selector_all("ol a[href$='.html']", "as => as.map(a => a.getAttribute('href'))")
    assert names == [p.stem + ".html" for p in sorted((ROOT / "notebooks").glob("*.ipynb"))]
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "site_index.png"))
    page.close()
    assert not outside


@pytest.mark.parametrize("name", PAGES)
def test_page_shows_pictures_checks_and_math_offline(site, browser, name):
    out, url = site
    pngs, panels, checks = stored(ROOT / "notebooks" / f"{name}.ipynb")
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    outside, errors = [], []
    page.on("request", lambda r: None if LOCAL.match(r.url) else outside.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    assert page.goto(f"{url}/{name}.html", wait_until="load").status == 200
    page.wait_for_function("document.querySelectorAll('.katex').length > 0", timeout=10_000)
    images = page.evaluate("[...document.querySelectorAll('main img')].map(i => [i.complete, i.naturalWidth])")
    assert len(images) >= pngs + panels and all(ok and w > 0 for ok, w in images), images
    assert page.locator(".attnlab-static-panel img").count() >= panels
    # Self-checks: question and solution text present, the solution folded until asked for.
    details = page.locator(".attnlab-static-check details")
    assert details.count() == checks
    if checks:
        assert page.evaluate("[...document.querySelectorAll('.attnlab-static-check details')].every(d => !d.open)")
        solution = details.first.locator(":scope > :not(summary)").first
        assert not solution.is_visible()
        details.first.locator("summary").click()
        assert solution.is_visible()
        text = page.inner_text("main")                         # the code naming the answer is left out
        assert "selfcheck.multiple_choice" not in text and "selfcheck.numeric" not in text
    assert page.locator(".katex-error").count() == 0
    for label, pattern in (("Open in Colab", rf"^https://colab\.research\.google\.com/github/{SLUG}/blob/{BRANCH}/notebooks/"),
                           ("Binder (JupyterLab)", rf"^https://mybinder\.org/v2/gh/{SLUG}/HEAD\?urlpath=lab"),
                           ("Binder (dashboard)", rf"^https://mybinder\.org/v2/gh/{SLUG}/HEAD\?urlpath=voila")):
        href = page.get_by_role("link", name=label, exact=True).first.get_attribute("href")
        assert re.match(pattern, href) and href.endswith(f"{name}.ipynb"), href
    page.screenshot(path=str(SCREENSHOTS / f"site_{name}_top.png"))
    if panels:
        first = page.locator(".attnlab-static-panel").first
        first.scroll_into_view_if_needed()
        first.screenshot(path=str(SCREENSHOTS / f"site_{name}_panel.png"))
    local = page.eval_on_selector_all("main a[href]", "as => as.map(a => a.getAttribute('href'))")
    assert not [h for h in local if re.match(r"^\d\d_\w+\.ipynb", h)], "a link to a notebook file, not its page"
    page.close()
    assert not outside, outside
    assert not errors, errors
