"""The teacher's two commands, exactly: `make hub-setup`, then `make hub`, in this checkout, as root, with the
hub's DEFAULT state folder (build/hub, which the hub makes mode 700: database, cookie secret, password hashes),
and a learner logs in and gets the index dashboard (issue 50: the hub refused to start on the first try here,
because the learners' Python lived inside that private folder).

What differs from a teacher's run is only what a test on a shared machine must change: free ports (HUB_PORT,
the hub's internal ports), the learners' group and homes of the test's own (removed after), tiny notebooks
(ATTNLAB_HUB_NOTEBOOKS: the lesson notebooks' pages are test_dashboards.py's). The state folder's files that
were there before are put back afterwards, and the ones the test made removed.
"""
import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest

from dashboard_helpers import (
    ROOT,
    LearnerAccounts,
    count_hub_page,
    free_port,
    hub_prerequisites,
    hub_user_servers,
    learners_notebooks,
)

pytest.importorskip("jupyterhub")
PASSWORD = "class-password-make"
STATE = ROOT / "build" / "hub"
STATE_FILES = ("jupyterhub.sqlite", "jupyterhub_cookie_secret", "jupyterhub.pid", "learner_passwords.json")
DONE = """() => document.querySelector('[cell-index]') && window.themeLoaded
  && !document.querySelector('.voila-skeleton-container') && !document.querySelector('.attnlab-stored')"""


@pytest.fixture
def teachers_hub(tmp_path):
    hub_prerequisites()
    accounts, notebooks = LearnerAccounts(), learners_notebooks()
    STATE.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(STATE.stat().st_mode)
    saved = tmp_path / "state-before"
    saved.mkdir()
    for name in STATE_FILES:
        if (STATE / name).exists():
            shutil.copy2(STATE / name, saved / name)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTNLAB_HUB_")}   # the default state folder
    env.update(ATTNLAB_HUB_API_PORT=str(free_port()), ATTNLAB_HUB_PROXY_API_PORT=str(free_port()),
               ATTNLAB_HUB_GROUP=accounts.group, ATTNLAB_HUB_HOMES=str(accounts.homes),
               ATTNLAB_HUB_NOTEBOOKS=str(notebooks), ATTNLAB_HUB_SPAWNER="local")
    if os.environ.get("ATTNLAB_TEST_PORTS"):
        env["ATTNLAB_HUB_USER_PORTS"] = os.environ["ATTNLAB_TEST_PORTS"]
    log = tmp_path / "make-hub.log"
    proc = None
    try:
        with open(log, "w") as out:
            setup = subprocess.run(["make", "hub-setup"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   timeout=900)
        assert setup.returncode == 0, log.read_text()[-3000:]
        with open(log, "a") as out:
            proc = subprocess.Popen(["make", "hub", f"HUB_PORT={port}", f"HUB_PASSWORD={PASSWORD}"], cwd=ROOT, env=env,
                                    stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 300
        while not _answers(url + "/hub/login"):
            assert proc.poll() is None, f"make hub exited with {proc.returncode}:\n{log.read_text()[-3000:]}"
            assert time.time() < deadline, f"the hub's login page did not answer:\n{log.read_text()[-3000:]}"
            time.sleep(0.5)
        yield url, proc, log, accounts, notebooks
    finally:
        if proc is not None:
            _stop(proc)
        accounts.remove()
        shutil.rmtree(notebooks, ignore_errors=True)
        for name in STATE_FILES:                  # the state folder as it was
            (STATE / name).unlink(missing_ok=True)
            if (saved / name).exists():
                shutil.copy2(saved / name, STATE / name)
        STATE.chmod(mode)


def _answers(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError, socket.timeout):
        return False


def _stop(proc):
    """SIGTERM to make and the hub (JupyterHub stops every learner's server, as on Ctrl-C); whatever of the tree
    is left after a minute is killed."""
    try:
        tree = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
    except psutil.Error:
        tree = []
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    _, alive = psutil.wait_procs(tree, timeout=60)
    for p in alive:
        try:
            p.kill()
        except psutil.Error:
            pass


def test_make_hub_setup_then_make_hub_serves_a_learner_with_the_default_state_folder(teachers_hub, browser):
    url, proc, log, accounts, notebooks = teachers_hub
    said = log.read_text()
    assert "Mode: dashboards" in said and f"Address: {url}/" in said, said[-3000:]
    # the state folder is root's alone, and the learners' Python is not in it
    assert stat.S_IMODE(STATE.stat().st_mode) == 0o700
    sys.path.insert(0, str(ROOT / "tools"))
    from learners_python import learners_python, runs_for_others
    python = learners_python(ROOT)
    assert STATE.resolve() not in Path(python).absolute().parents, python
    assert runs_for_others(python)

    name = accounts.name("teo")
    page = browser.new_context().new_page()
    page.goto(url + "/hub/login", timeout=120_000)
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", "teos-own-password")
    page.fill("input[name=otp]", PASSWORD)
    page.click("[type=submit]")
    page.wait_for_url(f"**/user/{name}/voila/render/notebooks/00_index.ipynb", timeout=400_000)
    count_hub_page("voila/render/notebooks/00_index.ipynb", str(notebooks))
    page.wait_for_function(DONE, timeout=300_000, polling=500)
    page.wait_for_function("() => [...document.querySelectorAll('.attnlab-panel img')].some(i => i.complete && i.naturalWidth > 0)",
                           timeout=120_000)
    hub = next(p for p in psutil.Process(proc.pid).children(recursive=True) if "jupyterhub" in " ".join(p.cmdline())
               and "singleuser" not in " ".join(p.cmdline()) and "idle_culler" not in " ".join(p.cmdline()))
    servers = hub_user_servers(hub)
    assert list(servers) == [name], log.read_text()[-3000:]
    assert servers[name].uids().real == pwd.getpwnam(name).pw_uid       # as the learner, not root
    assert (STATE / "learner_passwords.json").exists() and name in (STATE / "learner_passwords.json").read_text()
    page.context.close()
