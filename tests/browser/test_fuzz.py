"""A fuzz over every dashboard: every control of every live panel moved to seeded random values,
MOVES moves per notebook, switching between controls and panels at random, as a learner would.

After each move: the moved panel shows new pixels (its <img> gets a new, decoded src) within
UPDATE_TIMEOUT; no error box (a panel's red callback error), no traceback or cell error is shown.
At the end: no page or console error, and each panel is screenshotted to screenshots/fuzz/ (look at
them). Sliders move by keyboard (one arrow or page key, one move each), menus and toggle buttons pick
another option, check boxes flip, text boxes get one of a few inputs (some refused on purpose).
A move that cannot change the value (a slider at its end) is skipped, not counted.
Runtime: about 1 s per move on a busy 2-core machine, so a few minutes per notebook.
"""
import random
import time
import zlib

import pytest

from dashboard_helpers import NOTEBOOKS, PANELS_READY, PROBLEMS, SCREENSHOTS, expected_panels

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

NEW_PIXELS = """([i, before]) => { const img = document.querySelectorAll('.attnlab-panel')[i].querySelector('img');
  return img.src !== before && img.complete && img.naturalWidth > 0; }"""


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
    page.goto(f"{voila_server.url}/voila/render/{path.name}", wait_until="commit", timeout=RENDER_TIMEOUT)
    page.wait_for_function(PANELS_READY, arg=expected_panels(path), timeout=RENDER_TIMEOUT, polling=100)
    time.sleep(0.5)
    controls = page.evaluate(CONTROLS)
    assert controls, "no controls found"
    unanswered, moved, t0 = [], 0, time.perf_counter()
    for step in range(MOVES):
        panel, kind, k, label = rng.choice(controls)
        img = page.locator(".attnlab-panel").nth(panel).locator("img").first
        before = img.get_attribute("src")
        if not move(page, rng, panel, kind, k):
            continue
        moved += 1
        try:
            page.wait_for_function(NEW_PIXELS, arg=[panel, before], timeout=UPDATE_TIMEOUT, polling=30)
        except Exception:  # playwright TimeoutError
            unanswered.append(f"move {step}: panel {panel + 1} {kind} {label!r}")
        problems = page.evaluate(PROBLEMS)
        assert not problems, f"after move {step} ({kind} {label!r} of panel {panel + 1}): {problems}"
    seconds = time.perf_counter() - t0
    print(f"{path.stem}: {moved} moves over {len(controls)} controls in {seconds:.0f} s")
    page.wait_for_function(STILL, timeout=UPDATE_TIMEOUT, polling=200)   # the last update has landed
    out = SCREENSHOTS / "fuzz"
    out.mkdir(parents=True, exist_ok=True)
    for i in range(page.locator(".attnlab-panel").count()):
        panel = page.locator(".attnlab-panel").nth(i)
        panel.scroll_into_view_if_needed()
        panel.screenshot(path=str(out / f"{path.stem}-panel{i + 1}.png"))
    assert moved >= MOVES // 2, f"only {moved} of {MOVES} moves could change a value"
    assert not unanswered, f"moves without new pixels within {UPDATE_TIMEOUT} ms: {unanswered}"
    assert not watch.errors, watch.errors
