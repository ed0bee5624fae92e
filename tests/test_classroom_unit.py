"""attnlab.classroom without a server: the pages, the language, the token rule, the claim rule.
The servers themselves are tested in tests/browser/test_classroom.py."""
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("voila")
from traitlets import Integer, Unicode  # noqa: E402
from traitlets.config import Configurable  # noqa: E402

from attnlab import classroom  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


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
    assert config["VoilaConfiguration"]["multi_kernel_manager_class"] == "attnlab.classroom.ClassroomKernelManager"
    assert config["Voila"]["identity_provider_class"] == "attnlab.classroom.ClassroomIdentityProvider"
    assert "attnlab.classroom.ClassroomKernelManager" in (ROOT / "binder" / "postBuild").read_text()
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
    pages = {"unclaimed": dict(handed=now - 31, connected=False, closed_at=None),
             "running": dict(handed=now - 100, connected=False, closed_at=None),
             "fresh": dict(handed=now - 5, connected=False, closed_at=None),
             "connected": dict(handed=now - 500, connected=True, closed_at=None),
             "left": dict(handed=now - 500, connected=True, closed_at=now - grace - 1),
             "reloading": dict(handed=now - 500, connected=True, closed_at=now - grace + 3)}
    km._page_kernels = {k: dict(v, client="10.0.0.2") for k, v in pages.items()}
    km._kernel_connections = {"connected": 1}
    monkeypatch.setattr(type(km), "__contains__", lambda self, k: k in kernels)
    monkeypatch.setattr(km, "get_kernel", lambda k: kernels[k])
    found = dict(km.unclaimed(now=now))
    assert set(found) == {"unclaimed", "left"}, found
    assert "no page connected within 30 s" in found["unclaimed"]
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
        monkeypatch.setattr(classroom, "memory_available_mb", lambda reserve_mb=0: 100.0)
        with pytest.raises(Finish):
            km._admit()
    finally:
        CallContext.set(CallContext.JUPYTER_HANDLER, None)


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
        client = km.get_kernel(kernel_id).client()
        client.start_channels()
        out = []
        try:
            await client.wait_for_ready(timeout=120)
            code = ("import sys, threading\n"
                    "print([m for m in ('torch', 'matplotlib.pyplot', 'ipywidgets') if m in sys.modules],"
                    " [t.name for t in threading.enumerate() if t.name.startswith('attnlab')],"
                    " sorted(k for k in globals() if 'attnlab' in k))")
            reply = await client.execute_interactive(
                code, timeout=180, output_hook=lambda m: out.append(m["content"].get("text", "")))
            assert reply["content"]["status"] == "ok", reply["content"]
        finally:
            client.stop_channels()
            await km.shutdown_kernel(kernel_id, now=True)
        return "".join(out).strip()
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


def test_make_lesson_does_not_refill_its_pool_with_a_long_delay():
    """`make lesson` once set fill_delay=14400: Voila puts the delayed refill in the pool at once, so the
    second learner on a notebook with a pool of one waited on it for 4 hours. The bench does as it does."""
    for path in ("Makefile", "bench/bench_classroom.py"):
        text = (ROOT / path).read_text()
        assert "refill_pool=False" in text and "fill_delay=14400" not in text, path
