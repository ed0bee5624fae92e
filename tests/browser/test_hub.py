"""JupyterHub on this machine (deploy/jupyterhub/jupyterhub_config.py, as `make hub` starts it, as root):
three learners log in with the class password in Chromium, each gets a Jupyter server of their
own (the hub's spawner, as the Unix user the hub made for them), whose Voila index dashboard renders; a server stopped from the hub's
page, and servers left idle (the jupyterhub-idle-culler service), are gone with their kernels.

Everything listens on 127.0.0.1 on free ports; the hub, its proxy, the culler and the learners'
servers are stopped at the end (the hub's cleanup_servers, then the whole process tree), and the
learners' users removed. The learners' notebooks are a tiny index (a formula, the index's Play panel) and
a tiny lesson (ATTNLAB_HUB_NOTEBOOKS, dashboard_helpers.learners_notebooks): this tests the hub, not the
lessons, whose pages are test_dashboards.py's (tests/notebook_runs.py). What a learner can and cannot do:
test_hub_isolation.py. What is
NOT tested here: deploy/zero-to-jupyterhub/config.yaml (Kubernetes) is on paper only.
"""
import shutil
import time

import psutil
import pytest

from dashboard_helpers import (
    TYPESET,
    Hub,
    LearnerAccounts,
    PageWatch,
    count_hub_page,
    hub_prerequisites,
    hub_user_servers,
    learners_notebooks,
    stop_own_server,
)

pytest.importorskip("jupyterhub")
pytest.importorskip("jupyterhub_idle_culler")
PASSWORD = "class-password-test"
OWN_PASSWORD = "my-own-password"
CULL = 30
DONE = """() => document.querySelector('[cell-index]') && window.themeLoaded
  && !document.querySelector('.voila-skeleton-container') && !document.querySelector('.attnlab-stored')"""


def wait_until(condition, timeout, step=1.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


@pytest.fixture
def hub(tmp_path):
    hub_prerequisites()                      # by hand: skipped where not root; under make test: a failure
    accounts = LearnerAccounts()
    notebooks = learners_notebooks()
    h = Hub(tmp_path, accounts, PASSWORD, ATTNLAB_HUB_CULL=str(CULL), ATTNLAB_HUB_NOTEBOOKS=str(notebooks))
    try:
        h.start()
        yield h, [accounts.name(n) for n in ("alice", "bob", "carol")]
    finally:
        h.stop()
        accounts.remove()
        shutil.rmtree(notebooks, ignore_errors=True)


def _kernels(server):
    """The kernel processes of one learner's server."""
    try:
        return [c for c in server.children(recursive=True) if "ipykernel" in " ".join(c.cmdline())]
    except psutil.Error:
        return []


def test_hub_learners_get_their_own_server_and_dashboard_and_stopping_or_culling_frees_it(hub, browser):
    h, learners = hub
    url, hub_proc, log_path = h.url, h.ps, h.log_path
    alice, bob, carol = learners
    pages = {}
    for name in learners:                      # log in and ask for a server, all three at once
        ctx = browser.new_context()
        page = ctx.new_page()
        watch = PageWatch(page)
        page.goto(url + "/hub/login", timeout=120_000)
        page.fill("input[name=username]", name)
        page.fill("input[name=password]", OWN_PASSWORD)     # a password of their own
        page.fill("input[name=otp]", PASSWORD)              # and, the first time, the class password
        page.click("[type=submit]")
        pages[name] = (ctx, page, watch)
    for name, (_ctx, page, watch) in pages.items():    # each lands on its own server's Voila index
        page.wait_for_url(f"**/user/{name}/voila/render/notebooks/00_index.ipynb", timeout=400_000)
        count_hub_page("voila/render/notebooks/00_index.ipynb", h.env["ATTNLAB_HUB_NOTEBOOKS"])
        page.wait_for_function(DONE, timeout=300_000, polling=500)
        assert "attnlab" in page.inner_text("body")
        # the index's formulas typeset by the MathJax Voila bundles, nothing from outside (a school's
        # hub may have no internet; without deploy/jupyterhub's tornado_settings, MathJax 2 from cdnjs)
        page.wait_for_function(TYPESET, timeout=60_000)
        assert not watch.outside, f"requests left 127.0.0.1: {sorted(set(watch.outside))}"
    servers = hub_user_servers(hub_proc)
    assert set(servers) == set(learners), (servers, log_path.read_text()[-3000:])
    assert len({p.pid for p in servers.values()}) == len(learners)
    # each learner's kernels are their own server's: the page's, and the spare it keeps started ahead
    # (deploy/jupyterhub: spare_kernels=1; it may not have started yet when we look)
    kernels = {n: [c for c in p.children(recursive=True) if "ipykernel" in " ".join(c.cmdline())] for n, p in servers.items()}
    assert all(1 <= len(k) for k in kernels.values()), kernels
    assert "attnlab classroom: a page took spare kernel" in log_path.read_text(errors="replace")
    assert wait_until(lambda: all(len(_kernels(p)) >= 2 for p in servers.values()), 120), \
        {n: _kernels(p) for n, p in servers.items()}                    # the next spare, spare_delay later
    kernels = {n: _kernels(p) for n, p in servers.items()}

    # alice stops her server from the hub's home page: its process and kernel are gone
    ctx, page, _ = pages[alice]
    stop_own_server(page, url)
    gone = [servers[alice], *kernels[alice]]
    assert wait_until(lambda: not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in gone), 120)

    # bob and carol close their tabs and leave: the idle culler stops their servers
    for name in (bob, carol):
        pages[name][0].close()
    left = [servers[bob], servers[carol], *kernels[bob], *kernels[carol]]
    assert wait_until(lambda: not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in left), CULL * 8), \
        log_path.read_text()[-3000:]
    assert "Culling server" in log_path.read_text(errors="replace")
    pages[alice][0].close()
