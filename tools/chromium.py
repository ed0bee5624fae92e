"""Which Chromium the browser tests, tools/static_view_shot.py and the browser benches drive: the one
place that decides (tests/browser/dashboard_helpers.py re-exports it as ``chromium_path``).

In this order:
1. the environment variable ATTNLAB_CHROMIUM, if set (a path, or a command on PATH); set but
   pointing at nothing is an error, not a fall-through;
2. Debian's Chromium, /usr/bin/chromium, where the Debian package is installed: its launcher
   script and the real binary /usr/lib/chromium/chromium. Ubuntu's `chromium`/`chromium-browser`
   packages are stubs that hand over to a snap (a script naming /snap/, no binary under
   /usr/lib/chromium): those are not taken;
3. Playwright's own Chromium (``playwright.chromium.executable_path``), once
   `python -m playwright install chromium` has downloaded it (GitHub's runners, a laptop);
4. otherwise ChromiumNotFound, saying what to do.

    python tools/chromium.py      # prints where the Chromium comes from and its path (exit 1: none)

`make chromium` installs one the right way for the platform.
"""
import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor

ENV = "ATTNLAB_CHROMIUM"
DEBIAN_LAUNCHER = "/usr/bin/chromium"
DEBIAN_BINARY = "/usr/lib/chromium/chromium"
HOW_TO = (f"set {ENV}=/path/to/chromium, or run `make chromium` (Debian: apt-get install chromium; "
          "elsewhere: python -m playwright install chromium)")


class ChromiumNotFound(RuntimeError):
    pass


def _executable(path):
    return path is not None and os.path.isfile(path) and os.access(path, os.X_OK)


def _is_snap_stub(path):
    """A launcher that only hands over to a snap (Ubuntu's transitional chromium packages)."""
    try:
        with open(path, "rb") as f:
            head = f.read(65536)
    except OSError:
        return False
    if head[:4] == b"\x7fELF":
        return False
    return b"/snap/" in head or b"snap install" in head


def debian_chromium():
    """/usr/bin/chromium when Debian's package is really installed (launcher + binary), else None."""
    if _executable(DEBIAN_LAUNCHER) and not _is_snap_stub(DEBIAN_LAUNCHER) and _executable(DEBIAN_BINARY):
        return DEBIAN_LAUNCHER
    return None


def _playwright_path():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        return pw.chromium.executable_path


def playwright_chromium():
    """Playwright's downloaded Chromium, or None (Playwright missing, or its browser not installed).
    Asked in a thread of its own, so that it works from inside an asyncio loop too."""
    try:
        with ThreadPoolExecutor(1) as pool:
            path = pool.submit(_playwright_path).result(timeout=60)
    except Exception:  # Playwright not installed, or a broken driver: "not installed"
        return None
    return path if _executable(path) else None


def find():
    """(path, where it came from) of the Chromium to launch; raise ChromiumNotFound if there is none."""
    named = os.environ.get(ENV)
    if named:
        path = named if os.path.sep in named else (shutil.which(named) or named)
        if not _executable(path):
            raise ChromiumNotFound(f"{ENV}={named!r} is not an executable file; {HOW_TO}")
        return path, ENV
    path = debian_chromium()
    if path:
        return path, "Debian's chromium"
    path = playwright_chromium()
    if path:
        return path, "Playwright's chromium"
    if _executable(DEBIAN_LAUNCHER) and _is_snap_stub(DEBIAN_LAUNCHER):
        raise ChromiumNotFound(f"{DEBIAN_LAUNCHER} is a stub for a snap (Ubuntu), not a browser; {HOW_TO}")
    raise ChromiumNotFound(f"no Chromium found; {HOW_TO}")


def chromium_path():
    """The path of the Chromium to launch (see find())."""
    return find()[0]


def main():
    try:
        path, how = find()
    except ChromiumNotFound as e:
        print(e, file=sys.stderr)
        return 1
    print(f"{how}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
