"""tools/chromium.py, the one place that decides which Chromium to launch: ATTNLAB_CHROMIUM, then
Debian's (launcher + real binary, not Ubuntu's snap stub), then Playwright's own, then a clear error.
Every source is a fake here: files in tmp_path, the environment and Playwright's answer monkeypatched."""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import chromium

DEBIAN_WRAPPER = b"#!/bin/sh\n# Chromium launcher\nexec /usr/lib/chromium/chromium \"$@\"\n"
UBUNTU_STUB = (b"#! /bin/sh\n# transitional package\nif ! [ -x /snap/bin/chromium ]; then\n"
               b"  echo \"Command '$0' requires the chromium snap to be installed.\"\n"
               b"  echo \"Please install it with:\"; echo; echo \"snap install chromium\"\n  exit 1\nfi\n"
               b"exec /snap/bin/chromium \"$@\"\n")


def _exe(path, content=b"\x7fELF fake binary"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """A machine with nothing: no variable, no Debian package, no Playwright browser. Each test adds."""
    monkeypatch.delenv(chromium.ENV, raising=False)
    monkeypatch.setattr(chromium, "DEBIAN_LAUNCHER", str(tmp_path / "usr/bin/chromium"))
    monkeypatch.setattr(chromium, "DEBIAN_BINARY", str(tmp_path / "usr/lib/chromium/chromium"))
    playwright = {"path": None}
    monkeypatch.setattr(chromium, "playwright_chromium", lambda: playwright["path"])

    class Machine:
        root = tmp_path

        def set_variable(self, value):
            monkeypatch.setenv(chromium.ENV, value)

        def install_debian(self):
            _exe(tmp_path / "usr/lib/chromium/chromium")
            return _exe(tmp_path / "usr/bin/chromium", DEBIAN_WRAPPER)

        def install_ubuntu_stub(self):
            return _exe(tmp_path / "usr/bin/chromium", UBUNTU_STUB)

        def install_playwright(self):
            playwright["path"] = _exe(tmp_path / "ms-playwright/chromium-1/chrome-linux/chrome")
            return playwright["path"]

    return Machine()


def test_the_order_variable_then_debian_then_playwright(machine):
    with pytest.raises(chromium.ChromiumNotFound, match="make chromium"):
        chromium.find()
    pw = machine.install_playwright()
    assert chromium.find() == (pw, "Playwright's chromium")
    debian = machine.install_debian()
    assert chromium.find() == (debian, "Debian's chromium")
    mine = _exe(machine.root / "opt/my-chromium")
    machine.set_variable(mine)
    assert chromium.find() == (mine, chromium.ENV)
    assert chromium.chromium_path() == mine


def test_ubuntu_snap_stub_is_not_debians_chromium(machine):
    machine.install_ubuntu_stub()
    assert chromium.debian_chromium() is None
    with pytest.raises(chromium.ChromiumNotFound, match="snap"):
        chromium.find()
    pw = machine.install_playwright()
    assert chromium.find() == (pw, "Playwright's chromium")


def test_stub_even_with_a_binary_beside_it_is_refused(machine):
    _exe(machine.root / "usr/lib/chromium/chromium")
    machine.install_ubuntu_stub()
    assert chromium.debian_chromium() is None


def test_debian_launcher_without_its_binary_is_not_installed(machine):
    _exe(machine.root / "usr/bin/chromium", DEBIAN_WRAPPER)
    assert chromium.debian_chromium() is None
    machine.install_debian()
    assert chromium.debian_chromium() == chromium.DEBIAN_LAUNCHER


def test_variable_pointing_at_nothing_is_an_error_not_a_fall_through(machine):
    machine.install_debian()
    machine.set_variable(str(machine.root / "nowhere/chromium"))
    with pytest.raises(chromium.ChromiumNotFound, match=chromium.ENV):
        chromium.find()


def test_variable_may_name_a_command_on_path(machine, monkeypatch):
    exe = _exe(machine.root / "bin/my-chromium")
    monkeypatch.setenv("PATH", str(machine.root / "bin") + os.pathsep + os.environ.get("PATH", ""))
    machine.set_variable("my-chromium")
    assert chromium.find() == (exe, chromium.ENV)


def test_playwright_without_its_browser_downloaded_gives_none(monkeypatch, tmp_path):
    def no_playwright():
        raise ImportError("No module named 'playwright'")
    monkeypatch.setattr(chromium, "_playwright_path", no_playwright)
    assert chromium.playwright_chromium() is None
    monkeypatch.setattr(chromium, "_playwright_path", lambda: str(tmp_path / "not-downloaded/chrome"))
    assert chromium.playwright_chromium() is None
    exe = _exe(tmp_path / "downloaded/chrome")
    monkeypatch.setattr(chromium, "_playwright_path", lambda: exe)
    assert chromium.playwright_chromium() == exe


def test_this_machine_finds_one_the_browser_tests_can_launch():
    """Here (Debian with `make chromium` done) the helper answers, and what it names exists."""
    try:
        path, how = chromium.find()
    except chromium.ChromiumNotFound as e:
        pytest.skip(str(e))
    assert os.access(path, os.X_OK), (path, how)
