"""Shared by the browser tests and bench/: a Voila server started from the repo root (so
voila.json applies), kernel counting, and what a page must never do.

The notebooks are FOUND (notebooks/*.ipynb); ATTNLAB_NOTEBOOKS=/some/dir points everything at
another folder (e.g. throwaway notebooks while the real ones are being written).
"""
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = Path(os.environ.get("ATTNLAB_NOTEBOOKS", ROOT / "notebooks")).resolve()
NOTEBOOKS = sorted(p for p in NOTEBOOK_DIR.glob("*.ipynb") if not p.name.startswith("."))


def write_tiny_notebooks(folder, code="import ipywidgets\nipywidgets.IntSlider(value=1, description='tiny')",
                         name="tiny.ipynb", prose=""):
    """A tiny notebook (a title, ``prose``, one code cell, by default a widget) as ``folder``/``name`` and
    its twin ``folder``/zh/``name``: what tests of a server (not of a lesson) serve, so they run no lesson
    notebook (tests/notebook_runs.py counts them apart). The twin is Chinese as a notebook of notebooks/zh/ is:
    metadata.language "zh", and its cell starts with ``attnlab.set_language("zh")`` when the cell uses attnlab.
    Returns ``folder``."""
    import nbformat
    folder = Path(folder)
    (folder / "zh").mkdir(parents=True, exist_ok=True)
    for path, zh in ((folder / name, False), (folder / "zh" / name, True)):
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        if zh:
            nb.metadata["language"] = "zh"          # as a Chinese notebook's: the template's words in Chinese
        first = 'import attnlab; attnlab.set_language("zh")\n' if zh and "attnlab" in code else ""
        nb.cells = [nbformat.v4.new_markdown_cell("# Tiny" + (f"\n\n{prose}" if prose else "")),
                    nbformat.v4.new_code_cell(first + code)]
        nbformat.write(nb, path)
    return folder


# A tiny notebook's cell with one real attnlab panel: lesson 02's Play panel, as its notebook's Play cell
# calls it (for the tests of what a server or the template does to a lesson's page, tests/notebook_runs.py).
LESSON_PANEL = ("from attnlab.lessons import nb02_scoring_functions as lesson\n"
                'lesson.play(method="dot", d_k=256, temperature=1.0, n=8)')
# The same for the index's Play panel (notebook 00's Play cell).
INDEX_PANEL = ("from attnlab.lessons import nb00_index as lesson\n"
               "lesson.play(scores=(1.0, 2.0, 3.0), temperature=1.0)")


def pool_per_notebook(refill=True):
    """Voila options for a kernel preheated for every notebook and no spare kernel: what the browser
    tests and the preheated benchmarks serve (voila.json's own default is a learner's laptop: the
    index preheated and one spare kernel, issue 41). ``refill``: refill a pool after a page took its
    kernel (Voila's way, after fill_delay) or leave it empty (`make lesson`'s way)."""
    return ['--VoilaKernelManager.kernel_pools_config={"default": {"pool_size": 1}}',
            "--ClassroomKernelManager.spare_kernels=0", f"--ClassroomKernelManager.refill_pool={refill}"]
SCREENSHOTS = ROOT / "screenshots"
# Which Chromium to launch is decided in one place, tools/chromium.py (ATTNLAB_CHROMIUM, then
# Debian's, then Playwright's own): tests, tools and benches call chromium_path().
sys.path.insert(0, str(ROOT / "tools"))
from chromium import ChromiumNotFound, chromium_path  # noqa: F401  (re-exported: conftest.py and the benches import them from here)

sys.path.insert(0, str(ROOT / "tests"))
import notebook_runs


def count_hub_page(path, notebooks=None):
    """Count a page a test opens on a hub learner's server (``path`` after /user/<name>/, e.g.
    voila/render/notebooks/00_index.ipynb): that server runs as another Unix user and cannot write the
    count, so the test does (tests/notebook_runs.py). ``notebooks``: the folder the hub copied to its
    learners (ATTNLAB_HUB_NOTEBOOKS; the checkout's notebooks/ when None)."""
    m = re.search(r"voila/render/notebooks/(.+\.ipynb)", path)
    if m:
        notebook_runs.record(Path(notebooks or ROOT / "notebooks") / m.group(1), "hub-page")


def learners_notebooks():
    """A folder laid out as notebooks/ for a hub's learners (ATTNLAB_HUB_NOTEBOOKS), readable by them (they
    copy it as themselves): a tiny index with a formula and the index's Play panel, and lesson.ipynb with
    lesson 02's Play panel, each with its Chinese twin. The caller removes it (shutil.rmtree)."""
    folder = Path(tempfile.mkdtemp(prefix="attnlab-notebooks-", dir="/tmp"))
    write_tiny_notebooks(folder, INDEX_PANEL, "00_index.ipynb",
                         prose="attnlab: the weights are $\\mathrm{softmax}(s)_i = e^{s_i} / \\sum_j e^{s_j}$.")
    write_tiny_notebooks(folder, LESSON_PANEL, "lesson.ipynb")
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LOCAL = re.compile(r"^(https?|wss?)://127\.0\.0\.1(:\d+)?/|^(data|blob):")


def voila_env():
    """The environment for a Voila server: one OpenMP thread per kernel (as `make dashboard` sets),
    since many kernels share few cores and the notebooks' tensors are tiny: two spinning threads
    per kernel made a class of 20 on 2 cores stall. voila.json's template "attnlab" is found where
    installing the package put it (the Jupyter data path), as for any user; no JUPYTER_PATH."""
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    # Every notebook the server executes is counted (tests/notebook_runs.py): config files that set nothing.
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join([str(COUNTING_CONFIG), *filter(None, [env.get("JUPYTER_CONFIG_PATH")])])
    return env


COUNTING_CONFIG = Path(__file__).resolve().parent / "notebook_runs_config"


_LAST = [None]   # the port free_port() last returned in a range: the next search starts after it


def free_port():
    """A free TCP port on 127.0.0.1: any the system picks, or, when ATTNLAB_TEST_PORTS="LOW-HIGH" is set
    (a machine shared by several test runs, each given its own range), a free one in that range."""
    wanted = os.environ.get("ATTNLAB_TEST_PORTS")
    if not wanted:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    m = re.fullmatch(r"(\d+)-(\d+)", wanted.strip())
    if not m or int(m.group(1)) > int(m.group(2)):
        raise ValueError(f"ATTNLAB_TEST_PORTS: expected a range LOW-HIGH such as 8730-8749, got {wanted!r}")
    low, high = int(m.group(1)), int(m.group(2))
    start = low if _LAST[0] is None or not low <= _LAST[0] < high else _LAST[0] + 1
    # round the range from after the last one handed out (its server may not listen yet)
    for port in [*range(start, high + 1), *range(low, start)]:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _LAST[0] = port
        return port
    raise RuntimeError(f"ATTNLAB_TEST_PORTS={wanted}: no free port left in the range")


def kernel_processes(server_pid):
    """The live ipykernel processes started by the server (zombies excluded)."""
    import psutil
    found = []
    try:
        children = psutil.Process(server_pid).children(recursive=True)
    except psutil.Error:
        return found
    for child in children:
        try:
            if child.status() != psutil.STATUS_ZOMBIE and "ipykernel" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.Error:
            pass
    return found


def http_status(url):
    """The HTTP status of a GET of ``url`` (0 when nothing answers)."""
    import urllib.error
    import urllib.request
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return 0


def hub_user_servers(hub):
    """{learner: process} of the single-user servers the JupyterHub process ``hub`` (psutil) runs now."""
    import psutil
    found = {}
    for child in hub.children(recursive=True):
        try:
            if "jupyterhub.singleuser" in " ".join(child.cmdline()) and child.status() != psutil.STATUS_ZOMBIE:
                found[child.environ().get("JUPYTERHUB_USER")] = child
        except psutil.Error:
            pass
    return found


def stop_own_server(page, hub_url, timeout=120_000):
    """Stop the learner's server as a learner does: the hub home page's "Stop My Server" button. The button
    works only once the page's require.js has run home.js, which binds its click handler; on a busy machine
    that is after the load event, and a click before it does nothing (a CI run waited 120 s on a server
    nobody had asked to stop). So wait for the bound handler, click, and wait for the page to say so."""
    page.goto(hub_url + "/hub/home", timeout=60_000)
    page.wait_for_function(
        "() => { const b = document.getElementById('stop'); const $ = window.jQuery;"
        " return b && $ && (($._data(b, 'events') || {}).click || []).length > 0; }", timeout=timeout, polling=250)
    page.click("#stop", timeout=60_000)
    page.wait_for_function(
        "() => { const b = document.getElementById('stop');"
        " return !b || b.getAttribute('title') === 'Your server is stopping' || getComputedStyle(b).display === 'none'; }",
        timeout=timeout, polling=250)


def stop_hub(proc):
    """Stop a JupyterHub started as ``proc`` (Popen): the hub stops the learners' servers and its
    proxy; whatever of its process tree is left after a minute is killed."""
    import psutil
    try:
        hub = psutil.Process(proc.pid)
        tree = [hub, *hub.children(recursive=True)]
    except psutil.Error:
        tree = []
    proc.terminate()
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
    for p in tree:
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(tree, timeout=10)


HUB_CONFIG = ROOT / "deploy" / "jupyterhub" / "jupyterhub_config.py"
HUB_PROXY = ROOT / "build" / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"

# Set by the Makefile's browser lines (make test): there a skipped test proves nothing, so what would skip fails.
NO_SKIP_ENV = "ATTNLAB_NO_SKIP"


def absent(what, fix):
    """A test that cannot run here because ``what`` is missing: skipped when run by hand, a failure under
    make test (NO_SKIP_ENV), whose machine must have it. ``fix`` is the step that brings it."""
    import pytest
    if os.environ.get(NO_SKIP_ENV):
        pytest.fail(f"{what}: {fix} (make test runs this test; a skip would prove nothing)", pytrace=False)
    pytest.skip(f"{what}: {fix}")


def hub_prerequisites():
    """Skip (by hand) or fail (make test) a test of the real hub where it cannot start: not root, no
    configurable-http-proxy; fail, always, where other users cannot enter this checkout or run the learners'
    Python, with the hub's own words for what to do (a checkout the hub refuses is a teacher's problem too)."""
    import pytest
    if os.geteuid() != 0:
        absent("the hub creates a Unix user per learner", "run as root")
    if not HUB_PROXY.exists():
        absent("configurable-http-proxy is not installed in build/hub", "run `make hub-setup`")
    sys.path.insert(0, str(ROOT / "tools"))
    from learners_python import learners_python, runs_for_others, unreadable_for_learners, why_others_cannot_run
    blocked = unreadable_for_learners(ROOT)
    if blocked is not None:
        pytest.fail(f"other users (the hub's learners) cannot enter {blocked}, on the way to this checkout: clone it "
                    f"where everyone can read it (e.g. under /srv or /tmp, mode 755) or `chmod o+x {blocked}`",
                    pytrace=False)
    python = learners_python(ROOT)
    if not runs_for_others(python):
        pytest.fail(why_others_cannot_run(python, ROOT, ROOT / "build" / "hub"), pytrace=False)


class LearnerAccounts:
    """The Unix group and the homes folder a hub started by a test or a bench gives its learners (the hub
    creates each learner's user in them); ``remove`` deletes every user of the group, the group and the
    folder. Names of learners get ``tag`` appended, so they never meet a user of this machine."""

    def __init__(self):
        import secrets
        self.tag = secrets.token_hex(3)
        self.group = f"attnlab-t{self.tag}"
        self.homes = Path(tempfile.mkdtemp(prefix="attnlab-homes-", dir="/tmp"))
        self.homes.chmod(0o755)                        # learners go through it to their own homes

    def name(self, learner):
        return f"{learner}{self.tag}"

    def remove(self):
        import grp
        import pwd
        import shutil
        try:
            gid = grp.getgrnam(self.group).gr_gid
        except KeyError:
            gid = None
        for user in pwd.getpwall() if gid is not None else []:
            if user.pw_gid == gid:
                subprocess.run(["pkill", "-KILL", "-u", user.pw_name], capture_output=True)
                subprocess.run(["userdel", "--remove", user.pw_name], capture_output=True)
        if gid is not None:
            subprocess.run(["groupdel", self.group], capture_output=True)
        shutil.rmtree(self.homes, ignore_errors=True)


class Hub:
    """JupyterHub from deploy/jupyterhub/jupyterhub_config.py as `make hub` starts it (as root: learners are
    Unix users of ``accounts``), on 127.0.0.1 and free ports (ATTNLAB_TEST_PORTS' range when set, the
    learners' servers too), its state in ``state``; ``env`` adds or overrides ATTNLAB_HUB_* settings."""

    def __init__(self, state, accounts, password, **env):
        self.state = Path(state)
        self.state.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.log_path = self.state / "hub.log"
        self.url = f"{'https' if env.get('ATTNLAB_HUB_SSL_CERT') else 'http'}://127.0.0.1:{self.port}"
        self.env = {**os.environ, "ATTNLAB_HUB_DIR": str(self.state), "ATTNLAB_HUB_PORT": str(self.port),
                    "ATTNLAB_HUB_API_PORT": str(free_port()), "ATTNLAB_HUB_PROXY_API_PORT": str(free_port()),
                    "ATTNLAB_HUB_PASSWORD": password, "ATTNLAB_HUB_IP": "127.0.0.1",
                    "ATTNLAB_HUB_GROUP": accounts.group, "ATTNLAB_HUB_HOMES": str(accounts.homes),
                    "ATTNLAB_HUB_SPAWNER": "local",
                    "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        if os.environ.get("ATTNLAB_TEST_PORTS"):
            self.env["ATTNLAB_HUB_USER_PORTS"] = os.environ["ATTNLAB_TEST_PORTS"]
        self.env.update(env)
        self.proc = None

    def start(self, timeout=180):
        import ssl
        import urllib.error
        import urllib.request

        import psutil
        self._log = open(self.log_path, "a")
        self.proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(HUB_CONFIG)], cwd=self.state,
                                     env=self.env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
        self.ps = psutil.Process(self.proc.pid)
        _wait_listening(self.proc, self.port, "jupyterhub", self.log_path, timeout=timeout)
        context = ssl._create_unverified_context() if self.url.startswith("https") else None

        def login_page():
            try:
                with urllib.request.urlopen(self.url + "/hub/login", timeout=5, context=context) as r:
                    return r.status == 200
            except (urllib.error.URLError, OSError):
                return False
        deadline = time.time() + timeout          # the proxy listens before the hub has added its route
        while not login_page():
            if self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"the hub's login page did not answer; see {self.log_path}:\n{self.log()[-3000:]}")
            time.sleep(0.5)
        return self

    def log(self):
        return self.log_path.read_text(errors="replace")

    def user_servers(self):
        return hub_user_servers(self.ps)

    def stop(self):
        if self.proc is not None:
            stop_hub(self.proc)
            self._log.close()


def _wait_listening(proc, port, name, log_path, timeout=120):
    """Return once ``proc`` accepts connections on ``port``; raise if it exits or times out."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode}; see {log_path}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{name} did not listen on {port}; see {log_path}")


class _Served:
    """What a test's server process offers (VoilaServer, JupyterServer): its kernels, its log, stop."""

    def kernels(self):
        return kernel_processes(self.proc.pid)

    def log(self):
        return Path(self.log_path).read_text(errors="replace")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self._log.close()


class VoilaServer(_Served):
    """`voila notebook_dir` from the repo root (``cwd``: another checkout's root, whose voila.json then
    applies); `port` to start again where a stopped one was, `env` for more environment variables
    (e.g. JUPYTER_PATH, for the template of this tree)."""

    def __init__(self, notebook_dir, log_path, extra_args=(), port=None, env=None, cwd=None):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self._log = open(log_path, "a" if port else "w")   # a restart adds to its log
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "voila", str(notebook_dir), "--no-browser", f"--port={self.port}",
             "--Voila.ip=127.0.0.1", *extra_args],
            cwd=cwd or ROOT, env={**voila_env(), **(env or {})}, stdout=self._log, stderr=subprocess.STDOUT)
        _wait_listening(self.proc, self.port, "voila", log_path)


# The Voila config binder/postBuild writes for Binder (progressive rendering); test_binder.py
# checks that postBuild writes exactly this.
BINDER_CONFIG = {"VoilaConfiguration": {"progressive_rendering": True}}


def postbuild_server_config():
    """The Jupyter server settings binder/postBuild merges into jupyter_server_config.json (attnlab's
    kernel manager, its spare kernel, the culling), read from postBuild itself."""
    text = (ROOT / "binder" / "postBuild").read_text()
    found = re.search(r"server_config=\$\(cat <<'JSON'\n(.*?)\nJSON\n\)", text, re.S)
    if not found:
        raise ValueError("binder/postBuild: no server_config heredoc found")
    return json.loads(found.group(1))


class JupyterServer(_Served):
    """`jupyter server` from the repo root with Voila as its extension, as repo2docker runs it; the
    extra Voila config goes in a voila.json in a temporary config dir on JUPYTER_CONFIG_PATH (as
    binder/postBuild writes <prefix>/etc/jupyter/voila.json); the repo root's voila.json is read after it.
    ``jupyter_config``: the Jupyter server config written as that dir's jupyter_server_config.json, as
    postBuild does (postbuild_server_config())."""

    def __init__(self, log_path, server_config=None, extra_args=(), jupyter_config=None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.prefix = "/voila/render/notebooks/"
        self.confdir = tempfile.TemporaryDirectory()
        (Path(self.confdir.name) / "voila.json").write_text(json.dumps(BINDER_CONFIG if server_config is None else server_config))
        if jupyter_config is not None:
            (Path(self.confdir.name) / "jupyter_server_config.json").write_text(json.dumps(jupyter_config))
        env = voila_env()
        env["JUPYTER_CONFIG_PATH"] = os.pathsep.join([self.confdir.name, *filter(None, [env.get("JUPYTER_CONFIG_PATH")])])
        self._log = open(log_path, "w")
        self.proc = subprocess.Popen([sys.executable, "-m", "jupyter_server", "--no-browser", f"--port={self.port}",
                                      "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--ServerApp.password=",
                                      *(["--allow-root"] if os.geteuid() == 0 else []), *extra_args],
                                     cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        _wait_listening(self.proc, self.port, "jupyter server", log_path)
        self.log_path = log_path

    def stop(self):
        super().stop()
        self.confdir.cleanup()


# How many formulas MathJax has typeset on a Voila page (MathJax 3's output elements).
TYPESET = "() => document.querySelectorAll('.jp-RenderedMarkdown mjx-container').length"


class PageWatch:
    """Collects what a learner should never see: page errors, console errors, outside requests.
    When the page reloads itself (the attnlab template does, once, for a widget lost to
    ipywidgets#4026), the errors so far move to `reloads` (one list per reload)."""

    def __init__(self, page):
        self.errors, self.outside, self.reloads, self._url = [], [], [], None
        # Everything the page did, in order, with seconds since the watch began: requests, their answers
        # or failures, console messages of every level, page errors, navigations. Written out by
        # save_artefacts when a test fails, so a failure in CI says what the page was waiting for.
        self.timeline, self._t0 = [], time.monotonic()
        page.on("framenavigated", self._navigated)
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {str(e)[:300]}"))
        page.on("console", lambda m: self.errors.append(f"console: {m.text[:300]}")
                if m.type == "error" else None)
        page.on("request", lambda r: None if LOCAL.match(r.url) else self.outside.append(r.url))
        page.on("request", lambda r: self._note("request", r.method, r.url))
        page.on("response", lambda r: self._note("response", r.status, r.url))
        page.on("requestfailed", lambda r: self._note("failed", r.url, r.failure))
        page.on("console", lambda m: self._note("console", m.type, m.text[:500]))
        page.on("pageerror", lambda e: self._note("pageerror", str(e)[:500]))

    def _note(self, *what):
        self.timeline.append((round(time.monotonic() - self._t0, 3), *what))

    def _navigated(self, frame):
        if frame.parent_frame is not None:
            return
        self._note("navigated", frame.url)
        if frame.url == self._url:
            self.reloads.append(self.errors)
            self.errors = []
        self._url = frame.url


ARTEFACTS = ROOT / "build" / "artefacts"


def save_artefacts(name, page, watch, server=None):
    """Keep what a failing page showed under build/artefacts/<name>/: its timeline (requests, answers,
    console, errors, with times), its HTML, a screenshot, and the server's log. Returns the folder."""
    folder = ARTEFACTS / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "timeline.txt").write_text("\n".join(" ".join(str(x) for x in row) for row in watch.timeline) + "\n")
    try:
        (folder / "page.html").write_text(page.content())
        page.screenshot(path=str(folder / "page.png"), full_page=True)
    except Exception as exc:  # a closed or crashed page: say so and keep the rest
        (folder / "page.html").write_text(f"(could not read the page: {exc})")
    if server is not None:
        (folder / "server.log").write_text(server.log())
    return folder


def close_like_a_learner(page, timeout=10):
    """Close the tab the way a browser does (beforeunload runs, so Voila's shutdown beacon fires)."""
    if page.is_closed():
        return
    page.close(run_before_unload=True)
    try:
        page.wait_for_event("close", timeout=timeout * 1000)   # pumps playwright's events
    except Exception:  # already closed, or the browser went first
        pass


def settle(server, quiet=5.0, timeout=240.0, cpu_idle=0.25, min_kernels=0):
    """Wait until the server's kernels have stopped coming and going and are idle (together less
    than `cpu_idle` CPU-seconds over the last `quiet` seconds: preheated notebooks have run), and
    there are at least `min_kernels` of them. Returns the kernel count."""
    import psutil

    def cpu(procs):
        total = 0.0
        for p in procs:
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.Error:
                pass
        return total

    deadline = time.time() + timeout
    procs = server.kernels()
    pids, c0, since = {p.pid for p in procs}, cpu(procs), time.time()
    while time.time() < deadline:
        time.sleep(0.5)
        procs = server.kernels()
        now_pids, c = {p.pid for p in procs}, cpu(procs)
        if now_pids != pids or len(now_pids) < min_kernels:
            pids, c0, since = now_pids, c, time.time()
        elif time.time() - since >= quiet:
            if c - c0 < cpu_idle:
                break
            c0, since = c, time.time()
    return len(server.kernels())


PANELS_READY = """n => {
  const cells = document.querySelector('#rendered_cells');
  if (!cells || getComputedStyle(cells).display === 'none') return false;
  const imgs = [...document.querySelectorAll('.attnlab-panel img')];
  const sliders = [...document.querySelectorAll('.attnlab-panel .widget-slider')];
  const pending = [...document.querySelectorAll('.jp-OutputArea-output')]
    .some(e => e.textContent.trim() === 'Loading widget...');
  return !pending && imgs.length >= n && imgs.every(i => i.src && i.complete && i.naturalWidth > 0)
    && sliders.every(s => s.querySelector('.noUi-handle'));
}"""

# What a page shows when PANELS_READY never came: said in the failure, so a timeout in CI explains itself.
PAGE_STATE = """() => {
  const cells = document.querySelector('#rendered_cells');
  const imgs = [...document.querySelectorAll('.attnlab-panel img')];
  return {
    title: document.title,
    rendered_cells: cells ? getComputedStyle(cells).display : 'absent',
    panels: document.querySelectorAll('.attnlab-panel').length,
    images: imgs.map(i => ({src: (i.src || '').slice(0, 40), complete: i.complete, width: i.naturalWidth})),
    loading_widgets: [...document.querySelectorAll('.jp-OutputArea-output')]
      .filter(e => e.textContent.trim() === 'Loading widget...').length,
    sliders_without_handle: [...document.querySelectorAll('.attnlab-panel .widget-slider')]
      .filter(s => !s.querySelector('.noUi-handle')).length,
    errors_shown: [...document.querySelectorAll('.jp-OutputArea-output')].map(e => e.textContent)
      .filter(t => /Error|Traceback|error when executing/.test(t)).map(t => t.slice(0, 300)),
    body_end: document.body ? document.body.innerText.slice(-600) : '',
  };
}"""


def wait_for_panels(page, n_panels, timeout, watch=None, server=None):
    """Wait until the page shows its `n_panels` live panels (PANELS_READY), also across a reload of
    the page by itself (warned about). On a timeout, fail with what the page shows instead, the
    page's errors and the tail of the server's log."""
    deadline = time.time() + timeout / 1000
    while True:
        try:
            page.wait_for_function(PANELS_READY, arg=n_panels, polling=100,
                                   timeout=max(1, (deadline - time.time()) * 1000))
            break
        except Exception as exc:  # playwright TimeoutError, or the page navigated (a reload)
            if "context was destroyed" in str(exc) or "navigat" in str(exc).lower():
                if time.time() < deadline:
                    continue
            try:
                state = page.evaluate(PAGE_STATE)
            except Exception as inner:  # say that too
                state = f"(could not read the page: {inner})"
            log = server.log()[-3000:] if server is not None else "(no server log)"
            errors = watch.errors if watch is not None else []
            raise AssertionError(f"{n_panels} live panels not ready after {timeout / 1000:.0f} s ({type(exc).__name__}).\n"
                                 f"page: {state}\npage errors: {errors}\nserver log, last lines:\n{log}") from None
    if watch is not None and watch.reloads:
        warnings.warn(f"{page.url}: the page reloaded itself {len(watch.reloads)} time(s) (a widget lost to "
                      f"ipywidgets#4026; the attnlab template reloads once); errors before: {watch.reloads}",
                      stacklevel=2)


# Text a learner must not see: a traceback, Voila's "error when executing cell" notice, a
# panel's callback error (panels.py shows those in red with the exception name), or a widget
# that did not load (ipywidgets' own message, or the attnlab template's).
PROBLEMS = """() => {
  const found = [];
  for (const el of document.querySelectorAll('.jp-OutputArea-output, .attnlab-panel')) {
    const t = el.textContent;
    if (/Traceback \\(most recent call last\\)|There was an error when executing cell/.test(t)) found.push(t.slice(0, 300));
  }
  for (const el of document.querySelectorAll('.attnlab-panel div[style*="b00020"]')) found.push(el.textContent.slice(0, 300));
  for (const el of document.querySelectorAll('.jp-OutputArea-output')) {
    if (/^(Error displaying widget|This control did not load)/.test(el.textContent.trim())) found.push(el.textContent.trim());
  }
  return [...new Set(found)];
}"""


def _panel_prefixes():
    """How a live panel's text form starts in each language ('Live panel', and its Chinese from the catalog)."""
    from attnlab.i18n import gettext, language
    prefixes = set()
    for lang in ("en", "zh"):
        with language(lang):
            prefixes.add(gettext("Live panel '{name}' with controls: {controls}").split("{")[0].rstrip("'‘“\"").strip())
    return tuple(sorted(prefixes))


def expected_panels(path):
    """How many live panels the stored notebook displays (their text/plain says 'Live panel ...', or the
    same in the notebook's language)."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    prefixes = _panel_prefixes()
    count = 0
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            text = out.get("data", {}).get("text/plain", "")
            text = "".join(text) if isinstance(text, list) else text
            if text.startswith(prefixes):
                count += 1
    return count


FIGURE_CHANGED = """([i, before]) => { const img = document.querySelectorAll('.attnlab-panel')[i].querySelector('img');
                 return img.src !== before && img.complete && img.naturalWidth > 0; }"""


def figure_changed(page, panel, before, timeout):
    """Wait until panel number ``panel``'s picture is no longer ``before`` (its src) and has loaded; True if
    it changed within ``timeout`` ms."""
    try:
        page.wait_for_function(FIGURE_CHANGED, arg=[panel, before], timeout=timeout, polling=50)
        return True
    except Exception:  # playwright TimeoutError
        return False


def slider_step(page, panel, slider, timeout):
    """Press an arrow key on one slider handle (left at its maximum); True if the panel's picture changed."""
    handle = page.locator(".attnlab-panel").nth(panel).locator(".widget-slider").nth(slider) \
        .locator(".noUi-handle").first
    before = page.locator(".attnlab-panel").nth(panel).locator("img").first.get_attribute("src")
    handle.scroll_into_view_if_needed()
    handle.focus()
    at_max = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
    page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
    return figure_changed(page, panel, before, timeout)
