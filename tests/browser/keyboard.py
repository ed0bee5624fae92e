"""Keyboard, zoom and reduced-motion checks of a dashboard page (issue 38, docs/accessibility.md), run by
test_dashboards.py's test_dashboard on the page it already has open (no page load of their own):

- ``drive_by_keyboard`` (one notebook, both languages): the first live panel's Play section driven with
  the keyboard alone: Tab walks its controls (menus, slider handles and their editable readouts, buttons,
  links) in reading order (DOM order), each showing a focus ring;
  arrow keys move a slider and a menu, Enter and Space press the download buttons; after each move the
  figure, its accessible name (the image's alt, read back from Chromium's accessibility tree) and what its
  live region (the template's .attnlab-announce: role=status, aria-live=polite) says change; Tab leaves the
  panel at its end (no trap). Every other dashboard's outputs are walked by screen_reader.py.
- ``zoom_problems`` (every dashboard): 200 % zoom on a 1280-px window is a 640-px CSS viewport; the phone
  check's layout rules (phone_layout.check_layout) must hold there.
- ``moving_under_reduced_motion`` (every dashboard): with prefers-reduced-motion: reduce, no element
  animates or transitions for longer than 10 ms, a probe added with a 1-s animation and transition
  included (nothing else on a settled page moves, so without the probe this could not fail).
"""
import time

from dashboard_helpers import figure_changed
from phone_layout import check_layout

UPDATE_TIMEOUT = 20_000

FOCUSED = """() => { const e = document.activeElement; const p = e && e.closest('.attnlab-panel');
  if (!p) return null;
  const all = [...document.querySelectorAll('.attnlab-panel')];
  const cs = getComputedStyle(e);
  return {panel: all.indexOf(p), tag: e.tagName.toLowerCase(), cls: e.className || '',
          text: (e.textContent || e.getAttribute('aria-label') || '').trim().slice(0, 40),
          ring: cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2 };
}"""
# Every element the keyboard can reach in panel i, in DOM (reading) order.
REACHABLE = """i => [...document.querySelectorAll('.attnlab-panel')[i].querySelectorAll(
  'button, select, input, textarea, a[href], [contenteditable="true"], [tabindex]:not([tabindex="-1"])')]
  .filter(e => !e.disabled && e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
  .map(e => e.tagName.toLowerCase() + '|' + (e.className || '') + '|' + (e.textContent || e.getAttribute('aria-label') || '').trim().slice(0, 40))"""
NAME = """i => { const p = document.querySelectorAll('.attnlab-panel')[i];
  const live = p.querySelector(':scope > .attnlab-announce');
  return {title: p.querySelector('img').getAttribute('alt') || '', src: p.querySelector('img').src,
          live: live ? live.textContent.trim() : '', role: live ? live.getAttribute('role') : null,
          polite: live ? live.getAttribute('aria-live') : null}; }"""


def _start_of(page, panel):
    """Put the focus on panel ``panel``'s box itself (made focusable by script only, tabindex -1: not a
    Tab stop), so the next Tab goes to the panel's first control as it would coming down the page."""
    page.evaluate("""i => { const box = document.querySelectorAll('.attnlab-panel')[i];
      box.tabIndex = -1; box.focus(); }""", panel)


def _moved(page, panel, before):
    """Wait for the figure to change, then for its name and its live region (told once the move has settled);
    return the panel's name and live text after the move."""
    changed = figure_changed(page, panel, before["src"], UPDATE_TIMEOUT)
    deadline = time.time() + UPDATE_TIMEOUT / 1000
    after = page.evaluate(NAME, panel)
    while changed and (after["title"] == before["title"] or after["live"] == before["live"]) and time.time() < deadline:
        time.sleep(0.1)
        after = page.evaluate(NAME, panel)
    return changed, after


def drive_by_keyboard(page, panel=0):
    """Drive live panel ``panel`` with the keyboard alone; return the problems found (empty: it passed)."""
    problems = []
    reachable = page.evaluate(REACHABLE, panel)
    _start_of(page, panel)
    walked = []
    for _ in range(len(reachable) + 3):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused is None or focused["panel"] != panel:
            break                                             # left the panel: no trap
        walked.append(focused)
        if not focused["ring"]:
            problems.append(f"no visible focus ring on {focused['tag']}.{focused['cls']} {focused['text']!r}")
    else:
        problems.append(f"Tab did not leave the panel after {len(reachable) + 3} presses (a keyboard trap)")
    keys = [f"{w['tag']}|{w['cls']}|{w['text']}" for w in walked]
    if keys != reachable:
        problems.append(f"Tab order {keys} is not the reading order {reachable}")

    # Move each kind of control by its keys and see the figure, its name and its live text follow.
    first = page.evaluate(NAME, panel)
    if first["role"] != "status" or first["polite"] != "polite":
        problems.append(f"the text under the figure is not a polite live region: {first}")
    if not first["title"]:
        problems.append("the figure has no accessible name (alt)")
    elif page.locator(".attnlab-panel").nth(panel).get_by_role("img", name=first["title"][:60]).count() != 1:
        problems.append(f"Chromium's accessibility tree has no image named {first['title'][:60]!r}")
    box = page.locator(".attnlab-panel").nth(panel)
    moves = []
    handle = box.locator(".widget-slider .noUi-handle").first
    if handle.count():
        moves.append(("slider", handle, "ArrowLeft" if handle.get_attribute("aria-valuenow")
                      == handle.get_attribute("aria-valuemax") else "ArrowRight"))
    menu = box.locator("select").first
    if menu.count():
        moves.append(("menu", menu, "ArrowDown" if menu.evaluate("s => s.selectedIndex < s.options.length - 1")
                      else "ArrowUp"))
    for kind, element, key in moves:
        before = page.evaluate(NAME, panel)
        element.focus()
        page.keyboard.press(key)
        changed, after = _moved(page, panel, before)
        if not changed:
            problems.append(f"{key} on the {kind} did not change the figure")
        elif after["title"] == before["title"] or not after["title"]:
            problems.append(f"{key} on the {kind} changed the figure, not its accessible name {before['title'][:60]!r}")
        elif after["live"] == before["live"]:
            problems.append(f"{key} on the {kind} did not change the live text")
    buttons = box.locator("button")
    for i, key, fmt in ((0, "Enter", "png"), (1, "Space", "svg")):   # the download buttons, PNG then SVG
        if buttons.count() > i:
            buttons.nth(i).focus()
            page.keyboard.press(key)
            try:
                box.locator(f'a.attnlab-download[download$=".{fmt}"]').wait_for(timeout=UPDATE_TIMEOUT)
            except Exception:  # playwright TimeoutError
                problems.append(f"{key} on the button {buttons.nth(i).text_content()!r} did nothing")
    return problems


def zoom_problems(page, lang):
    """200 % zoom on a 1280-px window: the page laid out in 640 CSS px (phone_layout's rules)."""
    page.set_viewport_size({"width": 640, "height": 500})
    time.sleep(0.5)
    found = [f"at 200 % zoom: {p}" for p in check_layout(page, 640, lang)]
    page.set_viewport_size({"width": 1280, "height": 1000})    # back to the desktop
    time.sleep(0.5)
    return found


MOVING = """() => {
  // a probe that would move for a second, as a spinner or a transition the page adds later would
  const probe = document.createElement('div');
  probe.className = 'attnlab-motion-probe';
  probe.style.cssText = 'transition: opacity 1s; animation: attnlab-probe 1s infinite; position: absolute; left: -9999px';
  document.body.appendChild(probe);
  const moving = [...document.querySelectorAll('*')].filter(e => { const cs = getComputedStyle(e);
  const longest = s => Math.max(...s.split(',').map(t => parseFloat(t) * (t.trim().endsWith('ms') ? 0.001 : 1)));
  return (cs.animationName !== 'none' && longest(cs.animationDuration) > 0.01) || longest(cs.transitionDuration) > 0.01;
}).map(e => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`).slice(0, 10);
  probe.remove();
  return moving;
}"""


def moving_under_reduced_motion(page):
    """Elements that still animate or transition (> 10 ms) when the reader asks for reduced motion."""
    page.emulate_media(reduced_motion="reduce")
    try:
        return page.evaluate(MOVING)
    finally:
        page.emulate_media(reduced_motion="no-preference")
