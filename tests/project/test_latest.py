"""tools/latest.py (make test-latest): the table of pinned vs installed versions marks what moved, the
closing summary names the moved packages and what each failing test's traceback passes through."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import latest

JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="tests.test_plotting" name="test_heatmap"><failure message="AssertionError: pixels differ">
Traceback: /venv/lib/python3.11/site-packages/matplotlib/text.py:12 in draw
/venv/lib/python3.11/site-packages/numpy/core/x.py:3
/venv/lib/python3.11/site-packages/_pytest/python.py:1</failure></testcase>
<testcase classname="tests.test_masking" name="test_ok"/>
<testcase classname="tests.test_x" name="test_error"><error message="boom">no traceback path</error></testcase>
</testsuite></testsuites>"""


def test_pins_are_read_from_requirements(tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text("# comment\ntorch==2.13.0\nnumpy==2.4.6  # why\n--extra-index-url x\n")
    assert latest.pins(req) == [("torch", "2.13.0"), ("numpy", "2.4.6")]
    assert [name for name, _ in latest.pins()][0] == "torch"


def test_table_marks_what_moved(monkeypatch):
    have = {"torch": "2.13.0+cpu", "numpy": "2.5.0", "voila": None}
    monkeypatch.setattr(latest, "installed", have.get)
    rows, moved = latest.moved_table([("torch", "2.13.0"), ("numpy", "2.4.6"), ("voila", "0.5.13")])
    assert moved == ["numpy", "voila"], "a +cpu build of the pinned torch has not moved"
    table = latest.format_table(rows)
    assert "numpy  2.4.6        2.5.0        MOVED" in table and "(missing)    MOVED" in table
    assert "MOVED" not in table.splitlines()[1]


def test_failures_and_what_their_tracebacks_pass_through(tmp_path):
    xml = tmp_path / "junit.xml"
    xml.write_text(JUNIT)
    found = latest.failures(xml)
    assert [t for t, _ in found] == ["tests.test_plotting::test_heatmap", "tests.test_x::test_error"]
    owners = {"matplotlib": "matplotlib", "numpy": "numpy", "_pytest": "pytest"}
    assert latest.implicated(found[0][1], owners) == ["matplotlib", "numpy"]
    assert latest.failures(tmp_path / "none.xml") == []


def test_summary_names_the_moved_package_a_failure_passes_through(monkeypatch, tmp_path):
    xml = tmp_path / "junit.xml"
    xml.write_text(JUNIT)
    monkeypatch.setattr(latest, "_module_owners", lambda: {"matplotlib": "matplotlib", "numpy": "numpy"})
    rows = [("matplotlib", "3.11.2", "3.12.0", True), ("numpy", "2.4.6", "2.4.6", False)]
    text = latest.summary(rows, ["matplotlib"], {"unit": (1, latest.failures(xml)), "notebooks": (0, [])})
    assert "Moved since the pins: **matplotlib 3.11.2 -> 3.12.0**" in text
    assert "`tests.test_plotting::test_heatmap` (traceback through: matplotlib)" in text
    assert "**unit**: 2 failed" in text and "**notebooks**: passed" in text
    assert text.rstrip().endswith("BROKEN with the newest releases: unit. Moved: matplotlib 3.11.2 -> 3.12.0.")
    calm = latest.summary(rows[1:], [], {"unit": (0, [])})
    assert "All groups pass with the newest releases. Moved: nothing." in calm


def test_a_group_ended_by_a_signal_is_unfinished_not_broken(monkeypatch):
    # a killed run (exit -15) is no verdict on the releases: it must not read "BROKEN"
    monkeypatch.setattr(latest, "_module_owners", lambda: {})
    rows = [("numpy", "2.4.6", "2.4.6", False)]
    text = latest.summary(rows, [], {"unit": (0, []), "panels": (-15, [])})
    assert "**panels**: did not finish (ended by signal 15)" in text
    assert "BROKEN" not in text and "All groups pass" not in text
    assert text.rstrip().endswith("Did not finish (no verdict): panels.")
    both = latest.summary(rows, [], {"unit": (1, []), "panels": (-9, [])})
    assert "BROKEN with the newest releases: unit. Moved: nothing." in both
    assert "**unit**: exit 1" in both


def test_the_lowest_run_says_lowest_not_newest(monkeypatch):
    # make test-lowest runs tools/latest.py --lowest: its summary must not call the floors "the newest releases"
    monkeypatch.setattr(latest, "_module_owners", lambda: {})
    rows = [("numpy", "1.26.0", "1.26.0", False)]
    text = latest.summary(rows, [], {"unit": (1, [])}, "lowest")
    assert text.startswith("## Lowest direct dependencies (make test-lowest)")
    assert "newest" not in text.lower()
    assert text.rstrip().endswith("BROKEN with the lowest versions: unit. Moved: nothing.")
    assert "All groups pass with the lowest versions." in latest.summary(rows, [], {"unit": (0, [])}, "lowest")
