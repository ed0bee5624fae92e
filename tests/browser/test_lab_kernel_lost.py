"""A panel whose kernel is gone shows it in JupyterLab too (issue 28, item 3).

JupyterLab has no attnlab extension (the panel is matplotlib in the kernel; Colab, static viewers
and nbval must keep working), so the state comes from ipywidgets itself: when the kernel dies or
restarts, its JupyterLab manager marks every view of the old widgets `jupyter-widgets-disconnected`,
and the panel's own style (attnlab/ui/panels/panel.py, _GONE_STYLE) then shows a note and greys its controls.
A real JupyterLab (this tree's attnlab in its kernels) opens one small notebook with one panel:
its kernel killed with SIGKILL (the server restarts it, as after the out-of-memory killer), and
restarted from JupyterLab; each time the panel shows the state within 5 s, and after the cell
runs again a live panel (no note, its slider moves the figure) is back.
Screenshots go to screenshots/lab-kernel-*.png.
"""
import os
import subprocess
import sys
import time

import nbformat
import pytest

from dashboard_helpers import ROOT, SCREENSHOTS, _wait_listening, free_port, kernel_processes, slider_step

STATE_WITHIN = 5.0        # s, the bound
START_TIMEOUT = 120_000   # ms for JupyterLab, its kernel and the first run
UPDATE_TIMEOUT = 20_000   # ms for a slider step to reach the figure
GONE = ("Controls disabled: the kernel is gone, so this figure no longer follows them. "
        "Restart the kernel and run the cells again.")

CELL = '''import ipywidgets as w
from attnlab.ui.panels import Panel, new_figure
fig, ax = new_figure(figsize=(3, 2))
line, = ax.plot([0, 1], [0, 1])
ax.set_ylim(0, 5)
def update(k):
    line.set_ydata([0, k])
    return f"k = {k}"
Panel(fig, {"k": w.IntSlider(value=1, min=1, max=5, description="k")}, update, moving=[line])'''

APP = "window.jupyterapp && window.jupyterapp.shell.currentWidget && window.jupyterapp.shell.currentWidget.sessionContext"
KERNEL = f"() => {{ const s = {APP}; const k = s && s.session && s.session.kernel; return k ? [k.id, k.status] : null; }}"

# What the learner sees of the (single) panel: its classes, the note and how its controls look.
PANEL = """() => { const ps = [...document.querySelectorAll('.jp-Notebook .attnlab-panel')];
  if (ps.length !== 1) return {count: ps.length};
  const p = ps[0], note = p.querySelector('.attnlab-disconnected-text'), row = p.querySelector(':scope > .widget-hbox');
  const look = getComputedStyle(row), img = getComputedStyle(p.querySelector(':scope > .widget-image'));
  return {count: 1, disconnected: p.classList.contains('jupyter-widgets-disconnected'),
          noteShown: !!(note && note.offsetParent && note.getBoundingClientRect().height > 0),
          note: note ? note.textContent : null, role: note && note.getAttribute('role'),
          controls: {opacity: Number(look.opacity), pointer: look.pointerEvents},
          figure: {opacity: Number(img.opacity)}, text: p.innerText}; }"""


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on a folder holding one notebook with one panel; its kernels import this tree."""
    where = tmp_path_factory.mktemp("lab")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELL)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, where / "panel.ipynb")
    home = tmp_path_factory.mktemp("lab_home")     # no settings or workspaces of the user
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "OMP_NUM_THREADS": "1", "JUPYTER_CONFIG_DIR": str(home / "config"),
           "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"), "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces")}
    port, log_path = free_port(), where.parent / "lab.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
         "--IdentityProvider.token=", "--ServerApp.password=", f"--ServerApp.root_dir={where}",
         "--LabApp.expose_app_in_browser=True",        # window.jupyterapp: run the cells, restart the kernel
         "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         *(["--allow-root"] if os.geteuid() == 0 else [])],
        cwd=where, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_listening(proc, port, "jupyter lab", log_path)
        yield {"url": f"http://127.0.0.1:{port}", "proc": proc, "log": log_path}
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()


def kernel(page):
    return page.evaluate(KERNEL)


def run_the_cell(page, old_kernel=None):
    """Run the notebook's cell (once its kernel, not `old_kernel`'s first life, is idle) and wait for a live panel."""
    page.wait_for_function(f"() => {{ const k = ({KERNEL})(); return k && k[1] === 'idle'; }}", timeout=START_TIMEOUT)
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function("() => { const p = document.querySelectorAll('.jp-Notebook .attnlab-panel');"
                           " return p.length === 1 && !p[0].classList.contains('jupyter-widgets-disconnected')"
                           " && p[0].querySelector('img') && p[0].querySelector('img').naturalWidth > 0; }",
                           timeout=START_TIMEOUT, polling=100)


def assert_live(page):
    panel = page.evaluate(PANEL)
    assert panel["count"] == 1 and not panel["disconnected"], panel
    assert not panel["noteShown"] and GONE not in panel["text"], panel
    assert panel["controls"] == {"opacity": 1, "pointer": "auto"} and panel["figure"]["opacity"] == 1, panel
    assert slider_step(page, 0, 0, UPDATE_TIMEOUT), "the live panel's slider does not move its figure"


def wait_gone(page, within):
    """Seconds until the panel is marked disconnected; then what it shows is checked."""
    start = time.time()
    page.wait_for_function("() => { const p = document.querySelector('.jp-Notebook .attnlab-panel');"
                           " return p && p.classList.contains('jupyter-widgets-disconnected'); }",
                           timeout=within * 1000, polling=50)
    took = time.time() - start
    panel = page.evaluate(PANEL)
    assert panel["noteShown"] and panel["note"] == GONE and panel["role"] == "status", panel
    assert panel["controls"]["opacity"] < 0.5 and panel["controls"]["pointer"] == "none", panel
    assert panel["figure"]["opacity"] < 0.5, panel
    return took


def dismiss_dialogs(page):
    """JupyterLab's own "Kernel Restarting ... appears to have died" dialog (modal): the learner presses OK."""
    try:
        page.locator(".jp-Dialog button.jp-mod-accept").click(timeout=5_000)
    except Exception:   # playwright TimeoutError: no dialog
        pass


def open_notebook(new_page, lab):
    page, watch = new_page(width=1100, height=800)
    page.goto(f"{lab['url']}/lab/tree/panel.ipynb", timeout=START_TIMEOUT)
    run_the_cell(page)
    return page


def shoot(page, name):
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"lab-kernel-{name}.png"))


def test_a_killed_kernels_panel_shows_it_and_a_rerun_brings_a_live_panel(lab, new_page):
    page = open_notebook(new_page, lab)
    assert_live(page)
    shoot(page, "live")
    kernel_id = kernel(page)[0]
    found = [p for p in kernel_processes(lab["proc"].pid) if any(f"kernel-{kernel_id}.json" in a for a in p.cmdline())]
    assert len(found) == 1, f"no single process for kernel {kernel_id}"
    found[0].kill()                                   # SIGKILL, as the out-of-memory killer
    took = wait_gone(page, STATE_WITHIN)
    shoot(page, "killed")
    dismiss_dialogs(page)
    run_the_cell(page)                                # the server restarted the kernel: run the cell again
    assert_live(page)
    shoot(page, "rerun")
    print(f"disconnected state after {took:.1f} s")
    page.close()                                      # the notebook is unsaved: no "leave the page?" wait


def test_a_restarted_kernels_panel_shows_it_and_a_rerun_brings_a_live_panel(lab, new_page):
    page = open_notebook(new_page, lab)
    page.wait_for_function(f"() => {{ const k = ({KERNEL})(); return k && k[1] === 'idle'; }}", timeout=START_TIMEOUT)
    # As Kernel > Restart Kernel, without its confirmation dialog; not awaited (the time counts from here).
    page.evaluate(f"() => {{ {APP}.restartKernel(); return true; }}")
    took = wait_gone(page, STATE_WITHIN)
    shoot(page, "restarted")
    dismiss_dialogs(page)
    run_the_cell(page)
    assert_live(page)
    print(f"disconnected state after {took:.1f} s")
    page.close()                                      # the notebook is unsaved: no "leave the page?" wait
