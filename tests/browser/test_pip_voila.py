"""A new user's way in: a fresh venv, `pip install -r requirements.txt`, the package's wheel (built
once here, installed NOT editable), then `voila <folder>` from the repo root (its preheated pool narrowed to the lesson: see
the test). voila.json names the template "attnlab"; it must come from the installed package
(pyproject's shared-data), not from JUPYTER_PATH, a symlink or this checkout. The index and a lesson answer 200 and render in Chromium with the
project's template, and the page asks nothing of any outside host. The folder served is a tiny one
(dashboard_helpers.write_tiny_notebooks): its lesson is lesson 02's Play cell, run by the installed
package; no lesson notebook runs here (each one's page is test_dashboards.py's, tests/notebook_runs.py).
The same venv then runs the `attnlab` command its wheel installed: `attnlab notebooks DIR` copies the
notebooks the wheel carries (byte-equal to the repository's), and `attnlab serve --lang en` / `--lang zh`
(one server per language, tiny notebooks laid out as the package's: the index holds lesson 02's Play
panel) renders that lesson in Chromium in each language, with the template and voila.json of the wheel.

Slow (a venv with torch and JupyterLab); marked `install` as well as `browser`. pip's HTTP cache
does not help here (the index answers without cache headers, so pip stores nothing), so the wheels
are downloaded once into build/wheelhouse/ (kept while requirements.txt and the build backend pin
are unchanged) and the fresh venv installs from there with --no-index: no network after the first run.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from dashboard_helpers import COUNTING_CONFIG, LESSON_PANEL, LOCAL, ROOT, free_port, write_tiny_notebooks

pytestmark = pytest.mark.install
LESSON = "lesson.ipynb"
FIGURE = """() => [...document.querySelectorAll('.jp-OutputArea-output img')]
  .some(i => i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().width > 0)"""


def clean_env(venv):
    """The user's shell after `source venv/bin/activate`: nothing from this test session's
    environment that would find the project another way (PYTHONPATH, JUPYTER_PATH, another venv)."""
    env = {k: v for k, v in os.environ.items()
           if k not in {"PYTHONPATH", "JUPYTER_PATH", "JUPYTER_CONFIG_PATH", "JUPYTER_DATA_DIR",
                        "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP"}}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    env["OMP_NUM_THREADS"] = "1"
    return env


WHEELHOUSE = ROOT / "build" / "wheelhouse"


def build_backend():
    """The build-system requirement of pyproject.toml (e.g. 'hatchling>=1.21')."""
    import tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]


def wheelhouse(python3):
    """build/wheelhouse with every wheel requirements.txt and the build backend need; downloaded
    once, again only when either changes."""
    key = hashlib.sha256((ROOT / "requirements.txt").read_bytes() + repr(build_backend()).encode()).hexdigest()
    stamp = WHEELHOUSE / ".complete"
    if stamp.exists() and stamp.read_text() == key:
        return WHEELHOUSE
    shutil.rmtree(WHEELHOUSE, ignore_errors=True)
    WHEELHOUSE.mkdir(parents=True)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    for args in (["-r", "requirements.txt"], build_backend()):
        subprocess.run([python3, "-m", "pip", "download", "-q", "--only-binary", ":all:", "-d", str(WHEELHOUSE), *args],
                       check=True, cwd=ROOT, env=env)
    stamp.write_text(key)
    return WHEELHOUSE


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory):
    python3 = shutil.which("python3") or sys.executable
    t0 = time.time()
    wheels = wheelhouse(python3)
    t1 = time.time()
    venv = tmp_path_factory.mktemp("pipvoila") / "venv"
    env = clean_env(venv)
    env["PIP_NO_INDEX"] = "1"                     # the build backend's isolated env too
    env["PIP_FIND_LINKS"] = str(wheels)
    subprocess.run([python3, "-m", "venv", str(venv)], check=True, env=env)
    # --no-compile: skip byte-compiling torch's thousands of modules up front (Python compiles what it imports)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile"]
    subprocess.run([*pip, "-r", "requirements.txt"], check=True, cwd=ROOT, env=env)
    # the wheel, built once (its build backend from the wheelhouse), then installed as a learner's pip does
    built = venv.parent / "dist"
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(built), "."],
                   check=True, cwd=ROOT, env=env)
    (wheel,) = built.glob("attnlab-*.whl")
    subprocess.run([*pip, "--no-deps", str(wheel)], check=True, cwd=ROOT, env=env)
    print(f"\nwheelhouse {t1 - t0:.0f} s; fresh venv with the pins and the package (its wheel, from "
          f"the wheelhouse, no network): {time.time() - t1:.0f} s")
    return venv


def test_the_package_installs_the_template_and_not_editable(fresh_venv):
    env = clean_env(fresh_venv)
    py = str(fresh_venv / "bin" / "python")
    where = subprocess.run([py, "-c", "import attnlab, jupyter_core.paths as p; print(attnlab.__file__);"
                            "print(*p.jupyter_path('voila', 'templates', 'attnlab'), sep='\\n')"],
                           cwd="/", env=env, capture_output=True, text=True, check=True).stdout.split()
    assert str(fresh_venv) in where[0], f"attnlab imported from {where[0]}, not the fresh venv"
    installed = fresh_venv / "share" / "jupyter" / "voila" / "templates" / "attnlab"
    assert str(installed) in where[1:]
    for name in ("conf.json", "index.html.j2", "page.html"):
        shipped = ROOT / "share" / "jupyter" / "voila" / "templates" / "attnlab" / name
        assert (installed / name).read_bytes() == shipped.read_bytes()
        assert not (installed / name).is_symlink()


def _while_running(server, log_path, seconds, what, ready):
    """``ready()``'s first true value, asked every 0.5 s while the server runs (its log if it stops),
    for at most ``seconds``."""
    deadline = time.time() + seconds
    while not (value := ready()):
        assert server.poll() is None, log_path.read_text()
        assert time.time() < deadline, f"not within {seconds} s: {what}"
        time.sleep(0.5)
    return value


def test_plain_voila_serves_index_and_lesson_with_the_project_template(fresh_venv, browser, tmp_path):
    env = clean_env(fresh_venv)
    env["JUPYTER_CONFIG_PATH"] = str(COUNTING_CONFIG)     # counts the notebooks it runs; sets nothing
    folder = write_tiny_notebooks(tmp_path / "notebooks", LESSON_PANEL, LESSON)
    port = free_port()
    log = open(tmp_path / "voila.log", "w")
    # voila.json preheats the index and keeps a spare kernel (a learner's laptop, issue 41). The pool
    # here holds the lesson instead (as `make dashboard NOTEBOOK=...` does): the first GET of it takes
    # Voila's preheated path through the installed package, then the browser's page takes the spare.
    pools = json.dumps({LESSON: {"pool_size": 1}, "default": {"pool_size": 0}})
    server = subprocess.Popen([str(fresh_venv / "bin" / "voila"), str(folder), "--no-browser",
                               f"--port={port}", "--Voila.ip=127.0.0.1",
                               f"--VoilaKernelManager.kernel_pools_config={pools}"],
                              cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        def index():
            try:
                with urllib.request.urlopen(base + "/", timeout=5) as r:
                    return r.status, r.read().decode()
            except OSError:
                return None

        index_status, index_html = _while_running(server, tmp_path / "voila.log", 120, "voila answered", index)
        assert index_status == 200 and f'href="/voila/render/{LESSON}"' in index_html   # our tree.html: in the HTML
        assert "cdn.jsdelivr.net" not in index_html          # our page.html, not Voila's base one
        # Voila takes the preheated path only once the pool's kernel has started (its notebook data is
        # there): on a busy machine that can come after the index answers. Wait for its log line.
        _while_running(server, tmp_path / "voila.log", 180, "the lesson's kernel pool was filled",
                       lambda: "Kernel pool of " in (tmp_path / "voila.log").read_text())
        with urllib.request.urlopen(f"{base}/voila/render/{LESSON}", timeout=180) as r:
            assert r.status == 200
            lesson_html = r.read().decode()
        # Our index.html.j2 sets the _xsrf cookie Voila 0.5 forgets; Voila's lab template does not.
        assert "getRandomValues" in lesson_html, "the lesson was not rendered with the attnlab template"
        assert "Using pre-heated kernel: " in (tmp_path / "voila.log").read_text(), "the pool of the lesson was not used"

        ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
        page = ctx.new_page()
        outside, errors = [], []
        page.on("request", lambda req: None if LOCAL.match(req.url) else outside.append(req.url))
        page.on("pageerror", lambda e: errors.append(str(e)[:300]))
        console = []
        page.on("console", lambda m: console.append(f"{m.type}: {m.text[:200]}"))
        resp = page.goto(base + "/", wait_until="domcontentloaded", timeout=60_000)
        assert resp.status == 200
        try:
            page.get_by_text(LESSON, exact=True).wait_for(timeout=60_000)      # the index lists the lesson
        except Exception as exc:   # once in a fresh clone (2026-11-26), not reproduced: say what the page saw
            page.screenshot(path=str(tmp_path / "pip_voila_index_failed.png"))
            raise AssertionError(
                f"the index did not list {LESSON} within 60 s ({type(exc).__name__}); page errors: {errors}; "
                f"console: {console[-20:]}; requests to outside hosts: {outside}; the page's text: "
                f"{page.inner_text('body')[:500]!r}; voila.log ends: "
                f"{(tmp_path / 'voila.log').read_text()[-3000:]}") from exc
        page.screenshot(path=str(tmp_path / "pip_voila_index.png"))
        resp = page.goto(f"{base}/voila/render/{LESSON}", wait_until="domcontentloaded", timeout=180_000)
        assert resp.status == 200
        page.wait_for_function(FIGURE, timeout=180_000, polling=100)
        page.screenshot(path=str(tmp_path / "pip_voila_lesson.png"))
        assert "There was an error when executing cell" not in page.inner_text("body")
        page.close(run_before_unload=True)
        ctx.close()
        assert not outside, f"requests to outside hosts: {outside}"
        assert not errors, errors
    finally:
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def test_attnlab_notebooks_copies_the_notebooks_the_wheel_carries(fresh_venv, tmp_path):
    env = clean_env(fresh_venv)
    done = subprocess.run([str(fresh_venv / "bin" / "attnlab"), "notebooks", "mine"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (inside,) = fresh_venv.glob("lib/python3*/site-packages/attnlab/notebooks")       # the wheel's copy
    repo = ROOT / "notebooks"
    expected = sorted(p.relative_to(repo) for p in repo.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    copied = sorted(p.relative_to(tmp_path / "mine") for p in (tmp_path / "mine").rglob("*.ipynb"))
    assert copied == expected and any(p.parts[0] == "zh" for p in copied)
    assert sorted(p.relative_to(inside) for p in inside.rglob("*.ipynb")) == expected
    assert all((tmp_path / "mine" / p).read_bytes() == (repo / p).read_bytes() for p in copied)
    assert (tmp_path / "mine" / "voila.json").read_bytes() == (ROOT / "voila.json").read_bytes()


CJK = re.compile(r"[\u4e00-\u9fff]")


def test_attnlab_serve_renders_a_lesson_in_each_language(fresh_venv, browser, tmp_path):
    """`attnlab serve --lang en`, then `attnlab serve --lang zh`: one server each, one after the other (started
    together they held two servers and their kernels at make test's memory peak, 2026-11-28)."""
    env = clean_env(fresh_venv)
    env["JUPYTER_CONFIG_PATH"] = str(COUNTING_CONFIG)     # counts the notebooks it runs; sets nothing
    folder = write_tiny_notebooks(tmp_path / "lessons", LESSON_PANEL, "00_index.ipynb")
    for lang in ("en", "zh"):
        port, log_path = free_port(), tmp_path / f"serve-{lang}.log"
        base = f"http://127.0.0.1:{port}"
        with open(log_path, "w") as log:
            proc = subprocess.Popen([str(fresh_venv / "bin" / "attnlab"), "serve", str(folder), "--lang", lang,
                                     "--port", str(port), "--no-browser"],
                                    cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT)
            try:
                _serves_its_edition(browser, proc, lang, base, log_path, tmp_path)
            finally:
                proc.terminate()
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    proc.kill()


def _serves_its_edition(browser, proc, lang, base, log_path, tmp_path):
    page_path = "zh/00_index.ipynb" if lang == "zh" else "00_index.ipynb"
    # the index of this edition is the preheated page (as `make dashboard ATTNLAB_LANG=...`)
    _while_running(proc, log_path, 240, f"attnlab serve --lang {lang}: the index's kernel pool was filled",
                   lambda: "Kernel pool of " in log_path.read_text())
    said = {"en": "attnlab serve: open {}", "zh": "attnlab serve：请打开 {}"}[lang]   # in the language asked for
    assert said.format(f"{base}/voila/render/{page_path}") in log_path.read_text()
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = ctx.new_page()
    outside, errors = [], []
    page.on("request", lambda req: None if LOCAL.match(req.url) else outside.append(req.url))
    page.on("pageerror", lambda e: errors.append(str(e)[:300]))
    resp = page.goto(f"{base}/voila/render/{page_path}", wait_until="domcontentloaded", timeout=180_000)
    assert resp.status == 200
    assert "getRandomValues" in resp.text(), "not rendered with the attnlab template"
    try:
        page.wait_for_function(FIGURE, timeout=180_000, polling=100)
    except PlaywrightTimeout:       # say which server, what the page showed and what the server logged
        page.screenshot(path=str(tmp_path / f"attnlab_serve_{lang}_failed.png"))
        pytest.fail(f"attnlab serve --lang {lang}: no figure within 180 s; page errors {errors}; the page "
                    f"said:\n{page.inner_text('body')[:800]}\nthe server logged (last 3,000 characters):\n"
                    f"{log_path.read_text()[-3000:]}")
    page.screenshot(path=str(tmp_path / f"attnlab_serve_{lang}.png"))
    text = page.inner_text("body")
    assert "There was an error when executing cell" not in text
    assert bool(CJK.search(text)) == (lang == "zh"), text[:500]
    assert "Using pre-heated kernel: " in log_path.read_text(), "the index's pool was not used"
    page.close(run_before_unload=True)
    ctx.close()
    assert not outside, f"requests to outside hosts: {outside}"
    assert not errors, errors
