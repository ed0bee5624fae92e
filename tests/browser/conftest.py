"""One Voila server (from the repo root, so voila.json applies) and one headless
Chromium for the whole browser session; every test in this folder is marked `browser`."""
from pathlib import Path

import pytest

from dashboard_helpers import (
    ARGS,
    NOTEBOOK_DIR,
    NOTEBOOKS,
    ChromiumNotFound,
    PageWatch,
    VoilaServer,
    chromium_path,
    close_like_a_learner,
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
    # voila.json's own settings, a learner's laptop (issue 41): the index preheated, one spare kernel
    # that the next page takes (then the spare is started again), every other page's notebook run when
    # its page opens. Until 2026-11-27 a kernel was preheated for every notebook (both languages, 24):
    # about 7.8 GB held at once, more than a 7-GB runner has (issue 37), for the same notebook
    # executions (each notebook's page runs it once either way).
    # The classroom's claim timeout (voila.json: 120 s) is raised: on a loaded machine a page's kernel was
    # shut down before the page's websocket came (both dashboard pages failed that way at load 25, and
    # again at 40). The claim timeout is test_classroom.py's, on servers of its own.
    server = VoilaServer(NOTEBOOK_DIR, tmp_path_factory.mktemp("voila") / "voila.log",
                         ["--ClassroomKernelManager.claim_timeout=600"])
    settle(server, min_kernels=2, timeout=600)   # the index's preheated kernel has run; the spare is up
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
