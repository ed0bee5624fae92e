"""One Voila server (from the repo root, so voila.json applies) and one headless
Chromium for the whole browser session; every test in this folder is marked `browser`."""
from pathlib import Path

import pytest

from dashboard_helpers import (
    ARGS,
    NOTEBOOK_DIR,
    NOTEBOOKS,
    PREHEATED,
    ChromiumNotFound,
    PageWatch,
    VoilaServer,
    chromium_path,
    close_like_a_learner,
    pool_per_notebook,
    settle,
)


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def voila_server(tmp_path_factory):
    if not NOTEBOOKS:
        pytest.skip(f"no notebooks in {NOTEBOOK_DIR}")
    # voila.json, but a kernel preheated for every notebook and no spare (pool_per_notebook; a learner's
    # `make dashboard` preheats only the index), not refilled (as `make lesson`): each notebook's page
    # takes its preheated kernel once; a second page of the same notebook (index links, the reload after
    # a lost widget) gets a fresh kernel, Voila's path without a pool (as on Binder). With fill_delay 1 s
    # every page started a refill nobody opened: 22 notebook executions per session for nothing.
    # The classroom's claim timeout (voila.json: 120 s) is raised: on a loaded machine a page's kernel was
    # shut down before the page's websocket came (both dashboard pages failed that way at load 25, and
    # again at 40). The claim timeout is test_classroom.py's, on servers of its own.
    server = VoilaServer(NOTEBOOK_DIR, tmp_path_factory.mktemp("voila") / "voila.log",
                         [*pool_per_notebook(refill=False), "--ClassroomKernelManager.claim_timeout=600"])
    # Every notebook's preheated kernel (both languages) has run before a page opens: on two cores
    # they start together, and the first pages would otherwise wait on them (and take Voila's
    # hand-over path).
    settle(server, min_kernels=len(PREHEATED), timeout=600)   # returns once they are idle; 240 s ran out at load 15+
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    try:
        executable = chromium_path()
    except ChromiumNotFound as e:
        pytest.skip(str(e))
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=executable, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def new_page(browser):
    """Pages in a fresh context (own cookies); closed as a learner closes a tab."""
    made = []

    def make(width=1280, height=1000, **kw):
        ctx = browser.new_context(viewport={"width": width, "height": height}, accept_downloads=True, **kw)
        page = ctx.new_page()
        made.append((ctx, page))
        return page, PageWatch(page)

    yield make
    for ctx, page in made:
        close_like_a_learner(page)
        ctx.close()
