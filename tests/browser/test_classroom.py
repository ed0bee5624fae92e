"""A class cannot knock the dashboard server over (attnlab_classroom/, voila.json).

Each test starts its own Voila server from the repository root (so voila.json applies, as for
`voila notebooks/` and `make dashboard`) on a folder of one tiny notebook (and its /zh/ twin),
with short claim times, and talks to it the way the issue measured: plain GETs (no scripts, no
websocket), Chromium tabs closed early, requests past the ceiling, requests without the class
token. Wall time: about a minute for the file.
"""
import http.cookiejar
import time
import urllib.error
import urllib.request

import nbformat
import pytest

from dashboard_helpers import JupyterServer, VoilaServer, close_like_a_learner, pool_per_notebook, settle

FAST = ["--ClassroomKernelManager.check_interval=0.5", "--VoilaKernelManager.fill_delay=0.5", *pool_per_notebook()]


@pytest.fixture(scope="module")
def tiny_notebooks(tmp_path_factory):
    root = tmp_path_factory.mktemp("classroom_nb")
    (root / "zh").mkdir()
    for path in (root / "tiny.ipynb", root / "zh" / "tiny.ipynb"):
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.cells = [nbformat.v4.new_markdown_cell("# Tiny"), nbformat.v4.new_code_cell("print('hello from the kernel')")]
        nbformat.write(nb, path)
    return root


POOL = 2   # pool_per_notebook(): one each for tiny.ipynb and zh/tiny.ipynb


@pytest.fixture
def serve(tiny_notebooks, tmp_path):
    started = []

    def start(*args):
        server = VoilaServer(tiny_notebooks, tmp_path / f"voila{len(started)}.log", [*FAST, *args])
        started.append(server)
        settle(server, quiet=2, min_kernels=POOL, timeout=90)
        return server

    yield start
    for server in started:
        server.stop()


def get(url, opener=None, headers=None):
    """(status, body) of a plain GET, read to the end, as a link preview or a script does it."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with (opener or urllib.request.build_opener()).open(request, timeout=90) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


def wait_for_kernels(server, n, timeout):
    """Wait until the server holds exactly `n` kernels; return how many it holds at the end."""
    deadline = time.time() + timeout
    while time.time() < deadline and len(server.kernels()) != n:
        time.sleep(0.5)
    return len(server.kernels())


def test_plain_gets_in_a_loop_leave_no_kernel_beyond_the_limit_and_none_after_the_claim_time(serve):
    server = serve("--ClassroomKernelManager.claim_timeout=20", "--ClassroomKernelManager.max_per_client=3",
                   "--ClassroomKernelManager.limit_loopback=True")
    page = server.url + "/voila/render/tiny.ipynb"
    statuses, most = [], 0
    for _ in range(8):
        status, body = get(page)
        statuses.append(status)
        most = max(most, len(server.kernels()))
        if status == 503:
            assert "Too many lesson pages open on this computer" in body
    assert statuses == [200] * 3 + [503] * 5, statuses
    assert most <= POOL + 3 + 1, f"{most} kernels at one time (pool {POOL}, 3 pages, 1 refill)"
    # nobody opened a websocket: every page's kernel is shut down after the claim time; the pool stays
    assert wait_for_kernels(server, POOL, timeout=60) == POOL, server.log()[-2000:]
    assert "no page connected within 20 s" in server.log()


def test_past_the_ceiling_the_page_says_so_in_the_learners_language(serve):
    server = serve("--ClassroomKernelManager.max_kernels=3", "--ClassroomKernelManager.claim_timeout=60")
    status, body = get(server.url + "/voila/render/tiny.ipynb")
    assert status == 200 and "hello from the kernel" in body
    assert wait_for_kernels(server, 3, timeout=30) == 3          # the pool refilled: the ceiling is reached
    status, body = get(server.url + "/voila/render/tiny.ipynb")
    assert status == 503
    assert "This lesson is full" in body and "Traceback" not in body
    status, body = get(server.url + "/voila/render/zh/tiny.ipynb")
    assert status == 503 and 'lang="zh"' in body and "这节课已经满了" in body
    status, body = get(server.url + "/voila/render/tiny.ipynb", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})
    assert status == 503 and "这节课已经满了" in body
    assert len(server.kernels()) == 3


def test_without_the_class_token_403(serve):
    server = serve("--ClassroomIdentityProvider.require_token=yes", "--ClassroomIdentityProvider.class_token=s3cret-class")
    for path in ("/", "/voila/render/tiny.ipynb", "/voila/render/tiny.ipynb?token=wrong", "/voila/tree/zh"):
        status, body = get(server.url + path)
        assert status == 403, path
        assert "This lesson needs the class link" in body or "这节课需要老师给的完整链接" in body, path
    assert len(server.kernels()) == POOL, "a request without the token started a kernel"
    status, body = get(server.url + "/voila/render/zh/tiny.ipynb")
    assert status == 403 and "这节课需要老师给的完整链接" in body
    # the link with the token opens the page and sets the cookie the rest of the visit uses
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    status, body = get(server.url + "/?token=s3cret-class", opener)
    assert status == 200 and "attnlab: notebooks" in body   # the attnlab template's list
    status, body = get(server.url + "/voila/render/tiny.ipynb", opener)
    assert status == 200 and "hello from the kernel" in body


def test_a_class_behind_one_address_gets_its_pages_and_one_browser_is_still_limited(serve):
    """Every learner comes from 127.0.0.1 here, as a class behind one NAT address does: with the class link
    each browser is a client of its own (a cookie), so 8 learners all get their page with max_per_client 2;
    one of them opening a third page is refused. (30 learners: tests/serving/test_classroom_unit.py.)"""
    server = serve("--ClassroomIdentityProvider.require_token=yes", "--ClassroomIdentityProvider.class_token=s3cret-class",
                   "--ClassroomKernelManager.max_per_client=2", "--ClassroomKernelManager.limit_loopback=True",
                   "--ClassroomKernelManager.claim_timeout=60")
    page = server.url + "/voila/render/tiny.ipynb"
    learners = [urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
                for _ in range(8)]
    for opener in learners:
        assert get(server.url + "/?token=s3cret-class", opener)[0] == 200
        status, body = get(page, opener)
        assert status == 200 and "hello from the kernel" in body
    assert get(page, learners[0])[0] == 200                       # the first learner's second page
    status, body = get(page, learners[0])
    assert status == 503 and "Too many lesson pages open on this computer" in body


def test_a_browser_closing_early_leaves_no_kernel_and_a_page_that_stays_keeps_its_own(serve, browser):
    # the claim time must cover a page's boot (3.6 MB of scripts) on two busy cores
    server = serve("--ClassroomKernelManager.claim_timeout=20", "--ClassroomKernelManager.release_grace=3",
                   "--ClassroomKernelManager.max_per_client=0")
    url = server.url + "/voila/render/tiny.ipynb"
    # four learners open the page and close it as soon as its text shows, before its scripts connect
    contexts = [browser.new_context() for _ in range(4)]
    pages = [ctx.new_page() for ctx in contexts]
    for page in pages:
        page.goto(url, wait_until="commit")
    for page in pages:
        page.wait_for_selector("text=Tiny", timeout=60_000)
        close_like_a_learner(page)
    # one learner stays: their kernel must outlive the claim time
    ctx = browser.new_context()
    contexts.append(ctx)
    stay = ctx.new_page()
    stay.goto(url, wait_until="load")
    stay.wait_for_selector("text=hello from the kernel", timeout=60_000)
    assert wait_for_kernels(server, POOL + 1, timeout=40) == POOL + 1, server.log()[-2000:]
    time.sleep(20 + 3 + 2)
    assert len(server.kernels()) == POOL + 1, "the open page lost its kernel"
    # and when it leaves without the shutdown beacon (the browser is killed), the grace ends it
    stay.evaluate("() => { window.onbeforeunload = null; navigator.sendBeacon = () => true; }")
    stay.close(run_before_unload=False)
    for c in contexts:
        c.close()
    assert wait_for_kernels(server, POOL, timeout=30) == POOL, server.log()[-2000:]


def test_binder_and_the_hub_too_plain_gets_past_the_ceiling_and_the_claim_time(tiny_notebooks, tmp_path):
    """Under `jupyter server` with Voila as its extension (Binder, a hub's learner server: no pool,
    progressive rendering) with the kernel manager binder/postBuild and deploy/jupyterhub/ name."""
    server = JupyterServer(tmp_path / "server.log", extra_args=[
        "--ServerApp.kernel_manager_class=attnlab_classroom.ClassroomKernelManager", f"--ServerApp.root_dir={tiny_notebooks}",
        "--ClassroomKernelManager.max_kernels=2", "--ClassroomKernelManager.claim_timeout=15",
        "--ClassroomKernelManager.check_interval=0.5"])
    try:
        statuses = []
        for path in ("tiny.ipynb", "tiny.ipynb", "tiny.ipynb", "zh/tiny.ipynb"):
            status, body = get(server.url + "/voila/render/" + path)
            statuses.append(status)
        assert statuses == [200, 200, 503, 503], statuses
        assert "This lesson is full" in get(server.url + "/voila/render/tiny.ipynb")[1]
        assert "这节课已经满了" in body
        assert len(server.kernels()) == 2
        assert wait_for_kernels(server, 0, timeout=60) == 0, server.log()[-2000:]
    finally:
        server.stop()


def test_kept_voila_lists_no_kernels_and_ignores_code_sent_over_a_pages_websocket(serve, tmp_path):
    """What the issue found good, kept: no /api/kernels listing, and an execute_request sent over
    a page's own kernel websocket is dropped (Voila's allowed_message_types)."""
    import asyncio
    import concurrent.futures
    import json
    import re
    import uuid

    from tornado.websocket import websocket_connect

    server = serve()
    assert get(server.url + "/api/kernels")[0] == 404
    status, body = get(server.url + "/voila/render/tiny.ipynb")
    kernel_id = re.search(r'"kernelId": "([0-9a-f-]{36})"', body).group(1)
    marker = tmp_path / "executed"

    async def send_code():
        ws = await websocket_connect(f"ws://127.0.0.1:{server.port}/api/kernels/{kernel_id}/channels?session_id={uuid.uuid4()}")
        def message(msg_type, content):
            msg_id = uuid.uuid4().hex
            ws.write_message(json.dumps({
                "header": {"msg_id": msg_id, "msg_type": msg_type, "username": "", "session": uuid.uuid4().hex,
                           "version": "5.3", "date": "2026-01-01T00:00:00Z"},
                "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [], "content": content}))
            return msg_id

        # the control: an allowed request in the same format is answered
        info_id = message("kernel_info_request", {})
        msg_id = message("execute_request", {"code": f"open({str(marker)!r}, 'w').write('x')", "silent": False,
                                             "store_history": False, "user_expressions": {}, "allow_stdin": False})
        replies = []
        try:
            while True:
                reply = await asyncio.wait_for(ws.read_message(), timeout=5)
                if reply is None:
                    break
                if isinstance(reply, str) and (msg_id in reply or info_id in reply):
                    replies.append(json.loads(reply)["header"]["msg_type"])
        except asyncio.TimeoutError:
            pass
        ws.close()
        return replies

    # a thread of its own: playwright's sync API (the browser fixture) keeps an event loop in this one
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        replies = pool.submit(lambda: asyncio.run(send_code())).result(timeout=120)
    assert "kernel_info_reply" in replies, replies
    assert "execute_reply" not in replies and not marker.exists(), replies
