"""Every notebook, served by Voila as a learner sees it in headless Chromium, on a phone, a tablet
and a desktop.

Per notebook, both languages (found with a glob), ONE page load (a page load is a kernel running
the whole notebook; the viewports share it): the page is opened as on a phone (390x844, touch,
device scale 2) and checked at 390 px, then 768 px, then 1280 px. Phone and tablet: phone_layout.py
(layout, figure at its own size, the scroll hint, a touch drag redraws). Desktop: each slider in a
live panel (`.attnlab-panel`), moved by keyboard, changes that panel's figure; the first panel's PNG
and SVG buttons give a data: link of the right type that downloads. Throughout: it renders; no
Python traceback or cell error is shown; no page error and no console error; no request leaves
127.0.0.1; the accessibility audit (axe-core, tests/browser/a11y.py) finds nothing serious or critical
with the live figures up; every control is reached by Tab, named, shows a focus ring and speaks its value as
shown, and every move of a live panel's control is announced (screen_reader.py); closing the tab of the notebook with the most panels shuts its kernel down (voila#1458,
fixed in the attnlab template). Plus, on the index's page: its links open their notebooks. Each
notebook's page is loaded once per session (tests/notebook_runs.py counts); the template's reload of
a lost widget is tried on a tiny notebook of its own server. Screenshots go to screenshots/ (ignored by git).
"""
import base64
import re
import time

import psutil
import pytest

import attnlab
from a11y import REPORTS, audit
from attnlab.i18n import gettext as _
from dashboard_helpers import (
    NOTEBOOK_DIR,
    NOTEBOOKS,
    PROBLEMS,
    SCREENSHOTS,
    VoilaServer,
    close_like_a_learner,
    expected_panels,
    pool_per_notebook,
    save_artefacts,
    settle,
    slider_step as helpers_slider_step,
    wait_for_panels,
    write_tiny_notebooks,
)
from keyboard import drive_by_keyboard, moving_under_reduced_motion, zoom_problems
from phone_layout import PHONE, TABLET, check_layout, shoot_panels, touch_drag
from screen_reader import announcement_problems, language_problems, tab_walk_problems

RENDER_TIMEOUT = 120_000     # ms; the machine may be busy
UPDATE_TIMEOUT = 20_000      # ms for one slider step to reach the figure


# The panels' download buttons carry a Font Awesome icon; with the CDN links gone it must still
# come from Voila's bundled copy of the font.
ICON_FONT = """async () => {
  await document.fonts.ready;
  const icon = document.querySelector('.attnlab-panel button i[class*="fa-"]');
  if (!icon) return 'no icon on the download button';
  const family = getComputedStyle(icon, '::before').fontFamily;
  const loaded = [...document.fonts].some(f => /Font Awesome/.test(f.family) && f.status === 'loaded');
  return /Font Awesome/.test(family) && loaded ? 'ok' : `icon font missing (family ${family}, loaded ${loaded})`;
}"""

SLIDERS = """() => [...document.querySelectorAll('.attnlab-panel')].map(p =>
  [...p.querySelectorAll('.widget-slider')].map(s => (s.querySelector('.widget-label') || {}).textContent || '?'))"""


def open_dashboard(new_page, server, name):
    page, watch = new_page()
    page.goto(f"{server.url}/voila/render/{name}", wait_until="commit", timeout=RENDER_TIMEOUT)
    return page, watch


def slider_step(page, panel, slider):
    """Press an arrow key on one slider handle; return True if the panel's image changed."""
    return helpers_slider_step(page, panel, slider, UPDATE_TIMEOUT)


def check_download(page, fmt, lang="en"):
    panel = page.locator(".attnlab-panel").first
    with attnlab.language(lang):                    # the button's words come from the catalog
        name = _("Download {format}").format(format=fmt.upper())
    panel.get_by_role("button", name=name).click()
    mime = "image/png" if fmt == "png" else "image/svg+xml"
    link = panel.locator(f'a.attnlab-download[href^="data:{mime};base64,"]')
    link.wait_for(timeout=UPDATE_TIMEOUT)
    data = base64.b64decode(link.get_attribute("href").split(",", 1)[1])
    if fmt == "png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert b"<svg" in data[:2000]
    with page.expect_download(timeout=UPDATE_TIMEOUT) as download:
        link.click()
    assert download.value.suggested_filename.endswith(f".{fmt}")


# The notebook whose Play section is driven by keyboard alone (keyboard.py), in both languages: a menu,
# three sliders and the download buttons.
KEYBOARD = "02_scoring_functions"

# Every Chinese twin (notebooks/zh/, served from the same folder) gets the same checks.
ZH_NOTEBOOKS = sorted((NOTEBOOK_DIR / "zh").glob("[0-9][0-9]_*.ipynb"))
ALL = [(p, "en") for p in NOTEBOOKS] + [(p, "zh") for p in ZH_NOTEBOOKS]


@pytest.mark.parametrize("path, lang", ALL, ids=[p.stem if lang == "en" else f"zh-{p.stem}" for p, lang in ALL])
def test_dashboard(voila_server, new_page, path, lang):
    name = path.name if lang == "en" else f"{lang}/{path.name}"
    n_panels = expected_panels(path)
    english = NOTEBOOK_DIR / path.name
    if lang != "en" and english.exists():
        assert n_panels == expected_panels(english), "a Chinese twin has the live panels of its English notebook"
    page, watch = new_page(**PHONE)
    sockets = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.goto(f"{voila_server.url}/voila/render/{name}", wait_until="commit", timeout=RENDER_TIMEOUT)
    wait_for_panels(page, n_panels, RENDER_TIMEOUT, watch, voila_server)
    time.sleep(0.5)                                   # late console errors, widget layout, figures' load events
    assert page.locator(".attnlab-panel").count() == n_panels
    assert page.locator("style#attnlab-narrow").count() == 1, "the page has not the attnlab template's CSS (item 6)"

    # The phone, then the tablet (phone_layout.py).
    stem = f"{lang}-{path.stem}"
    problems = check_layout(page, PHONE["width"], lang)
    panels = page.locator(".attnlab-panel")
    with_sliders = [i for i in range(n_panels) if panels.nth(i).locator(".widget-slider").count()]
    not_dragged = [f"panel {i + 1}" for i in with_sliders if not touch_drag(page, i)]
    shoot_panels(page, stem, PHONE["width"])
    page.set_viewport_size({"width": TABLET, "height": 1024})
    time.sleep(0.5)
    problems += check_layout(page, TABLET, lang)
    shoot_panels(page, stem, TABLET)

    # The desktop.
    page.set_viewport_size({"width": 1280, "height": 1000})
    time.sleep(0.5)
    unchanged = []
    for p, labels in enumerate(page.evaluate(SLIDERS)):
        for s, label in enumerate(labels):
            if not slider_step(page, p, s):
                unchanged.append(f"panel {p + 1}, slider {label!r}")
    if n_panels:
        assert page.evaluate(ICON_FONT) == "ok"
        check_download(page, "png", lang)
        check_download(page, "svg", lang)
    # What a screen reader hears (screen_reader.py): every other control moved by its keys, each move
    # announced once settled (the sliders' moves above too).
    not_announced = announcement_problems(page, lang, REPORTS / "announced" / f"{lang}-{path.stem}.json")
    # The accessibility audit (tests/browser/a11y.py), with the live figures up and moved; then the
    # keyboard (one notebook), 200 % zoom and reduced motion (keyboard.py).
    # `region` (moderate): the lesson is the page's main landmark, so nothing a learner reads is outside
    # every landmark (axe found 55 such nodes on 05 before the template named it, 2026-11-28)
    not_accessible = audit(page, f"dashboard/{lang}/{path.stem}", rules=("region",))
    by_keyboard = drive_by_keyboard(page) if path.stem == KEYBOARD and n_panels else []
    # Every output with widgets walked by Tab: rings, names, values spoken as shown, toggles' state; languages.
    by_keyboard += tab_walk_problems(page) + language_problems(page, lang)
    moving = moving_under_reduced_motion(page)
    problems += zoom_problems(page, lang)
    SCREENSHOTS.mkdir(exist_ok=True)
    # Voila's lab template scrolls inside its own panel: grow the viewport to show the whole page.
    tallest = page.evaluate("Math.max(...[...document.querySelectorAll('*')].map(e => e.scrollHeight))")
    page.set_viewport_size({"width": 1280, "height": min(12000, max(1000, tallest))})
    page.screenshot(path=str(SCREENSHOTS / f"{'' if lang == 'en' else lang + '-'}{path.stem}.png"), full_page=True,
                    scale="css")

    shown = page.evaluate(PROBLEMS)
    assert not shown, f"shown to the learner: {shown}"
    assert not watch.errors, watch.errors
    assert not watch.outside, f"requests left 127.0.0.1: {sorted(set(watch.outside))}"
    assert not problems, "\n".join(problems)
    assert not not_dragged, f"a touch drag on the first slider did not change the figure of: {not_dragged}"
    assert not unchanged, f"moving these sliders did not change their figure: {unchanged}"
    assert not not_accessible, "\n".join(not_accessible)
    assert not by_keyboard, "\n".join(by_keyboard)
    assert not not_announced, "\n".join(not_announced)
    assert not moving, f"still moving under prefers-reduced-motion: {moving}"
    if _index() is not None and path.name == _index().name:
        index_links_open_their_notebooks(page, voila_server, lang)
    if lang == "en" and path == CLOSED_TAB:
        tab_closed_kernel_gone(page, sockets, voila_server)


# The notebook whose page is closed like a learner closes a tab (its page, in test_dashboard).
CLOSED_TAB = max(NOTEBOOKS, key=expected_panels) if NOTEBOOKS else None


def tab_closed_kernel_gone(page, sockets, server, timeout=60):
    """voila#1458: without the _xsrf cookie the shutdown beacon gets a 403 and the kernel leaks. The
    page's own kernel (its id from the page's kernel websocket) must be gone after the tab closes.
    (Was a test of its own, with a page load of its own; the pool is not refilled now, so a count of
    kernels before and after no longer tells a leak.)"""
    assert any(c["name"] == "_xsrf" for c in page.context.cookies()), "the page did not get an _xsrf cookie"
    ids = [m.group(1) for url in sockets if (m := re.search(r"/api/kernels/([^/?]+)/channels", url))]
    assert ids, f"the page opened no kernel websocket: {sockets}"
    kernel_id = ids[-1]                   # the page's kernel now (a page that reloaded itself has a new one)

    def alive():
        found = []
        for proc in server.kernels():
            try:
                if any(f"kernel-{kernel_id}.json" in arg for arg in proc.cmdline()):
                    found.append(proc)
            except psutil.Error:  # gone while we looked
                pass
        return found
    assert alive(), f"no process for the page's kernel {kernel_id}"
    close_like_a_learner(page)
    deadline = time.time() + timeout
    while alive() and time.time() < deadline:
        time.sleep(0.5)
    assert not alive(), f"the page's kernel {kernel_id} still alive {timeout} s after the tab closed"
    assert "'_xsrf' argument missing" not in server.log()


def _index():
    found = [p for p in NOTEBOOKS if p.name.startswith("00")]
    return found[0] if found else None


def index_links_open_their_notebooks(page, voila_server, lang):
    """Each language's index links every notebook of its language and its twin index in the other;
    a click on one follows it. Checked on test_dashboard's own page of the index (one page load per
    notebook per language: tests/notebook_runs.py counts them). The click's page is not rendered here:
    its request is answered by the test (each notebook's page is test_dashboard's), so the link is
    followed the way a learner does without running that notebook a second time."""
    index = _index()
    prefix = "" if lang == "en" else f"{lang}/"
    names = {p.name for p in (NOTEBOOKS if lang == "en" else ZH_NOTEBOOKS)}
    page.set_viewport_size({"width": 1280, "height": 1000})
    links = page.eval_on_selector_all(
        ".jp-RenderedMarkdown a[href]:not(.anchor-link)", "as => as.map(a => [a.textContent.trim(), a.href])")
    targets = {}
    for text, href in links:
        m = re.match(rf"^{re.escape(voila_server.url)}/voila/render/([^?#]+\.ipynb)", href)
        if m and m.group(1) != prefix + index.name:
            targets[m.group(1)] = text
    twin = "zh/" + index.name if lang == "en" else index.name
    assert targets.pop(twin, None) is not None, f"no link to the index in the other language: {links}"
    stems = {prefix + n for n in names if n != index.name}
    assert targets, f"the index links to no notebook: {links}"
    assert set(targets) <= {prefix + n for n in names}, f"links to missing notebooks: {set(targets) - stems}"
    assert stems <= set(targets), f"notebooks the index does not link: {sorted(stems - set(targets))}"
    # Follow one link the way a learner does: the browser asks for that notebook's page in the same tab.
    first = sorted(targets)[0]
    page.route(f"**/voila/render/{first}", lambda route: route.fulfill(
        status=200, content_type="text/html", body=f"<html><head><title>{first}</title></head><body>followed</body></html>"))
    page.locator(f'.jp-RenderedMarkdown a[href$="{first.split("/")[-1]}"]').first.click()
    page.wait_for_url(f"**/voila/render/{first}", timeout=RENDER_TIMEOUT)
    page.get_by_text("followed").wait_for(timeout=UPDATE_TIMEOUT)


def test_notebook_list_stays_local(voila_server, new_page):
    """The page at / (Voila's notebook list) also loads nothing from outside 127.0.0.1."""
    page, watch = new_page()
    try:
        page.goto(voila_server.url + "/", wait_until="networkidle", timeout=RENDER_TIMEOUT)
        page.get_by_text(NOTEBOOKS[0].name).first.wait_for(timeout=RENDER_TIMEOUT)
    except Exception as exc:  # playwright's TimeoutError: keep what the page was doing
        folder = save_artefacts("notebook-list", page, watch, voila_server)
        raise AssertionError(f"the notebook list did not show {NOTEBOOKS[0].name} ({exc}); the page's requests, "
                             f"console and Voila's log are in {folder}; last events: {watch.timeline[-15:]}") from None
    assert not watch.outside, f"requests left 127.0.0.1: {sorted(set(watch.outside))}"
    # (Voila 0.5's own list page logs 404s from its widget manager looking for a kernel; not ours.)


def test_the_notebook_list_is_written_by_the_server(voila_server, new_page):
    """Voila's own list is drawn by script and stayed empty when its contents arrived before its plugins
    had started (3 of 6 loads under CPU load, issue 42); the attnlab template's list is in the HTML, so
    it shows with scripts off, and each link opens its dashboard in the same tab. /voila/tree/zh lists
    the Chinese edition, in Chinese."""
    import urllib.request
    with urllib.request.urlopen(voila_server.url + "/", timeout=60) as r:
        html = r.read().decode()
    for p in NOTEBOOKS:
        assert f'href="/voila/render/{p.name}"' in html, p.name
    assert 'href="/voila/tree/zh"' in html and "<script" not in html and 'lang="en"' in html
    with urllib.request.urlopen(voila_server.url + "/voila/tree/zh", timeout=60) as r:
        zh = r.read().decode()
    assert 'lang="zh"' in zh and "attnlab：笔记本" in zh
    for p in ZH_NOTEBOOKS:
        assert f'href="/voila/render/zh/{p.name}"' in zh, p.name
    page, watch = new_page(java_script_enabled=False)
    page.goto(voila_server.url + "/", timeout=RENDER_TIMEOUT)
    page.get_by_role("link", name=NOTEBOOKS[0].name).wait_for(timeout=5_000)     # no script: already there
    assert page.get_by_role("link", name=NOTEBOOKS[0].name).get_attribute("target") is None


def test_a_page_without_panels_fails_saying_what_it_shows(new_page):
    """The readiness wait of every browser test explains a timeout (a CI run once said only
    'Timeout 120000ms exceeded')."""
    page, watch = new_page()
    page.set_content("<html><head><title>not a dashboard</title></head><body><p>Nothing here</p></body></html>")
    with pytest.raises(AssertionError, match=r"(?s)1 live panels not ready after 1 s.*'title': 'not a dashboard'"
                                             r".*'rendered_cells': 'absent'.*Nothing here.*\(no server log\)"):
        wait_for_panels(page, 1, 1000, watch)


# A widget output as ipywidgets leaves it when its model came too late (ipywidgets#4026).
LOSE_A_WIDGET = """() => {
  const out = document.createElement('div');
  out.className = 'jp-OutputArea-output attnlab-test-lost';
  out.textContent = 'Error displaying widget: model not found';
  document.querySelector('#rendered_cells').appendChild(out);
}"""


@pytest.fixture(scope="module")
def tiny_server(tmp_path_factory):
    """A Voila server of its own (from the repo root: voila.json, the attnlab template) on a tiny notebook
    with one widget: for what the template does to any page, without a lesson notebook's run."""
    folder = write_tiny_notebooks(tmp_path_factory.mktemp("tiny"))
    server = VoilaServer(folder, folder.parent / "voila-tiny.log", pool_per_notebook(refill=False))
    settle(server, quiet=2, min_kernels=2, timeout=120)
    yield server
    server.stop()


def test_a_widget_lost_to_the_ipywidgets_race_reloads_the_page_once(tiny_server, new_page):
    """The attnlab template reloads a page once when a widget output says 'model not found' (the
    kernel has the widget; ipywidgets' renderer gave up on it); a second time within two minutes
    it says what to do instead of reloading again. (On a tiny notebook: the template, not a lesson.)"""
    page, watch = open_dashboard(new_page, tiny_server, "tiny.ipynb")
    wait_for_panels(page, 0, RENDER_TIMEOUT, watch, tiny_server)
    page.locator(".widget-slider").first.wait_for(timeout=RENDER_TIMEOUT)
    # The reload gets a fresh kernel (the pool is not refilled), and Voila streams the page as that
    # kernel runs the notebook: its load event comes at the end, so wait for the navigation only;
    # wait_for_panels then waits for the page.
    with page.expect_navigation(wait_until="commit", timeout=UPDATE_TIMEOUT):
        page.evaluate(LOSE_A_WIDGET)
    with pytest.warns(UserWarning, match=r"reloaded itself 1 time\(s\)"):
        wait_for_panels(page, 0, RENDER_TIMEOUT, watch, tiny_server)
    page.locator(".widget-slider").first.wait_for(timeout=RENDER_TIMEOUT)
    assert page.evaluate(PROBLEMS) == [] and not watch.errors
    page.evaluate(LOSE_A_WIDGET)
    page.wait_for_function("() => document.querySelector('.attnlab-test-lost.attnlab-lost-widget')",
                           timeout=UPDATE_TIMEOUT)
    time.sleep(1)
    assert len(watch.reloads) == 1, "the page reloaded a second time"
    assert page.evaluate(PROBLEMS) == ["This control did not load. Reload the page to get it back."]
