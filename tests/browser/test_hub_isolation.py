"""A hub a teacher can trust (issue 40): deploy/jupyterhub/jupyterhub_config.py started for real, as root,
as `make hub` starts it; two learners log in through the login form in Chromium and learner A tries, from
code run in a kernel and through the REST API, what a learner must not be able to do. Every attempt is
refused or harmless:

- lab mode: A's kernel runs as A's own Unix user (not root, not the teacher); it cannot write the
  teacher's checkout, read or write B's home, signal B's processes, start a server named for B (with
  its own server's hub token); the REST API opens no terminal and reaches no file outside A's copy;
  A's edit of a notebook survives the server's stop and a new start (the copy never overwrites it);
- dashboards mode: no JupyterLab, no file can be written (a written notebook could be rendered, a
  written module imported), a page's kernel runs no code sent to it, the index and a lesson render;
- the class password opens a learner's first login only: with it, A cannot log in as B;
- TLS: the login page over https with a certificate made here; plain http beyond the loopback
  interface is refused at start unless ATTNLAB_HUB_INSECURE=1.

Learners are real Unix users made by the hub (useradd), in a group and a homes folder of this test's
own; both are removed at the end. Their notebooks are a tiny index and a tiny lesson with real attnlab panels
(ATTNLAB_HUB_NOTEBOOKS, dashboard_helpers.learners_notebooks): this tests the hub, not the lessons, whose
pages are test_dashboards.py's (tests/notebook_runs.py). Skipped by hand where not root; under make test that is a
failure, and so, always, is a checkout other users cannot enter (the failure says what to do).
"""
import json
import pwd
import re
import shutil
import ssl
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from dashboard_helpers import (
    HUB_CONFIG,
    ROOT,
    Hub,
    LearnerAccounts,
    absent,
    count_hub_page,
    hub_prerequisites,
    hub_user_servers,
    learners_notebooks,
    slider_step,
    stop_own_server,
)

pytest.importorskip("jupyterhub")
pytest.importorskip("jupyterhub_idle_culler")
PASSWORD = "class-password-test"
LESSON = "lesson.ipynb"                  # lesson 02's Play panel (learners_notebooks)
DONE = """() => document.querySelector('[cell-index]') && window.themeLoaded
  && !document.querySelector('.voila-skeleton-container') && !document.querySelector('.attnlab-stored')"""


@pytest.fixture(autouse=True, scope="module")
def _can_start():
    """Not root or no proxy: skipped by hand, a failure under make test; a checkout or a Python learners cannot
    reach: a failure that says what to do (dashboard_helpers.hub_prerequisites)."""
    hub_prerequisites()


def wait_until(condition, timeout, step=0.5):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if value := condition():
            return value
        time.sleep(step)
    return condition()


@pytest.fixture(scope="module")
def accounts():
    """The learners' group and homes of this module's hubs; every learner they made is removed after."""
    made = LearnerAccounts()
    yield made
    made.remove()


@pytest.fixture(scope="module")
def notebooks():
    """The folder this module's hubs copy to their learners (ATTNLAB_HUB_NOTEBOOKS)."""
    folder = learners_notebooks()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def hub(tmp_path, accounts, notebooks):
    started = []

    def start(**env):
        h = Hub(tmp_path / f"hub{len(started)}", accounts, PASSWORD, ATTNLAB_HUB_CULL="600",
                ATTNLAB_HUB_NOTEBOOKS=str(notebooks), **env)
        started.append(h)
        return h.start()

    yield start
    for h in started:
        h.stop()


def log_in(browser, hub, name, lands_on):
    ctx = browser.new_context(ignore_https_errors=True)
    page = ctx.new_page()
    page.goto(hub.url + "/hub/login", timeout=120_000)
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", f"{name}-own-password")   # a password of their own
    page.fill("input[name=otp]", PASSWORD)                      # and, the first time, the class password
    page.click("[type=submit]")
    page.wait_for_url(f"**/user/{name}/{lands_on}", timeout=300_000)
    count_hub_page(lands_on, hub.env["ATTNLAB_HUB_NOTEBOOKS"])
    return page


def api(page, hub, name, method, path, body=None):
    """A REST call to ``name``'s server from their own page (their cookies, their _xsrf)."""
    xsrf = next((c["value"] for c in page.context.cookies() if c["name"] == "_xsrf"), "")
    r = page.request.fetch(f"{hub.url}/user/{name}/{path}", method=method, headers={"X-XSRFToken": xsrf},
                           data=json.dumps(body) if body is not None else None, fail_on_status_code=False)
    return r.status, r.text()


# Runs `code` in kernel `id` through its websocket from the page, as JupyterLab's client does; returns
# what the kernel printed, or 'NO REPLY' when the kernel answered nothing within `ms`.
EXECUTE = """async ([url, code, ms]) => new Promise(resolve => {
  const ws = new WebSocket(url);
  const id = 'attnlab-test-' + Math.random();
  let out = '';
  const timer = setTimeout(() => { ws.close(); resolve(out || 'NO REPLY'); }, ms);
  ws.onopen = () => ws.send(JSON.stringify({header: {msg_id: id, msg_type: 'execute_request', username: 'x',
    session: 's', version: '5.3', date: new Date().toISOString()}, parent_header: {}, metadata: {},
    content: {code, silent: false, store_history: false, user_expressions: {}, allow_stdin: false}, channel: 'shell',
    buffers: []}));
  ws.onmessage = e => {
    const m = JSON.parse(e.data);
    if (m.parent_header.msg_id !== id) return;
    if (m.msg_type === 'stream') out += m.content.text;
    if (m.msg_type === 'error') out += 'ERROR ' + m.content.ename + ': ' + m.content.evalue;
    if (m.msg_type === 'execute_reply') { clearTimeout(timer); ws.close(); resolve(out || 'EMPTY'); }
  };
  ws.onerror = () => { clearTimeout(timer); resolve('WEBSOCKET ERROR'); };
})"""


def run_code(page, hub, name, kernel_id, code, ms=180_000):
    """What ``code`` printed in kernel ``kernel_id``. The kernel is first waited for until the server reports it
    idle (a fresh kernel on a loaded machine can take a minute to start; CI once got no reply within 60 s),
    and a request that got no reply or whose websocket failed is sent again, up to four times in all."""
    def state():
        status, text = api(page, hub, name, "GET", f"api/kernels/{kernel_id}")
        return status == 200 and json.loads(text).get("execution_state") == "idle"
    url = f"{hub.url.replace('http', 'ws', 1)}/user/{name}/api/kernels/{kernel_id}/channels"
    for _ in range(4):       # a loaded machine has refused the websocket twice in a row (a CI run)
        wait_until(state, ms / 1000, step=1)
        printed = page.evaluate(EXECUTE, [url, code, ms])
        if printed not in ("NO REPLY", "WEBSOCKET ERROR"):
            break
        time.sleep(5)
    return printed


# What learner A's kernel tries. Each line prints one JSON pair [attempt, outcome].
ATTEMPTS = r"""
import json, os, signal, urllib.request
def attempt(what, f):
    try:
        print(json.dumps([what, 'DONE: ' + str(f())]))
    except Exception as e:
        print(json.dumps([what, 'REFUSED: ' + type(e).__name__]))
print(json.dumps(['uid', os.getuid()]))
print(json.dumps(['home', os.path.expanduser('~')]))
attempt('write the checkout', lambda: open(%(checkout)r + '/notebooks/attnlab-pwned.txt', 'w').write('x'))
attempt('write the package', lambda: open(%(checkout)r + '/attnlab/attnlab-pwned.py', 'w').write('x'))
attempt('list B home', lambda: os.listdir(%(b_home)r))
attempt('read B notebook', lambda: open(%(b_home)r + '/attnlab/notebooks/00_index.ipynb').read(10))
attempt('write B home', lambda: open(%(b_home)r + '/attnlab-pwned.txt', 'w').write('x'))
attempt('signal B server', lambda: os.kill(%(b_pid)d, signal.SIGTERM))
def start_b():
    req = urllib.request.Request(os.environ['JUPYTERHUB_API_URL'] + '/users/%(b)s/server', method='POST', data=b'{}',
                                 headers={'Authorization': 'token ' + os.environ['JUPYTERHUB_API_TOKEN']})
    return urllib.request.urlopen(req, timeout=30).status
attempt('start a server for B', start_b)
"""


def outcomes(printed):
    found = {}
    for line in printed.splitlines():
        if line.startswith("["):
            what, outcome = json.loads(line)
            found[what] = outcome
    return found


def test_lab_mode_keeps_learners_apart_from_each_other_and_from_the_teacher(hub, browser, accounts, notebooks):
    A, B, TAG = accounts.name("ann"), accounts.name("ben"), accounts.tag
    h = hub(ATTNLAB_HUB_MODE="lab")
    a = log_in(browser, h, A, "voila/render/notebooks/00_index.ipynb")
    log_in(browser, h, B, "voila/render/notebooks/00_index.ipynb")
    a.wait_for_function(DONE, timeout=300_000, polling=500)
    users = {name: pwd.getpwnam(name) for name in (A, B)}
    assert all(u.pw_uid != 0 and u.pw_uid != ROOT.stat().st_uid for u in users.values())
    servers = hub_user_servers(h.ps)
    assert set(servers) == {A, B}, h.log()[-3000:]
    for name, proc in servers.items():                   # each server runs as its learner, not as root
        assert proc.uids().real == users[name].pw_uid and proc.uids().effective == users[name].pw_uid
    b_home = Path(users[B].pw_dir)
    assert (b_home.stat().st_mode & 0o777) == 0o700
    assert (b_home / "attnlab" / "notebooks" / "00_index.ipynb").exists()

    # The class password does not open B's account (A knows it, and B's name).
    intruder = browser.new_context().new_page()
    intruder.goto(h.url + "/hub/login", timeout=120_000)
    intruder.fill("input[name=username]", B)
    intruder.fill("input[name=password]", PASSWORD)
    intruder.fill("input[name=otp]", PASSWORD)
    intruder.click("[type=submit]")
    intruder.wait_for_load_state()
    assert "/hub/login" in intruder.url and f"/user/{B}" not in intruder.url
    intruder.context.close()

    # JupyterLab is there in this mode; terminals are not.
    assert api(a, h, A, "GET", "lab")[0] == 200
    assert api(a, h, A, "POST", "api/terminals")[0] in (403, 404)
    # The contents API reaches A's copy only.
    status, _ = api(a, h, A, "GET", "api/contents/notebooks/00_index.ipynb")
    assert status == 200
    for path in ("api/contents/..%2F..%2F" + str(ROOT).lstrip("/").replace("/", "%2F") + "%2Fnotebooks",
                 "api/contents/..%2F" + B):
        assert api(a, h, A, "GET", path)[0] in (400, 403, 404), path
    assert api(a, h, A, "PUT", "api/contents/..%2F..%2Fattnlab-pwned.txt",
               {"type": "file", "format": "text", "content": "x"})[0] in (400, 403, 404)

    # Code in A's kernel, as A.
    status, text = api(a, h, A, "POST", "api/kernels", {"name": "python3"})
    assert status == 201, text
    kernel = json.loads(text)["id"]
    code = ATTEMPTS % {"checkout": str(ROOT), "b_home": str(b_home), "b_pid": servers[B].pid, "b": B}
    printed = run_code(a, h, A, kernel, code)
    found = outcomes(printed)
    assert found.get("uid") == users[A].pw_uid, printed
    assert found["home"] == users[A].pw_dir
    for what in ("write the checkout", "write the package", "list B home", "read B notebook", "write B home",
                 "signal B server", "start a server for B"):
        assert found[what].startswith("REFUSED"), (what, found[what])
    assert not (ROOT / "notebooks" / "attnlab-pwned.txt").exists() and not (b_home / "attnlab-pwned.txt").exists()
    assert servers[B].is_running()

    # A edits a notebook; the edit survives A's server being stopped and started again.
    status, text = api(a, h, A, "GET", "api/contents/notebooks/" + LESSON)
    model = json.loads(text)
    model["content"]["cells"].insert(0, {"cell_type": "markdown", "metadata": {}, "source": "My notes " + TAG})
    assert api(a, h, A, "PUT", "api/contents/notebooks/" + LESSON,
               {"type": "notebook", "format": "json", "content": model["content"]})[0] == 200
    stop_own_server(a, h.url)
    assert wait_until(lambda: A not in hub_user_servers(h.ps) and f"User {A} server took" in h.log(), 120)
    a.goto(h.url + f"/hub/spawn/{A}", timeout=60_000)
    a.wait_for_url(f"**/user/{A}/**", timeout=300_000)
    status, text = api(a, h, A, "GET", "api/contents/notebooks/" + LESSON)
    assert status == 200 and "My notes " + TAG in text, "A's edit was lost when the server started again"
    # and the teacher's copy is untouched
    assert "My notes" not in (notebooks / LESSON).read_text()


def test_a_name_the_machine_has_for_someone_else_cannot_log_in(hub, browser):
    h = hub()
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(h.url + "/hub/login", timeout=120_000)        # the form says what a first login takes
    for label in ("Name (lowercase letters, digits, - or _):", "Your own password (8 characters or more):",
                  "Class password (first login only):"):
        assert page.get_by_label(label).is_visible(), label
    assert "First time here?" in page.inner_text("#attnlab-login-help")
    for name in ("root", "daemon"):
        page.goto(h.url + "/hub/login", timeout=120_000)
        page.fill("input[name=username]", name)
        page.fill("input[name=password]", "a-password-of-mine")
        page.fill("input[name=otp]", PASSWORD)
        page.click("[type=submit]")
        page.wait_for_load_state()
        assert "/hub/login" in page.url, f"{name} got past the login form"
    assert not hub_user_servers(h.ps)
    assert "refused the name 'root'" in h.log()
    ctx.close()


def test_dashboards_mode_runs_no_typed_code_and_serves_the_lessons(hub, browser, accounts):
    A = accounts.name("ann")
    h = hub()                                               # the default mode
    assert "Mode: dashboards" in h.log()
    a = log_in(browser, h, A, "voila/render/notebooks/00_index.ipynb")
    a.wait_for_function(DONE, timeout=300_000, polling=500)
    assert api(a, h, A, "GET", "lab")[0] == 404
    assert api(a, h, A, "POST", "api/terminals")[0] in (403, 404)
    # a lesson renders, with its live figure
    a.goto(f"{h.url}/user/{A}/voila/render/notebooks/{LESSON}", timeout=120_000)
    count_hub_page(f"voila/render/notebooks/{LESSON}", h.env["ATTNLAB_HUB_NOTEBOOKS"])
    a.wait_for_function(DONE, timeout=300_000, polling=500)
    a.wait_for_function("() => [...document.querySelectorAll('.attnlab-panel img')].some(i => i.complete && i.naturalWidth > 0)",
                        timeout=120_000)
    # the dashboard works: a slider moved by keyboard changes its figure (widget messages pass)
    a.wait_for_function("() => [...document.querySelectorAll('.attnlab-panel .widget-slider .noUi-handle')].length > 0",
                        timeout=120_000)
    assert slider_step(a, 0, 0, 30_000), "a slider did not change its figure in dashboards mode"
    # no file can be written: a notebook or a module a learner writes could be rendered or imported
    for path, body in (("api/contents/notebooks/mine.ipynb", {"type": "notebook", "format": "json", "content": {
            "cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}}),
            ("api/contents/torch.py", {"type": "file", "format": "text", "content": "import os"})):
        assert api(a, h, A, "PUT", path, body)[0] == 403, path
    assert api(a, h, A, "POST", "api/contents/notebooks", {"type": "notebook"})[0] == 403
    # the page's own kernel takes widget messages only: code sent to it does not run
    sockets = [s for s in json.loads(api(a, h, A, "GET", "api/kernels")[1])]
    assert sockets, "the lesson's page has no kernel"
    marker = Path(pwd.getpwnam(A).pw_dir) / "attnlab-ran.txt"
    printed = run_code(a, h, A, sockets[0]["id"], f"open({str(marker)!r}, 'w').write('x'); print('RAN')", ms=10_000)
    assert printed == "NO REPLY" and not marker.exists(), printed


def _certificate(folder):
    cert, key = folder / "cert.pem", folder / "key.pem"
    if not shutil.which("openssl"):
        absent("no openssl to make a test certificate", "install it (apt-get install openssl)")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return cert, key


def test_tls_serves_the_login_page_over_https(hub, tmp_path):
    cert, key = _certificate(tmp_path)
    h = hub(ATTNLAB_HUB_SSL_CERT=str(cert), ATTNLAB_HUB_SSL_KEY=str(key))
    assert h.url.startswith("https://")
    context = ssl.create_default_context(cafile=str(cert))          # the certificate made here, verified
    with urllib.request.urlopen(h.url + "/hub/login", timeout=30, context=context) as r:
        assert r.status == 200 and b'name="password"' in r.read()
    assert f"Address: https://127.0.0.1:{h.port}/" in h.log()
    with pytest.raises(OSError):                                               # no plain http beside it
        urllib.request.urlopen(h.url.replace("https", "http", 1) + "/hub/login", timeout=10).read()


@pytest.mark.parametrize("extra, refused", [
    ({}, True),
    ({"ATTNLAB_HUB_INSECURE": "1"}, False),
])
def test_plain_http_beyond_loopback_needs_the_teachers_word(tmp_path, accounts, extra, refused):
    env = Hub(tmp_path, accounts, PASSWORD, ATTNLAB_HUB_IP="0.0.0.0", **extra).env
    if not refused:
        # it would start: read the config only, without listening on the network here
        out = subprocess.run([sys.executable, "-c", "import runpy, traitlets.config as t; c = t.Config(); "
                              f"runpy.run_path({str(HUB_CONFIG)!r}, init_globals={{'get_config': lambda: c}}); "
                              "print(c.JupyterHub.bind_url)"], env=env, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == f"http://0.0.0.0:{env['ATTNLAB_HUB_PORT']}/"
        assert "plain http, accepted with ATTNLAB_HUB_INSECURE=1" in out.stderr
        return
    run = subprocess.run([sys.executable, "-m", "jupyterhub", "-f", str(HUB_CONFIG)], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert re.search(r"ATTNLAB_HUB_IP=0\.0\.0\.0 over plain http would send the class password across the network "
                     r"in clear", run.stdout + run.stderr), (run.stdout + run.stderr)[-2000:]
