"""The `attnlab` command: the notebooks of an installed package, copied, served or opened.

    attnlab notebooks [DIR] [--lang en|zh] [--force]   copy the notebooks into DIR (default ./attnlab-notebooks)
    attnlab serve [DIR] [--lang en|zh] [--port N]      serve them as Voila dashboards (the project's
                                                       template and voila.json), open the index
    attnlab lab [DIR] [--lang en|zh]                   copy them into DIR if it has none, open JupyterLab

The notebooks travel inside the wheel (attnlab/notebooks/: the English ones, zh/ the Chinese twins,
and voila.json, the settings `make dashboard` uses); in a checkout of the repository (an editable
install) they are the repository's notebooks/ and voila.json. `serve` and `lab` need the dashboard
extra (`pip install "attnlab[dashboard]"`); nothing of Voila, Jupyter's server or JupyterLab is
imported here: they run as their own processes (`python -m voila`, `python -m jupyterlab`).
"""
import argparse
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import webbrowser
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
LANGS = ("en", "zh")
DEFAULT_DIR = "attnlab-notebooks"
DASHBOARD_HINT = 'pip install "attnlab[dashboard]"'


def shipped():
    """(the folder of notebooks, the folder holding voila.json): the wheel's attnlab/notebooks/, or the
    repository's notebooks/ and its root in a checkout."""
    inside = PACKAGE / "notebooks"
    if (inside / "00_index.ipynb").is_file():
        return inside, inside
    checkout = PACKAGE.parent
    if (checkout / "notebooks" / "00_index.ipynb").is_file() and (checkout / "voila.json").is_file():
        return checkout / "notebooks", checkout
    raise FileNotFoundError(f"attnlab: no notebooks found in {inside} (nor in a checkout at {checkout}); "
                            "reinstall the package: pip install --force-reinstall attnlab")


def notebook_files(lang=None):
    """The shipped notebooks of ``lang`` ('en', 'zh' or None for both) as paths relative to the folder."""
    if lang not in (None, *LANGS):
        raise ValueError(f"lang: expected one of {LANGS} or None, got {lang!r}")
    folder, _ = shipped()
    files = []
    if lang in (None, "en"):
        files += sorted(p.relative_to(folder) for p in folder.glob("*.ipynb"))
    if lang in (None, "zh"):
        files += sorted(p.relative_to(folder) for p in (folder / "zh").glob("*.ipynb"))
    return files


def index_page(lang):
    """The index notebook's path inside the folder, for ``lang``."""
    if lang not in LANGS:
        raise ValueError(f"lang: expected one of {LANGS}, got {lang!r}")
    return "zh/00_index.ipynb" if lang == "zh" else "00_index.ipynb"


def copy_notebooks(dest, lang=None, force=False):
    """Copy the notebooks of ``lang`` (both when None) and voila.json into ``dest``, laid out as the
    repository's notebooks/ (English at the top, Chinese in zh/, so the twins' links work). A notebook
    already in ``dest`` (a learner's edits) is never overwritten unless ``force``. Returns the paths written."""
    folder, settings = shipped()
    dest = Path(dest)
    if dest.exists() and not dest.is_dir():
        raise NotADirectoryError(f"attnlab notebooks: DIR: expected a folder, got the file {str(dest)!r}")
    pairs = [(folder / f, dest / f) for f in notebook_files(lang)] + [(settings / "voila.json", dest / "voila.json")]
    present = [str(d) for s, d in pairs if d.exists() and d.suffix == ".ipynb" and d.read_bytes() != s.read_bytes()]
    if present and not force:
        raise FileExistsError(f"attnlab notebooks: {len(present)} notebook(s) in {str(dest)!r} differ from the "
                              f"package's (your edits?), e.g. {present[0]!r}; choose another folder or pass --force")
    written = []
    for src, dst in pairs:
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        written.append(dst)
    return written


def serve_command(folder, lang="en", port=8866, ip="127.0.0.1"):
    """(argv, page): the Voila server of ``folder`` as `make dashboard` starts it: its index preheated in
    ``lang``, one spare kernel, the settings of voila.json (read from the working folder the caller
    starts it in: see `serve`)."""
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
        raise ValueError(f"port: expected an integer from 1 to 65535, got {port!r}")
    page = index_page(lang)
    pools = json.dumps({page: {"pool_size": 1}, "default": {"pool_size": 0}})
    argv = [sys.executable, "-m", "voila", str(folder), "--no-browser", f"--Voila.ip={ip}", f"--port={port}",
            "--Voila.port_retries=0", f"--VoilaKernelManager.kernel_pools_config={pools}"]
    return argv, page


def _need(module, command):
    if importlib.util.find_spec(module) is None:
        sys.exit(f"attnlab {command}: {module} is not installed; install the dashboard extra: {DASHBOARD_HINT}")


def _open_when_up(url, server, seconds=300):
    """Open ``url`` in the web browser once the server answers (it starts in seconds, or minutes the first time)."""
    deadline = time.time() + seconds
    while server.poll() is None and time.time() < deadline:
        try:
            with urllib.request.urlopen(url.rsplit("/voila/", 1)[0] + "/", timeout=5):
                webbrowser.open(url)
                return
        except OSError:
            time.sleep(0.5)


def serve(folder=None, lang="en", port=8866, browser=True):
    _need("voila", "serve")
    shipped_folder, settings = shipped()
    folder = Path(folder) if folder else shipped_folder
    argv, page = serve_command(folder.resolve(), lang, port)
    if not (folder / page).is_file():
        sys.exit(f"attnlab serve: DIR: no {page} in {str(folder)!r} (expected a folder made by `attnlab notebooks`)")
    url = f"http://127.0.0.1:{port}/voila/render/{page}"
    print(f"attnlab serve: open {url} (Ctrl+C stops the server)", flush=True)
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")      # the notebooks' tensors are tiny: one thread per kernel
    # Voila reads voila.json from its working folder first: the package's settings, wherever DIR is
    server = subprocess.Popen(argv, cwd=settings, env=env)
    # a `kill` of this command stops its server too (Ctrl+C reaches both: they share the terminal)
    before = signal.signal(signal.SIGTERM, lambda signum, frame: server.terminate())
    try:
        if browser:
            threading.Thread(target=_open_when_up, args=(url, server), daemon=True).start()
        try:
            return server.wait()
        except KeyboardInterrupt:
            server.terminate()
            return server.wait()
    finally:
        signal.signal(signal.SIGTERM, before)


def lab(folder=None, lang="en"):
    _need("jupyterlab", "lab")
    folder = Path(folder or DEFAULT_DIR)
    page = index_page(lang)
    if not (folder / page).is_file():
        copy_notebooks(folder)
        print(f"attnlab lab: copied the notebooks into {str(folder)!r}; your changes are saved there", flush=True)
    return subprocess.call([sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={folder.resolve()}",
                            str((folder / page).resolve())])


def parser():
    ap = argparse.ArgumentParser(prog="attnlab", description="attnlab's notebooks: copy them, serve them as "
                                 "dashboards, or open them in JupyterLab.")
    sub = ap.add_subparsers(dest="command", required=True, metavar="{notebooks,serve,lab}")
    p = sub.add_parser("notebooks", help="copy the notebooks into a folder of yours")
    p.add_argument("dir", nargs="?", default=DEFAULT_DIR, help=f"where (default: ./{DEFAULT_DIR})")
    p.add_argument("--lang", choices=LANGS, help="only the English (en) or the Chinese (zh) ones (default: both)")
    p.add_argument("--force", action="store_true", help="overwrite notebooks that differ from the package's")
    p = sub.add_parser("serve", help="serve the notebooks as Voila dashboards (needs attnlab[dashboard])")
    p.add_argument("dir", nargs="?", help="a folder made by `attnlab notebooks` (default: the package's own)")
    p.add_argument("--lang", choices=LANGS, default="en", help="the edition whose index opens (default: en)")
    p.add_argument("--port", type=int, default=8866, help="the port on 127.0.0.1 (default: 8866)")
    p.add_argument("--no-browser", action="store_true", help="do not open a web browser")
    p = sub.add_parser("lab", help="open the notebooks in JupyterLab (needs attnlab[dashboard])")
    p.add_argument("dir", nargs="?", default=DEFAULT_DIR,
                   help=f"a folder of yours; the notebooks are copied there first if it has none (default: ./{DEFAULT_DIR})")
    p.add_argument("--lang", choices=LANGS, default="en", help="the edition whose index opens (default: en)")
    return ap


def main(argv=None):
    a = parser().parse_args(argv)
    try:
        if a.command == "notebooks":
            written = copy_notebooks(a.dir, a.lang, a.force)
            start = Path(a.dir) / index_page(a.lang or "en")
            print(f"attnlab notebooks: {len(written) - 1} notebooks in {str(a.dir)!r}; start with {str(start)!r}")
            return 0
        if a.command == "serve":
            return serve(a.dir, a.lang, a.port, browser=not a.no_browser)
        return lab(a.dir, a.lang)
    except (OSError, ValueError) as exc:
        print(exc, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
