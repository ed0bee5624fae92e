"""attnlab_classroom without a server: the pages, the language, the token rule, the claim rule.
The servers themselves are tested in tests/browser/test_classroom.py."""
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("voila")
from traitlets import Integer, Unicode
from traitlets.config import Configurable

import attnlab_classroom as classroom

ROOT = Path(__file__).resolve().parents[2]


def request(path="/voila/render/01.ipynb", accept=""):
    return SimpleNamespace(request=SimpleNamespace(path=path, headers={"Accept-Language": accept} if accept else {}))


def test_page_language_from_the_path_or_the_browser():
    assert classroom.page_language(request()) == "en"
    assert classroom.page_language(request("/voila/render/zh/01_kernel_regression.ipynb")) == "zh"
    assert classroom.page_language(request(accept="zh-CN,zh;q=0.9,en;q=0.8")) == "zh"
    assert classroom.page_language(request(accept="en-GB,zh;q=0.5")) == "en"
    assert classroom.page_language(None) == "en"


def test_pages_are_readable_in_both_languages():
    en = classroom.full_page("en", "full", 40)
    zh = classroom.full_page("zh", "full", 40)
    assert "This lesson is full" in en and 'lang="en"' in en
    assert "这节课已经满了" in zh and 'lang="zh"' in zh and "This lesson" not in zh
    assert "6" in classroom.full_page("zh", "client", 6)
    assert "这节课需要老师给的完整链接" in classroom.forbidden_page("zh")
    assert "?token=" in classroom.forbidden_page("en")


def test_loopback():
    assert all(map(classroom.is_loopback, ["127.0.0.1", "127.0.1.1", "::1", "localhost"]))
    assert not any(map(classroom.is_loopback, ["0.0.0.0", "192.168.1.20", "", "example.org"]))


class FakeVoila(Configurable):
    ip = Unicode("127.0.0.1")
    port = Integer(8866)
    base_url = Unicode("/")


@pytest.mark.parametrize("ip, required", [("127.0.0.1", False), ("localhost", False), ("0.0.0.0", True),
                                          ("192.168.1.20", True)])
def test_a_token_is_required_beyond_localhost_and_printed_with_the_address(ip, required, capsys, monkeypatch):
    monkeypatch.delenv(classroom.TOKEN_ENV, raising=False)
    provider = classroom.ClassroomIdentityProvider(parent=FakeVoila(ip=ip), token="")
    assert provider.required is required
    printed = capsys.readouterr().err
    if required:
        assert len(provider.class_token) >= 12
        assert f":8866/?token={provider.class_token}" in printed
    else:
        assert printed == ""


def test_the_class_token_can_be_set_by_the_teacher(monkeypatch):
    monkeypatch.setenv(classroom.TOKEN_ENV, "maths-3b")
    provider = classroom.ClassroomIdentityProvider(parent=FakeVoila(ip="0.0.0.0"), token="")
    assert provider.class_token == "maths-3b"


def test_every_way_of_serving_names_the_classroom_classes():
    config = json.loads((ROOT / "voila.json").read_text())
    assert config["VoilaConfiguration"]["multi_kernel_manager_class"] == "attnlab_classroom.ClassroomKernelManager"
    assert config["Voila"]["identity_provider_class"] == "attnlab_classroom.ClassroomIdentityProvider"
    assert "attnlab_classroom.ClassroomKernelManager" in (ROOT / "binder" / "postBuild").read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert "MAX_KERNELS" in makefile


def test_the_claim_rule(monkeypatch):
    """Shut down: a page kernel never connected for claim_timeout since its last activity, or one
    whose page left release_grace ago. Keep: a busy one, a fresh one, a connected one, a reloading one."""
    km = classroom.ClassroomKernelManager()
    grace = km.release_grace
    now = 1000.0
    idle = SimpleNamespace(execution_state="idle", last_activity=None)
    kernels = {"unclaimed": idle, "running": SimpleNamespace(execution_state="busy", last_activity=None),
               "fresh": idle, "connected": idle, "left": idle, "reloading": idle}
    pages = {"unclaimed": dict(handed=now - 121, connected=False, closed_at=None),
             "running": dict(handed=now - 100, connected=False, closed_at=None),
             "fresh": dict(handed=now - 60, connected=False, closed_at=None),
             "connected": dict(handed=now - 500, connected=True, closed_at=None),
             "left": dict(handed=now - 500, connected=True, closed_at=now - grace - 1),
             "reloading": dict(handed=now - 500, connected=True, closed_at=now - grace + 3)}
    km._page_kernels = {k: dict(v, client="10.0.0.2") for k, v in pages.items()}
    km._kernel_connections = {"connected": 1}
    monkeypatch.setattr(type(km), "__contains__", lambda self, k: k in kernels)
    monkeypatch.setattr(km, "get_kernel", lambda k: kernels[k])
    found = dict(km.unclaimed(now=now))
    assert set(found) == {"unclaimed", "left"}, found
    assert "no page connected within 120 s" in found["unclaimed"]
    assert f"left {grace + 1:.0f} s ago" in found["left"]


class FakeHandler:
    """What the classroom classes read and write on a tornado handler."""

    def __init__(self, path="/voila/render/01.ipynb", ip="10.0.0.2", args=None, cookies=None, headers=None):
        self.request = SimpleNamespace(path=path, method="GET", remote_ip=ip, headers=headers or {})
        self.args, self.cookies, self.status, self.headers_out, self.base_url = args or {}, dict(cookies or {}), 200, {}, "/"

    def get_argument(self, name, default=None):
        return self.args.get(name, default)

    def get_cookie(self, name):
        return self.cookies.get(name)

    def set_cookie(self, name, value, **kw):
        self.cookies[name] = value

    def set_status(self, status):
        self.status = status

    def set_header(self, name, value):
        self.headers_out[name] = value


def test_the_class_token_opens_the_door_and_its_cookie_keeps_it_open():
    from tornado.web import Finish
    provider = classroom.ClassroomIdentityProvider(parent=FakeVoila(ip="0.0.0.0"), token="", class_token="s3cret-x")
    with pytest.raises(Finish) as refused:
        provider.get_user(FakeHandler(path="/voila/render/zh/01.ipynb"))
    assert "这节课需要老师给的完整链接" in refused.value.args[0]
    with pytest.raises(Finish):
        provider.get_user(FakeHandler(args={"token": "wrong"}))
    handler = FakeHandler(args={"token": "s3cret-x"})
    assert provider.get_user(handler) is not None
    assert provider.get_user(FakeHandler(cookies=handler.cookies)) is not None
    assert provider.get_user(FakeHandler(headers={"Authorization": "token s3cret-x"})) is not None


def test_admission_the_ceiling_and_the_per_client_limit(monkeypatch):
    from jupyter_server.base.call_context import CallContext
    from tornado.web import Finish
    km = classroom.ClassroomKernelManager(max_kernels=3, max_per_client=2)
    assert km.ceiling == 3
    handler = FakeHandler(ip="10.0.0.7", headers={"Accept-Language": "zh-CN"})
    CallContext.set(CallContext.JUPYTER_HANDLER, handler)
    try:
        assert km._admit() == "10.0.0.7"                      # admitted, and counted while it starts
        km._release("10.0.0.7")
        km._page_kernels = {"a": dict(client="10.0.0.7"), "b": dict(client="10.0.0.7")}
        with pytest.raises(Finish) as refused:
            km._admit()
        assert handler.status == 503 and "这台电脑打开的课程页面太多了" in refused.value.args[0]
        km._page_kernels = {}
        monkeypatch.setattr(type(km), "list_kernel_ids", lambda self: ["a", "b", "c"])
        with pytest.raises(Finish) as refused:
            km._admit()
        assert "这节课已经满了" in refused.value.args[0]
        monkeypatch.setattr(type(km), "list_kernel_ids", lambda self: [])
        monkeypatch.setattr(classroom.admission, "memory_available_mb", lambda reserve_mb=0: 100.0)
        with pytest.raises(Finish):
            km._admit()
    finally:
        CallContext.set(CallContext.JUPYTER_HANDLER, None)


def test_the_class_link_gives_each_browser_an_identity_its_cookie_keeps():
    provider = classroom.ClassroomIdentityProvider(parent=FakeVoila(ip="0.0.0.0"), token="", class_token="s3cret-x")
    first = FakeHandler(args={"token": "s3cret-x"})
    provider.get_user(first)
    assert first.attnlab_learner and first.cookies[classroom.LEARNER_COOKIE].startswith(first.attnlab_learner + ".")
    again = FakeHandler(cookies=first.cookies)                       # the same browser, the next page
    provider.get_user(again)
    assert again.attnlab_learner == first.attnlab_learner
    other = FakeHandler(args={"token": "s3cret-x"})                   # another browser, same address
    provider.get_user(other)
    assert other.attnlab_learner != first.attnlab_learner
    forged = FakeHandler(cookies={**first.cookies, classroom.LEARNER_COOKIE: "chosen-id.0000"})
    provider.get_user(forged)
    assert forged.attnlab_learner != "chosen-id"                     # not signed by this server: a new identity
    assert classroom.learner_client(again) == f"10.0.0.2 {first.attnlab_learner}"
    assert classroom.learner_client(FakeHandler()) == "10.0.0.2"     # no identity: the address
    assert classroom.learner_client(None) is None


def test_a_class_behind_one_address_is_many_browsers_and_one_browser_is_still_limited():
    """30 learners reaching the server through one NAT address each get their page (max_per_client 6);
    one learner opening a seventh page is refused, and so are plain GETs without cookies past 6."""
    from jupyter_server.base.call_context import CallContext
    from tornado.web import Finish
    provider = classroom.ClassroomIdentityProvider(parent=FakeVoila(ip="0.0.0.0"), token="", class_token="s3cret-x")
    km = classroom.ClassroomKernelManager(max_kernels=100, max_per_client=6)

    def open_page(handler, n):
        CallContext.set(CallContext.JUPYTER_HANDLER, handler)
        client = km._admit()
        km._release(client)
        km._page_kernels[f"k{n}"] = dict(client=client)
        return client

    try:
        learners = [FakeHandler(ip="203.0.113.9", args={"token": "s3cret-x"}) for _ in range(30)]
        for n, link in enumerate(learners):
            provider.get_user(link)                         # the class link opens the list: an identity
            assert classroom.learner_client(link) == "203.0.113.9"      # (that request itself: the address's)
            page = FakeHandler(ip="203.0.113.9", cookies=link.cookies)  # then the lesson, from that browser
            provider.get_user(page)
            open_page(page, n)
        assert len(km._page_kernels) == 30 and len({k["client"] for k in km._page_kernels.values()}) == 30
        same = learners[0].cookies
        for n in range(5):                                  # the first learner's pages 2..6
            handler = FakeHandler(ip="203.0.113.9", cookies=same)
            provider.get_user(handler)
            open_page(handler, 100 + n)
        seventh = FakeHandler(ip="203.0.113.9", cookies=same)
        provider.get_user(seventh)
        CallContext.set(CallContext.JUPYTER_HANDLER, seventh)
        with pytest.raises(Finish):
            km._admit()
        assert seventh.status == 503
        for n in range(6):                                  # a script without cookies: the address's own bucket,
            script = FakeHandler(ip="203.0.113.9", args={"token": "s3cret-x"})      # even with the token each time
            provider.get_user(script)
            open_page(script, 200 + n)
        plain = FakeHandler(ip="203.0.113.9", args={"token": "s3cret-x"})
        provider.get_user(plain)
        CallContext.set(CallContext.JUPYTER_HANDLER, plain)
        with pytest.raises(Finish):
            km._admit()
    finally:
        CallContext.set(CallContext.JUPYTER_HANDLER, None)


def test_a_token_with_any_characters_is_refused_not_a_server_error():
    from tornado.web import Finish
    provider = classroom.ClassroomIdentityProvider(parent=FakeVoila(ip="0.0.0.0"), token="", class_token="s3cret-x")
    for given in ("密码", "s3cret-\udcff"):
        with pytest.raises(Finish):
            provider.get_user(FakeHandler(args={"token": given}))
        with pytest.raises(Finish):
            provider.get_user(FakeHandler(cookies={provider.cookie: given}))


def test_a_kernel_started_through_the_rest_api_counts_against_the_ceiling(monkeypatch):
    """JupyterLab's kernels and a POST to /api/kernels (no VOILA_PREHEAT) are not a page's, but they take
    memory: past the ceiling they are refused too (the hub's learners could start them without limit)."""
    import asyncio

    from jupyter_server.base.call_context import CallContext
    from tornado.web import Finish
    km = classroom.ClassroomKernelManager(max_kernels=2, max_per_client=1)
    monkeypatch.setattr(type(km), "list_kernel_ids", lambda self: ["a", "b"])
    handler = FakeHandler(path="/api/kernels", ip="127.0.0.1")
    CallContext.set(CallContext.JUPYTER_HANDLER, handler)
    try:
        with pytest.raises(Finish):
            asyncio.run(km.start_kernel(kernel_name="python3"))
        assert handler.status == 503
    finally:
        CallContext.set(CallContext.JUPYTER_HANDLER, None)


def test_dashboards_only_kernels_take_widget_messages_and_no_code():
    km = classroom.ClassroomKernelManager(dashboards_only=True)
    assert set(km.allowed_message_types) == {"comm_open", "comm_close", "comm_msg", "comm_info_request",
                                             "kernel_info_request", "shutdown_request"}
    assert "execute_request" not in km.allowed_message_types
    assert classroom.ClassroomKernelManager().allowed_message_types == []          # lab mode, Binder: everything


def test_the_read_only_contents_refuse_every_change(tmp_path):
    import asyncio

    from tornado.web import HTTPError
    (tmp_path / "a.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    cm = classroom.ReadOnlyContentsManager(root_dir=str(tmp_path))

    async def run():
        assert (await cm.get("a.ipynb"))["type"] == "notebook"            # reading works
        model = {"type": "file", "format": "text", "content": "import os"}
        for change in (lambda: cm.save(model, "torch.py"), lambda: cm.delete("a.ipynb"),
                       lambda: cm.rename("a.ipynb", "b.ipynb"), lambda: cm.new_untitled(type="notebook"),
                       lambda: cm.copy("a.ipynb"), lambda: cm.create_checkpoint("a.ipynb"),
                       lambda: cm.new(path="x.ipynb")):
            with pytest.raises(HTTPError, match="Read-only: this class serves the dashboards only") as refused:
                await change()
            assert refused.value.status_code == 403
    asyncio.run(run())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.ipynb"]


# -- warm imports (issue 24 item 6) ------------------------------------------------------------
def test_warm_imports_refuse_what_is_not_a_module_name():
    with pytest.raises(ValueError, match=r"warm_imports: expected dotted module names .* got 'torch; import os'"):
        classroom.warm_up_line(["torch; import os"])
    with pytest.raises(ValueError, match=r"warm_imports: expected dotted module names .* got 'a..b'"):
        classroom.warm_up_line(["a..b"])
    with pytest.raises(TypeError, match=r"warm_imports: expected a list of module names, got 'torch'"):
        classroom.warm_up_line("torch")
    from traitlets import TraitError
    with pytest.raises(TraitError, match=r"warm_imports: expected dotted module names"):
        classroom.ClassroomKernelManager(max_kernels=2, warm_imports=["os\nprint(1)"])


def _started_with(monkeypatch, km, env):
    """The keyword arguments ``km.start_kernel`` hands to jupyter_server's start_kernel."""
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
    seen = {}

    async def fake_start(self, *args, **kwargs):
        seen.update(kwargs)
        return "k1"
    monkeypatch.setattr(AsyncMappingKernelManager, "start_kernel", fake_start)
    import asyncio
    asyncio.run(km.start_kernel(kernel_name="python3", env=env))
    return seen


def test_only_a_page_kernel_gets_the_warm_up_and_nothing_of_the_request_goes_into_it(monkeypatch):
    km = classroom.ClassroomKernelManager(max_kernels=4)
    hostile = {"VOILA_PREHEAT": "False", "QUERY_STRING": "x=__import__('os').system('id')",
               "SCRIPT_NAME": "/voila/render/');import os;('", "PATH_INFO": "/voila/render/01.ipynb"}
    page = _started_with(monkeypatch, km, hostile)
    assert page["extra_arguments"] == [f"--IPKernelApp.exec_lines={classroom.warm_up_line(km.warm_imports)}"]
    assert "import os" not in page["extra_arguments"][0] and "system" not in page["extra_arguments"][0]
    assert "extra_arguments" not in _started_with(monkeypatch, km, {"VOILA_PREHEAT": "True"})   # the pool's
    assert "extra_arguments" not in _started_with(monkeypatch, km, {})                          # JupyterLab's
    km.warm_imports = []
    assert "extra_arguments" not in _started_with(monkeypatch, km, dict(hostile))


def _first_cell(env, warm_imports=None):
    """Start a kernel with the classroom manager, run one cell in it at once, return what it printed."""
    import asyncio
    import os

    async def run():
        km = classroom.ClassroomKernelManager(max_kernels=4, **({} if warm_imports is None else {"warm_imports": warm_imports}))
        kernel_id = await km.start_kernel(kernel_name="python3", env={**os.environ, **env})
        code = ("import sys, threading\n"
                "print([m for m in ('torch', 'matplotlib.pyplot', 'ipywidgets') if m in sys.modules],"
                " [t.name for t in threading.enumerate() if t.name.startswith('attnlab')],"
                " sorted(k for k in globals() if 'attnlab' in k))")
        try:
            return await _run(km, kernel_id, code)
        finally:
            await km.shutdown_kernel(kernel_id, now=True)
    return asyncio.run(run())


def test_a_page_kernel_has_imported_torch_before_its_first_cell_runs():
    # the first cell waited for the thread: the modules are in, the thread is done, no name is left
    assert _first_cell({"VOILA_PREHEAT": "False"}) == "['torch', 'matplotlib.pyplot', 'ipywidgets'] [] []"
    # a kernel that is not a page's (JupyterLab's under Binder) starts as before
    assert _first_cell({}) == "[] [] []"


# -- the pool of `make lesson`: filled once, never refilled -------------------------------------
class PoolLike(classroom.ClassroomKernelManager):
    """What Voila's pool manager does with this class as its base: fill every pool with delay 0 after
    the base's __init__, and ask for a refill (delay None: its fill_delay) when a page takes a kernel."""

    def __init__(self, **kwargs):
        self.fills = []
        super().__init__(**kwargs)
        self.fill_if_needed(delay=0, notebook_name="01.ipynb")

    def fill_if_needed(self, delay=None, notebook_name=None, **kwargs):
        self.fills.append((delay, notebook_name))


@pytest.mark.parametrize("refill", [True, False])
def test_a_pool_that_is_not_refilled_is_filled_once_at_start(refill):
    km = PoolLike(refill_pool=refill)
    km.fill_if_needed(delay=None, notebook_name="01.ipynb")          # a page took the pool's kernel
    assert km.fills == [(0, "01.ipynb"), (None, "01.ipynb")][:2 if refill else 1]


class RendersLike(classroom.ClassroomKernelManager):
    """What Voila's pool manager's _initialize does: start a kernel, return while its notebook runs in a task."""

    def __init__(self, **kwargs):
        self.running = self.most = 0
        self.order = []
        super().__init__(**kwargs)

    async def _initialize(self, notebook_path, kernel_id=None, **kw):
        import asyncio
        self.order.append(notebook_path)
        self.running += 1
        self.most = max(self.most, self.running)

        async def render():
            await asyncio.sleep(0.05)
            self.running -= 1
        return {"task": asyncio.ensure_future(render()), "kernel_id": notebook_path}


@pytest.mark.parametrize("bound, most", [(2, 2), (1, 1), (-1, 6)])
def test_the_pool_runs_at_most_pool_renders_notebooks_at_once_in_order(bound, most):
    """make lesson LEARNERS=30 asked for 30 notebook runs in the same second (bench/load): they take turns."""
    import asyncio

    async def run():
        km = RendersLike(pool_renders=bound)
        started = await asyncio.gather(*(km._initialize(f"nb{i}") for i in range(6)))
        await asyncio.gather(*(s["task"] for s in started))
        return km
    km = asyncio.run(run())
    assert km.most == most and km.order == [f"nb{i}" for i in range(6)] and km.running == 0


def test_by_default_the_pool_takes_one_turn_per_core(monkeypatch):
    import asyncio
    monkeypatch.setattr(classroom.kernels.os, "cpu_count", lambda: 3)

    async def run():
        km = RendersLike()
        started = await asyncio.gather(*(km._initialize(f"nb{i}") for i in range(7)))
        await asyncio.gather(*(s["task"] for s in started))
        return km.most
    assert asyncio.run(run()) == 3


def test_make_lesson_does_not_refill_its_pool_with_a_long_delay():
    """`make lesson` once set fill_delay=14400: Voila puts the delayed refill in the pool at once, so the
    second learner on a notebook with a pool of one waited on it for 4 hours. The bench does as it does."""
    for path in ("Makefile", "bench/bench_classroom.py"):
        text = (ROOT / path).read_text()
        assert "refill_pool=False" in text and "fill_delay=14400" not in text, path


# -- spare kernels (spare_kernels; Binder and the hub's servers) ---------------------------------
def test_adopt_line_refuses_what_is_not_a_path_or_an_environment():
    with pytest.raises(TypeError, match=r"cwd: expected a directory path \(str\), got PosixPath"):
        classroom.adopt_line(ROOT, {})
    with pytest.raises(TypeError, match=r"env: expected a dict of str to str, got \{'A': 1\}"):
        classroom.adopt_line("/tmp", {"A": 1})
    with pytest.raises(TypeError, match=r"env: expected a dict of str to str, got \[\]"):
        classroom.adopt_line("/tmp", [])


def test_adopt_line_carries_a_hostile_request_as_data(tmp_path):
    """What the request held (the query string, the path) arrives as the exact string; nothing runs."""
    import subprocess
    import sys

    from IPython.core.inputtransformer2 import TransformerManager
    from voila.utils import ENV_VARIABLE
    marker = tmp_path / "pwned"
    query = f"x=');open({str(marker)!r},'w')#\n\"\"\"\\ ?"
    # Voila's keys are ENV_VARIABLE members (a str subclass whose repr is not a literal: it broke repr())
    hostile = {ENV_VARIABLE.QUERY_STRING: query, "SCRIPT_NAME": "/a b/'\"\\n!ls %time"}
    code = classroom.adopt_line(str(tmp_path), hostile)
    assert TransformerManager().transform_cell(code) == code        # IPython reads it as Python does
    assert "pwned" not in code and "SCRIPT_NAME" not in code         # nothing of the request in the text
    code += "import os, json; print(json.dumps([os.getcwd(), os.environ['QUERY_STRING'], os.environ['SCRIPT_NAME'], sorted(k for k in dir() if not k.startswith('__'))]))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert json.loads(out) == [str(tmp_path), query, hostile["SCRIPT_NAME"], ["json", "os"]]
    assert not marker.exists()


def _run(km, kernel_id, code):
    """What one cell printed in a kernel of ``km``."""
    async def run():
        client = km.get_kernel(kernel_id).client()
        client.start_channels()
        out = []
        try:
            await client.wait_for_ready(timeout=120)
            reply = await client.execute_interactive(code, timeout=180,
                                                     output_hook=lambda m: out.append(m["content"].get("text", "")))
            assert reply["content"]["status"] == "ok", reply["content"]
        finally:
            client.stop_channels()
        return "".join(out).strip()
    return run()


async def _kernels(km, n, timeout=120):
    """Wait until ``km`` holds ``n`` kernels, its spare (if any) started; their ids, in start order."""
    import asyncio
    import time
    deadline = time.time() + timeout
    while time.time() < deadline:
        ids = km.list_kernel_ids()
        if len(ids) == n and (not km.spare_kernels or km.spare_ids):
            return ids
        await asyncio.sleep(0.2)
    raise AssertionError(f"expected {n} kernels, the manager holds {len(km.list_kernel_ids())}, spares {km.spare_ids}")


def _holds_torch(km, kernel_id):
    """True once the kernel's process has loaded libtorch (read from /proc, no cell run)."""
    pid = km.get_kernel(kernel_id).provisioner.pid
    try:
        return "libtorch" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


async def _until(predicate, timeout=120):
    import asyncio
    import time
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        await asyncio.sleep(0.2)
    return False


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc")
def test_a_page_takes_the_spare_kernel_made_its_own_and_another_spare_follows(tmp_path):
    """A spare starts with the server and imports torch with no cell run; a page takes it (same
    kernel, the page's directory and request environment, no cell counted, no name left); the next
    spare follows spare_delay later; JupyterLab's kernels never take a spare; the culler leaves
    spares alone; a spare shut down from outside is replaced."""
    import asyncio
    import os
    (tmp_path / "zh").mkdir()
    from voila.utils import ENV_VARIABLE
    page_env = {**os.environ, ENV_VARIABLE.VOILA_PREHEAT: "False", ENV_VARIABLE.QUERY_STRING: "lang=');import os#",
                ENV_VARIABLE.SCRIPT_NAME: "/voila/render/zh/tiny.ipynb"}      # as Voila's handler builds it
    show = ("print(__import__('os').getcwd(), __import__('os').environ.get('QUERY_STRING'),"
            " get_ipython().execution_count, sorted(k for k in globals() if not k.startswith('_') and k not in"
            " ('In', 'Out', 'get_ipython', 'exit', 'quit', 'open')))")

    async def run():
        km = classroom.ClassroomKernelManager(root_dir=str(tmp_path), spare_kernels=1, spare_delay=0.5, max_kernels=4)
        try:
            (spare,) = await _kernels(km, 1)
            assert await _until(lambda: _holds_torch(km, spare)), "the spare did not import torch by itself"
            page = await km.start_kernel(kernel_name="python3", path="zh", env=page_env)
            assert page == spare
            shown = await _run(km, page, show)
            first, second = await _kernels(km, 2)               # the next spare, spare_delay later
            assert first == page and second != page and km.spare_ids == [second]
            lab = await km.start_kernel(kernel_name="python3", env=dict(os.environ))  # JupyterLab's: no spare
            assert lab not in (page, second) and km.spare_ids == [second]
            # the first cell's execution_count is the one a kernel started for it shows (2 with IPython 9,
            # 1 with 7.34, the floor): adoption counted nothing
            fresh = await _run(km, lab, "print(get_ipython().execution_count)")
            assert fresh in ("1", "2") and shown == f"{tmp_path / 'zh'} lang=');import os# {fresh} []"
            km.cull_idle_timeout = 0
            await asyncio.sleep(0.1)
            for kernel_id in (second, lab):
                await km.cull_kernel_if_idle(kernel_id)
            assert second in km and lab not in km               # the spare waits; an idle lab kernel is culled
            await km.shutdown_kernel(second, now=True)          # JupyterLab's "shut down" on the spare
            assert await _until(lambda: len(km.spare_ids) == 1 and second not in km.spare_ids), "not replaced"
            third = km.spare_ids[0]
            assert await km.start_kernel(kernel_name="python3", path="", env=page_env) == third
            assert (await _run(km, third, "import os; print(os.getcwd())")) == str(tmp_path)
        finally:
            await km.shutdown_all(now=True)
        assert km.list_kernel_ids() == []
    asyncio.run(run())


def test_spares_within_the_ceiling_a_failed_one_and_shutting_down_while_one_starts(tmp_path, monkeypatch):
    """Without spare_kernels nothing starts ahead. At the ceiling a page still gets the spare and no
    next one starts until a kernel is shut down. A spare that cannot be adopted is shut down and the
    page gets a kernel of its own. shutdown_all while a spare is starting leaves no kernel."""
    import asyncio
    import os
    page_env = {**os.environ, "VOILA_PREHEAT": "False"}

    async def run():
        km = classroom.ClassroomKernelManager(root_dir=str(tmp_path))
        await asyncio.sleep(1.0)
        assert km.list_kernel_ids() == []

        km = classroom.ClassroomKernelManager(root_dir=str(tmp_path), spare_kernels=1, spare_delay=0, max_kernels=1)
        try:
            (spare,) = await _kernels(km, 1)
            page = await km.start_kernel(kernel_name="python3", path="", env=page_env)
            assert page == spare
            await asyncio.sleep(2.0)
            assert km.list_kernel_ids() == [page] and km.spare_ids == []     # no spare past the ceiling
            await km.shutdown_kernel(page, now=True)                         # room again: a spare follows
            assert await _until(lambda: len(km.spare_ids) == 1)
        finally:
            await km.shutdown_all(now=True)

        km = classroom.ClassroomKernelManager(root_dir=str(tmp_path), spare_kernels=1, spare_delay=0, max_kernels=4)
        try:
            (spare,) = await _kernels(km, 1)

            async def refuse(kernel_id, start):
                raise RuntimeError("no answer")
            monkeypatch.setattr(km, "_adopt", refuse)
            page = await km.start_kernel(kernel_name="python3", path="", env=page_env)
            assert page != spare and spare not in km and page in km
        finally:
            await km.shutdown_all(now=True)
        assert km.list_kernel_ids() == []

        km = classroom.ClassroomKernelManager(root_dir=str(tmp_path), spare_kernels=1, spare_delay=0, max_kernels=4)
        await _until(lambda: bool(km._spares), timeout=10)                  # the spare's start is under way
        await km.shutdown_all(now=True)
        assert km.list_kernel_ids() == [] and km.spare_ids == []
    asyncio.run(run())


def test_binder_and_the_hub_keep_one_spare_kernel():
    assert '"spare_kernels": 1' in (ROOT / "binder" / "postBuild").read_text()
    hub = (ROOT / "deploy" / "jupyterhub" / "jupyterhub_config.py").read_text()
    assert 'f"--ClassroomKernelManager.spare_kernels={spare}"' in hub


def test_postbuild_puts_the_server_settings_where_jupyter_server_reads_them(tmp_path):
    """binder/postBuild run as repo2docker runs it (its pip install stubbed): the kernel manager, its
    spare and the culling land in <prefix>/etc/jupyter/jupyter_server_config.json, merged with what is
    there; jupyter_server then reads them (a jupyter_server_config.d/ file would not be read)."""
    import os
    import shutil
    import subprocess
    import sys
    stub = tmp_path / "bin"
    stub.mkdir()
    (stub / "python").write_text(f'#!/bin/sh\nif [ "$1" = "-m" ] && [ "$2" = "pip" ]; then exit 0; fi\nexec {sys.executable} "$@"\n')
    (stub / "python").chmod(0o755)
    etc = tmp_path / "prefix" / "etc" / "jupyter"
    etc.mkdir(parents=True)
    (etc / "jupyter_server_config.json").write_text(json.dumps({"ServerApp": {"ip": "0.0.0.0"}, "Other": {"x": 1}}))
    env = {**os.environ, "PATH": f"{stub}{os.pathsep}{os.environ['PATH']}", "NB_PYTHON_PREFIX": str(tmp_path / "prefix")}
    subprocess.run(["bash", str(ROOT / "binder" / "postBuild")], cwd=ROOT, env=env, check=True, capture_output=True)
    written = json.loads((etc / "jupyter_server_config.json").read_text())
    assert written["ServerApp"] == {"ip": "0.0.0.0", "kernel_manager_class": "attnlab_classroom.ClassroomKernelManager",
                                    "tornado_settings": {"mathjax_url": None, "mathjax_config": None}}
    assert written["Other"] == {"x": 1} and written["ClassroomKernelManager"] == {"spare_kernels": 1}
    assert written["MappingKernelManager"]["cull_idle_timeout"] == 600
    assert json.loads((etc / "voila.json").read_text()) == {"VoilaConfiguration": {"progressive_rendering": True}}
    assert not (etc / "jupyter_server_config.d").exists()
    # and jupyter_server reads that file from a config dir: its ServerApp takes the kernel manager class
    shutil.copy(etc / "jupyter_server_config.json", tmp_path / "jupyter_server_config.json")
    probe = ("from jupyter_server.serverapp import ServerApp; app = ServerApp(); app.load_config_file();"
             " print(app.config.ServerApp.kernel_manager_class, app.config.ClassroomKernelManager.spare_kernels,"
             " sorted(k for k, v in app.config.ServerApp.tornado_settings.items() if v is None))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path), "JUPYTER_CONFIG_PATH": str(tmp_path)}).stdout
    assert out.strip().split(maxsplit=2) == ["attnlab_classroom.ClassroomKernelManager", "1", "['mathjax_config', 'mathjax_url']"]


def test_a_page_refused_by_the_per_client_limit_leaves_the_spare_for_the_next(tmp_path, monkeypatch):
    """The 503 of the per-client limit comes before the spare is taken: it still waits, for the next page."""
    import asyncio
    import os

    from tornado import web
    handler = SimpleNamespace(request=SimpleNamespace(remote_ip="10.0.0.7", path="/voila/render/01.ipynb", headers={}),
                              set_status=lambda s: None, set_header=lambda k, v: None)
    monkeypatch.setattr(classroom.admission, "_handler", lambda: handler)

    async def run():
        km = classroom.ClassroomKernelManager(root_dir=str(tmp_path), spare_kernels=1, spare_delay=0,
                                              max_kernels=4, max_per_client=1)
        try:
            (spare,) = await _kernels(km, 1)
            km._page_kernels["other"] = {"client": "10.0.0.7", "handed": 0, "connected": True, "closed_at": None}
            with pytest.raises(web.Finish):
                await km.start_kernel(kernel_name="python3", path="", env={**os.environ, "VOILA_PREHEAT": "False"})
            assert km.spare_ids == [spare]
            del km._page_kernels["other"]
            assert await km.start_kernel(kernel_name="python3", path="", env={**os.environ, "VOILA_PREHEAT": "False"}) == spare
        finally:
            await km.shutdown_all(now=True)
    asyncio.run(run())
