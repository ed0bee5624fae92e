"""A lesson whose kernel is gone says so, and offers the way back (issue 28; the attnlab Voila
template, change 6).

Three faults on a page with a real lesson panel (a tiny notebook whose one cell is notebook 02's Play
cell, and its Chinese twin: the banner is the template's, not the lesson's, so no lesson notebook runs
here; tests/notebook_runs.py), served by a Voila server of its own (this module stops and restarts it): the kernel killed with SIGKILL (as the out-of-memory killer does; the server restarts it as
a fresh kernel that has not run the notebook), the server stopped and started again on the same
port, and the page's kernel websocket dropped while the kernel lives. Each time the banner comes
within 5 s, the text of the page outside the banner and the panels' notes stays as it was, and
after the fault a lesson whose sliders move the figure is back (by the banner's button, or by
itself when the same kernel answers again). The Chinese twin says it in Chinese, from the catalog.
Screenshots of each banner go to screenshots/kernel-*.png.
"""
import re
import signal
import time

import pytest

from dashboard_helpers import (
    LESSON_PANEL,
    ROOT,
    SCREENSHOTS,
    VoilaServer,
    pool_per_notebook,
    settle,
    slider_step,
    wait_for_panels,
    write_tiny_notebooks,
)

NAME = "panel.ipynb"
PANELS = 1                   # the Play panel of 02
# Prose enough to scroll: the reload must bring the learner back to where they were.
PROSE = "\n\n".join(f"Paragraph {i}: text a learner reads before the Play section." for i in range(1, 41))
RENDER_TIMEOUT = 120_000     # ms
UPDATE_TIMEOUT = 20_000      # ms for a slider step to reach the figure
BANNER_WITHIN = 5.0          # s, the bound
# The template of this tree, not a copy installed earlier (pip install -e copies it).
ENV = {"JUPYTER_PATH": str(ROOT / "share" / "jupyter")}

BANNER = """() => { const b = document.querySelector('.attnlab-kernel-banner');
  return b ? {state: b.dataset.state, text: b.querySelector('.attnlab-kernel-text').textContent,
              button: b.querySelector('button').textContent, role: b.getAttribute('role')} : null; }"""

# What the learner reads outside the banner and the notes beside the panels; `widgets` false
# leaves the widget outputs out too (a slider moved before the banner came changes its readout).
TEXT = """widgets => { const root = document.querySelector('#rendered_cells').cloneNode(true);
  root.querySelectorAll('.attnlab-kernel-note' + (widgets ? '' : ', .jupyter-widgets')).forEach(e => e.remove());
  return root.textContent.replace(/\\s+/g, ' ').trim(); }"""

CONTROLS = """() => [...document.querySelectorAll('.attnlab-panel')].map(p => ({
  gone: !!p.closest('.attnlab-kernel-gone[inert]'),
  sliders: [...p.querySelectorAll('.noUi-target')].map(s => s.hasAttribute('disabled')),
  buttons: [...p.querySelectorAll('button, input, select')].map(b => b.disabled),
  note: (p.closest('.jp-OutputArea-child').previousElementSibling || {}).textContent || '',
  disconnected: p.classList.contains('jupyter-widgets-disconnected'),
  labNote: !!(p.querySelector('.attnlab-disconnected-text') || {}).offsetParent,
  rows: [...p.querySelectorAll(':scope > .widget-hbox')].map(r => Number(getComputedStyle(r).opacity))}))"""


@pytest.fixture(scope="module")
def lesson(tmp_path_factory):
    """A Voila server for the panel notebook and its Chinese twin only (one preheated kernel each)."""
    where = write_tiny_notebooks(tmp_path_factory.mktemp("kernel_lost"), LESSON_PANEL, NAME, PROSE)
    state = {"dir": where, "log": where.parent / "voila.log"}
    state["server"] = VoilaServer(where, state["log"], pool_per_notebook(), env=ENV)
    settle(state["server"], min_kernels=1)
    yield state
    state["server"].stop()


def open_lesson(new_page, server, name=NAME):
    page, watch = new_page()
    sockets = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.goto(f"{server.url}/voila/render/{name}", wait_until="commit", timeout=RENDER_TIMEOUT)
    ready(page, server, watch)
    return page, watch, sockets


def ready(page, server, watch=None, timeout=RENDER_TIMEOUT):
    wait_for_panels(page, PANELS, timeout, watch, server)
    assert "AttnlabWebSocket" == page.evaluate("window.WebSocket.name"), "the page's script is not the template's"
    assert page.evaluate(BANNER) is None


def wait_banner(page, state, within):
    """Seconds until the banner shows `state` (fails after `within` seconds)."""
    start = time.time()
    page.wait_for_function(f"() => {{ const b = document.querySelector('.attnlab-kernel-banner');"
                           f" return b && b.dataset.state === '{state}'; }}", timeout=within * 1000, polling=50)
    return time.time() - start


def kernel_process(server, sockets):
    """The process of the page's kernel: its id from the websocket URL, its connection file in the command line."""
    ids = {m.group(1) for url in sockets if (m := re.search(r"/api/kernels/([^/?]+)/channels", url))}
    assert len(ids) == 1, sockets
    kernel_id = ids.pop()
    found = [p for p in server.kernels() if any(f"kernel-{kernel_id}.json" in a for a in p.cmdline())]
    assert len(found) == 1, f"no single process for kernel {kernel_id}"
    return found[0]


def slider_moves_figure(page, panel=0, slider=0):
    return slider_step(page, panel, slider, UPDATE_TIMEOUT)


def try_the_controls(page):
    """Press keys on and click the first slider of a lost page: nothing may move."""
    handle = page.locator(".attnlab-panel").first.locator(".noUi-handle").first
    value = handle.get_attribute("aria-valuenow")
    handle.focus()                       # inert: focus does not go there
    page.keyboard.press("ArrowRight")
    box = page.locator(".attnlab-panel").first.locator(".noUi-target").first.bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.9, box["y"] + box["height"] / 2)
    time.sleep(0.5)
    return value, handle.get_attribute("aria-valuenow")


def shoot(page, name):
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"kernel-{name}.png"))


def scroll_to_first_panel(page):
    page.locator(".attnlab-panel").first.scroll_into_view_if_needed()
    time.sleep(0.3)
    return page.evaluate("document.querySelector('#rendered_cells').scrollTop")


def test_a_killed_kernel_says_so_disables_the_controls_and_reload_brings_the_lesson_back(lesson, new_page):
    server = lesson["server"]
    page, watch, sockets = open_lesson(new_page, server)
    y = scroll_to_first_panel(page)
    prose = page.evaluate(TEXT, False)
    figure = page.locator(".attnlab-panel img").first.get_attribute("src")

    kernel_process(server, sockets).send_signal(signal.SIGKILL)
    handle = page.locator(".attnlab-panel").first.locator(".noUi-handle").first
    handle.focus()
    page.keyboard.press("ArrowRight")     # as the learner of the issue: the slider moves, the figure cannot
    took = wait_banner(page, "lost", BANNER_WITHIN)
    banner = page.evaluate(BANNER)
    assert banner["role"] == "alert"
    assert banner["text"].startswith("This lesson's kernel stopped") and banner["button"] == "Reload the lesson"
    shown = page.evaluate(TEXT, True)
    for panel in page.evaluate(CONTROLS):
        assert panel["gone"] and all(panel["sliders"]) and all(panel["buttons"]), panel
        assert panel["note"].startswith("Controls disabled"), panel
        # The panel's own note and greying for JupyterLab stay out of the way (the output is greyed once).
        assert not panel["labNote"] and set(panel["rows"]) == {1}, panel
    before, after = try_the_controls(page)
    assert before == after, "a slider of a lost kernel's panel still moves"
    assert page.evaluate(TEXT, True) == shown
    assert page.evaluate(TEXT, False) == prose, "the page's text changed outside the banner and notes"
    assert page.locator(".attnlab-panel img").first.get_attribute("src") == figure
    shoot(page, "killed")
    print(f"banner after {took:.1f} s")

    with page.expect_navigation(wait_until="commit", timeout=RENDER_TIMEOUT):
        page.get_by_role("button", name="Reload the lesson").click()
    watch.reloads.clear()                 # that reload was ours, not the template's change 5
    ready(page, server, watch)
    page.wait_for_function(f"Math.abs(document.querySelector('#rendered_cells').scrollTop - {y}) < 80",
                           timeout=20_000, polling=100)     # back where the learner was
    assert slider_moves_figure(page), "after the reload the slider does not move the figure"
    assert page.evaluate(BANNER) is None
    assert not watch.errors, watch.errors


def test_a_dropped_connection_says_so_and_the_banner_goes_when_the_kernel_answers(lesson, new_page):
    server = lesson["server"]
    page, watch, sockets = open_lesson(new_page, server)
    text = page.evaluate(TEXT, True)
    # The network goes (no new connection can open) and the page's kernel socket drops with it.
    page.context.set_offline(True)
    page.evaluate("window.attnlabKernelWatch.sockets.forEach(s => s.close())")
    took = wait_banner(page, "retrying", BANNER_WITHIN)
    banner = page.evaluate(BANNER)
    assert banner["text"] == "Connection to the server lost. Trying to reconnect…"
    notes = [p["note"] for p in page.evaluate(CONTROLS)]
    assert notes and all(n.startswith("Reconnecting") for n in notes), notes
    shoot(page, "connection-dropped")
    time.sleep(1.0)
    page.context.set_offline(False)
    # JupyterLab's client retries with a random backoff (up to 1, 3, 7 s ...): the banner goes
    # once a new socket's kernel answers, and that is the same kernel, still running the lesson.
    page.wait_for_function("() => !document.querySelector('.attnlab-kernel-banner')", timeout=40_000, polling=100)
    history = [h["state"] for h in page.evaluate("window.attnlabKernelWatch.history")]
    assert history[0] == "retrying" and history[-1] == "ok", history
    assert not page.locator(".attnlab-kernel-note").count()
    assert not page.locator(".attnlab-kernel-gone").count()
    assert page.evaluate(TEXT, True) == text, "the page's text changed"
    assert slider_moves_figure(page), "after the reconnection the slider does not move the figure"
    print(f"banner after {took:.1f} s; states {history}")


def test_chinese_lesson_says_it_in_chinese(lesson, new_page):
    from attnlab.i18n import page_messages
    zh = page_messages("zh")
    server = lesson["server"]
    page, watch, sockets = open_lesson(new_page, server, f"zh/{NAME}")
    kernel_process(server, sockets).send_signal(signal.SIGKILL)
    wait_banner(page, "lost", BANNER_WITHIN)
    banner = page.evaluate(BANNER)
    assert (banner["text"], banner["button"]) == (zh["lost"], zh["reload"])
    assert {p["note"] for p in page.evaluate(CONTROLS)} == {zh["panel_lost"]}
    shoot(page, "killed-zh")


def test_a_server_restart_says_so_and_the_lesson_comes_back(lesson, new_page):
    """Last in this module: it stops the module's server and starts another on the same port."""
    server = lesson["server"]
    page, watch, sockets = open_lesson(new_page, server)
    text = page.evaluate(TEXT, True)
    server.stop()
    took = wait_banner(page, "retrying", BANNER_WITHIN)
    shoot(page, "server-stopped-retrying")
    wait_banner(page, "lost", 15)      # the kernel id is gone with the server: no answer within 5 s
    assert page.evaluate(TEXT, True) == text, "the page's text changed outside the banner and notes"
    shoot(page, "server-stopped-lost")
    # The learner presses the button while the server is still down: the page says it waits ...
    page.get_by_role("button", name="Reload the lesson").click()
    page.wait_for_function("() => (document.querySelector('.attnlab-kernel-banner') || {}).textContent"
                           ".includes('does not answer yet')", timeout=10_000, polling=100)
    shoot(page, "server-down-waiting")
    # ... and reloads by itself once the server is back.
    with page.expect_navigation(wait_until="commit", timeout=RENDER_TIMEOUT):
        lesson["server"] = server = VoilaServer(lesson["dir"], lesson["log"], pool_per_notebook(), port=server.port,
                                                 env=ENV)
    watch.reloads.clear()
    ready(page, server, watch, 2 * RENDER_TIMEOUT)   # a cold server: its kernels start as the page waits
    assert slider_moves_figure(page), "after the restart the slider does not move the figure"
    history = [h["state"] for h in page.evaluate("window.attnlabKernelWatch.history")]
    assert history == [], history      # a new page: nothing happened to it
    print(f"banner after {took:.1f} s")
