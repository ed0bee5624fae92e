"""A fuzz over every dashboard: every control of every live panel moved to seeded random values,
MOVES moves per notebook, switching between controls and panels at random, as a learner would.

Every move is answered, and the test knows how: it reads the kernel's websocket (the messages the
page exchanges with the kernel). A move sends the control's new value to the kernel; the kernel
has handled it when it reports "idle" for that message, and everything it sent in reply arrived
before that. Then either
- the kernel sent a new picture (a widget update with PNG bytes): the moved panel must show new
  pixels (its <img> gets a new, decoded src) within UPDATE_TIMEOUT; or
- it sent none: the panel re-rendered to the very same PNG bytes (a panel assigns its image on every
  refresh, and a widget only sends a value that differs), i.e. the new state draws the same figure
  (07's window size under a causal mask, a value clamped to where it already was). Such a move is a
  recognised no-op: the page must still show the old picture, and it is listed. But every control
  moved must change the picture at least once over the fuzz (else it is not wired to the figure).
A move whose message the kernel does not finish within UPDATE_TIMEOUT is unanswered (a failure).
After every move: no error box (a panel's red callback error), no traceback or cell error shown.
At the end: no page or console error, and each panel is screenshotted to screenshots/fuzz/ (look at
them). Sliders move by keyboard (one arrow or page key, one move each), menus and toggle buttons pick
another option, check boxes flip, text boxes get one of a few inputs (some refused on purpose).
A move that cannot change the value (a slider at its end) and sends nothing is skipped, not counted.
Runtime: about 1 s per move on a busy 2-core machine, so a few minutes per notebook.
"""
import json
import random
import struct
import time
import zlib

import pytest

from dashboard_helpers import NOTEBOOKS, PROBLEMS, SCREENSHOTS, expected_panels, wait_for_panels

MOVES = 100                   # per notebook
RENDER_TIMEOUT = 180_000      # ms
UPDATE_TIMEOUT = 20_000       # ms for one move to reach the figure
TEXTS = ["17 mar 1994", "1 jan 2000", "31 dec 1999", "7 jul 77", "not a date", "", "12/05/2003", "29 feb 2024"]

# Every control of every panel: [panel index, kind, index of that kind in the panel, label]
CONTROLS = """() => [...document.querySelectorAll('.attnlab-panel')].flatMap((p, i) => {
  const label = e => ((e.closest('.widget-inline-hbox, .widget-hbox, .widget-box') || e).querySelector('.widget-label') || {}).textContent || '?';
  const out = [];
  p.querySelectorAll('.widget-slider .noUi-handle').forEach((e, k) => out.push([i, 'slider', k, label(e)]));
  p.querySelectorAll('.widget-dropdown select').forEach((e, k) => out.push([i, 'select', k, label(e)]));
  p.querySelectorAll('.widget-checkbox input[type=checkbox]').forEach((e, k) => out.push([i, 'checkbox', k, label(e)]));
  p.querySelectorAll('.widget-toggle-buttons').forEach((e, k) => out.push([i, 'toggles', k, label(e)]));
  p.querySelectorAll('.widget-radio-box').forEach((e, k) => out.push([i, 'radio', k, label(e)]));
  p.querySelectorAll('.widget-text input[type=text]').forEach((e, k) => out.push([i, 'text', k, label(e)]));
  p.querySelectorAll('button.widget-toggle-button:not(.widget-toggle-buttons button)')
    .forEach((e, k) => out.push([i, 'toggle', k, label(e)]));
  return out;
})"""

pytestmark = pytest.mark.fuzz  # `make fuzz`: minutes per notebook, so not part of `make test`

SELECTORS = {"slider": ".widget-slider .noUi-handle", "select": ".widget-dropdown select",
             "checkbox": ".widget-checkbox input[type=checkbox]", "toggles": ".widget-toggle-buttons",
             "radio": ".widget-radio-box", "text": ".widget-text input[type=text]",
             "toggle": "button.widget-toggle-button:not(.widget-toggle-buttons button)"}

# No panel image has changed for 2 s (so the screenshots show the final state).
STILL = """() => { const now = [...document.querySelectorAll('.attnlab-panel img')].map(i => i.src).join();
  const w = window; if (w.__fuzz_srcs !== now) { w.__fuzz_srcs = now; w.__fuzz_t = performance.now(); return false; }
  return performance.now() - w.__fuzz_t > 2000; }"""

QUIET = 300                   # ms without a new update sent, or a panel picture changing, before a move
# No panel picture has changed for QUIET ms: an earlier move's last picture has landed.
SETTLED = """q => { const now = [...document.querySelectorAll('.attnlab-panel img')].map(i => i.src).join();
  const w = window; if (w.__fuzz_seen !== now) { w.__fuzz_seen = now; w.__fuzz_since = performance.now(); return false; }
  return performance.now() - w.__fuzz_since > q; }"""

NEW_PIXELS = """([i, before]) => { const img = document.querySelectorAll('.attnlab-panel')[i].querySelector('img');
  return img.src !== before && img.complete && img.naturalWidth > 0; }"""


def _decode(frame):
    """A kernel websocket frame as (channel, msg_type, msg_id, parent msg_id, content, has buffers).
    Text frames are JSON; binary ones are either the v1 protocol (v1.kernel.websocket.jupyter.org)
    or the older one (part count, offsets, JSON, buffers)."""
    if isinstance(frame, str):
        msg, buffers = json.loads(frame), []
    else:
        frame = bytes(frame)
        n = int.from_bytes(frame[:8], "little")
        offsets = [int.from_bytes(frame[8 * (i + 1):8 * (i + 2)], "little") for i in range(n)] if 2 < n < 1000 else []
        if offsets and offsets[0] == 8 * (n + 1) and offsets == sorted(offsets) and offsets[-1] == len(frame):
            parts = [frame[a:b] for a, b in zip(offsets, offsets[1:])]
            channel = parts[0].decode()
            header, parent, _, content = (json.loads(x) if x else {} for x in parts[1:5])
            msg = {"channel": channel, "header": header, "parent_header": parent, "content": content}
            buffers = parts[5:]
        else:
            nbufs = struct.unpack("!i", frame[:4])[0]
            offs = list(struct.unpack("!" + "I" * nbufs, frame[4:4 * (nbufs + 1)])) + [None]
            parts = [frame[a:b] for a, b in zip(offs[:-1], offs[1:])]
            msg, buffers = json.loads(parts[0]), parts[1:]
    header, parent = msg.get("header") or {}, msg.get("parent_header") or {}
    return (msg.get("channel"), header.get("msg_type"), header.get("msg_id"), parent.get("msg_id"),
            msg.get("content") or {}, bool(buffers or msg.get("buffers")))


class KernelWire:
    """What the page sends the kernel and what comes back: control updates sent (shell comm_msg
    "update"), the kernel's "idle" per message, and which messages it answered with new bytes."""

    def __init__(self, page):
        self.sent, self.idle, self.bytes_back, self.errors = [], set(), set(), []
        page.on("websocket", self._attach)

    def _attach(self, ws):
        if "/channels" not in ws.url:
            return
        ws.on("framesent", self._sent)
        ws.on("framereceived", self._received)

    def _sent(self, payload):
        try:
            channel, kind, msg_id, _, content, _ = _decode(payload)
        except Exception as exc:  # a frame we cannot read: say so instead of guessing
            self.errors.append(f"unreadable frame sent: {exc!r}")
            return
        if kind == "comm_msg" and (content.get("data") or {}).get("method") == "update":
            self.sent.append(msg_id)

    def _received(self, payload):
        try:
            channel, kind, _, parent, content, has_buffers = _decode(payload)
        except Exception as exc:
            self.errors.append(f"unreadable frame received: {exc!r}")
            return
        if kind == "status" and content.get("execution_state") == "idle":
            self.idle.add(parent)
        elif kind == "comm_msg" and has_buffers and (content.get("data") or {}).get("method") in ("update", "echo_update"):
            self.bytes_back.add(parent)


def wait_answered(page, wire, first, timeout_ms):
    """Wait until the kernel is idle for every update sent since index `first` (at least one), and
    the page has sent nothing more for QUIET ms (ipywidgets holds back an update while the kernel is
    busy and sends it later). Returns (answered, sent any, replied with bytes)."""
    deadline = time.perf_counter() + timeout_ms / 1000
    while time.perf_counter() < deadline:
        mine = wire.sent[first:]
        if mine and all(m in wire.idle for m in mine):
            page.wait_for_timeout(QUIET)
            if wire.sent[first:] == mine:
                return True, True, any(m in wire.bytes_back for m in mine)
            continue
        page.wait_for_timeout(20)
    return False, bool(wire.sent[first:]), False


def move(page, rng, panel, kind, k):
    """Move one control to a random other value; False if it could not change."""
    el = page.locator(".attnlab-panel").nth(panel).locator(SELECTORS[kind]).nth(k)
    el.scroll_into_view_if_needed()
    if kind == "slider":
        now, lo, hi = (el.get_attribute(a) for a in ("aria-valuenow", "aria-valuemin", "aria-valuemax"))
        key = "ArrowLeft" if now == hi else "ArrowRight" if now == lo else rng.choice(["ArrowLeft", "ArrowRight"])
        el.focus()
        page.keyboard.press(rng.choice([key, key, key, "PageUp" if key == "ArrowRight" else "PageDown"]))
        return el.get_attribute("aria-valuenow") != now
    if kind == "select":
        options = el.locator("option").all_text_contents()
        current = el.evaluate("s => s.selectedIndex")
        others = [i for i in range(len(options)) if i != current]
        if not others:
            return False
        el.select_option(index=rng.choice(others))
        return True
    if kind in ("checkbox", "toggle"):
        el.click()
        return True
    if kind in ("toggles", "radio"):
        items = el.locator("button" if kind == "toggles" else "input[type=radio]")
        active = [i for i in range(items.count())
                  if (("mod-active" in (items.nth(i).get_attribute("class") or "")) if kind == "toggles"
                      else items.nth(i).is_checked())]
        others = [i for i in range(items.count()) if i not in active]
        if not others:
            return False
        items.nth(rng.choice(others)).click()
        return True
    if kind == "text":
        current = el.input_value()
        value = rng.choice([t for t in TEXTS if t != current])
        el.fill(value)
        el.press("Enter")
        return True
    raise AssertionError(kind)


FUZZED = [p for p in NOTEBOOKS if expected_panels(p)]


@pytest.mark.parametrize("path", FUZZED, ids=[p.stem for p in FUZZED])
def test_fuzz_every_control(voila_server, new_page, path):
    rng = random.Random(zlib.crc32(path.stem.encode()))
    page, watch = new_page()
    wire = KernelWire(page)
    page.goto(f"{voila_server.url}/voila/render/{path.name}", wait_until="commit", timeout=RENDER_TIMEOUT)
    wait_for_panels(page, expected_panels(path), RENDER_TIMEOUT, watch, voila_server)
    time.sleep(0.5)
    controls = page.evaluate(CONTROLS)
    assert controls, "no controls found"
    unanswered, stale, noops, moved, t0 = [], [], [], 0, time.perf_counter()
    tried, drew = set(), set()           # controls moved, and those whose moves drew new pixels
    for step in range(MOVES):
        panel, kind, k, label = rng.choice(controls)
        img = page.locator(".attnlab-panel").nth(panel).locator("img").first
        page.wait_for_function(SETTLED, arg=QUIET, timeout=UPDATE_TIMEOUT, polling=50)
        before = img.get_attribute("src")
        first = len(wire.sent)
        changed = move(page, rng, panel, kind, k)
        for _ in range(50):        # what the page sends decides: a slider's aria value can lag its update
            if len(wire.sent) > first:
                break
            page.wait_for_timeout(20)
        if not changed and len(wire.sent) == first:
            continue
        moved += 1
        what = f"move {step}: panel {panel + 1} {kind} {label!r}"
        answered, sent, new_bytes = wait_answered(page, wire, first, UPDATE_TIMEOUT)
        tried.add((panel, kind, k, label))
        if not answered:
            unanswered.append(what + ("" if sent else " (the page sent the kernel nothing)"))
        elif new_bytes:
            try:
                page.wait_for_function(NEW_PIXELS, arg=[panel, before], timeout=UPDATE_TIMEOUT, polling=30)
            except Exception:  # playwright TimeoutError: the kernel sent a picture the page did not show
                stale.append(what)
            else:
                drew.add((panel, kind, k, label))
        else:                  # the kernel rendered the same PNG bytes: the page keeps the same picture
            page.wait_for_timeout(100)
            if img.get_attribute("src") != before:
                stale.append(what + " (new pixels although the kernel sent none)")
            noops.append(what)
        problems = page.evaluate(PROBLEMS)
        assert not problems, f"after {what}: {problems}"
    seconds = time.perf_counter() - t0
    print(f"{path.stem}: {moved} moves over {len(controls)} controls in {seconds:.0f} s, "
          f"{len(noops)} drew the same figure: {noops}")
    page.wait_for_function(STILL, timeout=UPDATE_TIMEOUT, polling=200)   # the last update has landed
    out = SCREENSHOTS / "fuzz"
    out.mkdir(parents=True, exist_ok=True)
    for i in range(page.locator(".attnlab-panel").count()):
        panel = page.locator(".attnlab-panel").nth(i)
        panel.scroll_into_view_if_needed()
        panel.screenshot(path=str(out / f"{path.stem}-panel{i + 1}.png"))
    assert not wire.errors, wire.errors[:5]
    assert moved >= MOVES // 2, f"only {moved} of {MOVES} moves could change a value"
    assert not unanswered, f"moves the kernel did not finish within {UPDATE_TIMEOUT} ms: {unanswered}"
    assert not stale, f"moves whose picture the page did not show: {stale}"
    dead = sorted(tried - drew)   # every move of theirs drew the same figure: not wired to the picture?
    assert not dead, f"controls whose moves never changed the picture: {dead}; same-figure moves: {noops}"
    assert not watch.errors, watch.errors
