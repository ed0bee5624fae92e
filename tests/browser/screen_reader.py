"""What a screen reader says and what a keyboard shows on a dashboard page (issue 55, docs/accessibility.md),
run by test_dashboards.py's test_dashboard on EVERY dashboard in both languages, on the page it already has
open (no page load of their own), after its desktop loop has moved every slider of every live panel once:

- ``tab_walk_problems``: every output holding widgets (a live panel, a trainer, a self-check) is walked
  with Tab alone: each control it holds is reached, in reading (DOM) order, and Tab leaves at its end. At
  each stop: a visible focus ring (computed style: an outline of at least 2 px, at least 3:1 against the
  colour around it, not clipped by a box that hides overflow), and Chromium's accessibility tree (the
  DevTools protocol's Accessibility domain, what a screen reader is given) names it with a role a reader
  announces (no unnamed "generic" stop: a slider's editable readout is a named textbox) and no icon-font
  glyph; a slider speaks its value as its readout shows it (aria-valuetext is the readout's text; its
  aria-valuenow is that value, not a log slider's exponent); a toggle button says whether it is on
  (aria-pressed, as ipywidgets' shade shows it).
- ``announcement_problems``: every control of a live panel moved (the sliders by test_dashboard's loop, here
  the menus, checkboxes, toggle buttons and text boxes, each by its keys) is announced in the panel's live
  region once the move has settled, as "<label> = <value as shown>" (the template's words, in the page's
  language), and the live region says less than the figure's name (which its image's alt carries whole).
- ``language_problems``: text in the other language than the page's (an English sentence offered in a
  Chinese page, the "English / 中文" links) carries its own ``lang``.
"""
import json
import re
import time

from attnlab.i18n import page_messages

UPDATE_TIMEOUT = 20_000      # ms for a move to reach the figure
ANNOUNCE_TIMEOUT = 25        # s for a move to be announced (the template waits up to 10 s for a busy kernel)
LINE = 160                   # characters: the longest line of the figure's text an announcement quotes (the template's)
MAX_ANNOUNCEMENT = 400       # characters: settings moved at once, and that line
MIN_RING = 2                 # px
MIN_RING_CONTRAST = 3.0      # WCAG 2.1 1.4.11, non-text contrast
ICON_GLYPH = re.compile("[\ue000-\uf8ff]")   # Unicode's private use area: icon fonts (Font Awesome's U+F019)
MESSAGES = {lang: page_messages(lang) for lang in ("en", "zh")}

# The outputs that hold widgets, and what the keyboard can reach in output i, in DOM (reading) order; a group
# of radio buttons sharing a name is one stop (its checked one, else its first).
OUTPUTS = """() => [...document.querySelectorAll('.jp-OutputArea-output')].filter(o => o.querySelector('.jupyter-widgets'))"""
REACHABLE = """i => { const out = (%s)()[i], names = new Set();
  return [...out.querySelectorAll('button, select, input, textarea, a[href], [contenteditable="true"], [tabindex]:not([tabindex="-1"])')]
    .filter(e => !e.disabled && !e.closest('[inert]') && e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
    .filter(e => { if (e.type !== 'radio' || !e.name) return true;
      if (names.has(e.name)) return false;
      const group = [...out.querySelectorAll(`input[type=radio][name="${e.name}"]`)], on = group.find(r => r.checked);
      if (on && on !== e) return false;
      names.add(e.name); return true; })
    .map(e => e.tagName.toLowerCase() + '|' + (e.className || '') + '|' +
              (e.textContent || e.getAttribute('aria-label') || '').trim().slice(0, 40)); }""" % OUTPUTS
START = """i => { const out = (%s)()[i]; out.tabIndex = -1; out.focus(); }""" % OUTPUTS
DONE = """i => { const out = (%s)()[i]; out.removeAttribute('tabindex'); }""" % OUTPUTS
# The focused element: where it is, its focus ring (width, contrast with what lies around it, what clips it),
# a slider's spoken and shown value, a toggle button's state.
FOCUSED = """() => {
  const e = document.activeElement, outs = (%s)();
  const out = e && outs.find(o => o.contains(e));
  if (!out || out === e) return null;
  const rgb = c => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, k) => s + v * [0.2126, 0.7152, 0.0722][k], 0);
  const behind = a => { for (; a; a = a.parentElement) { const c = rgb(getComputedStyle(a).backgroundColor);
    if (c.length >= 3 && (c.length < 4 || c[3] > 0)) return c; } return [255, 255, 255]; };
  const cs = getComputedStyle(e), width = parseFloat(cs.outlineWidth) || 0, offset = parseFloat(cs.outlineOffset) || 0;
  const ring = rgb(cs.outlineColor), around = offset >= 0 ? behind(e.parentElement) : behind(e);
  const [hi, lo] = [lum(ring), lum(around)].sort((a, b) => b - a);
  const r = e.getBoundingClientRect(), d = Math.max(0, width + offset), clipped = [];
  for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
    const b = a.getBoundingClientRect(), left = b.left + a.clientLeft, top = b.top + a.clientTop;
    if (r.left - d < left - 0.5 || r.top - d < top - 0.5 || r.right + d > left + a.clientWidth + 0.5 ||
        r.bottom + d > top + a.clientHeight + 0.5) clipped.push(`${a.tagName.toLowerCase()}.${[...a.classList].slice(-2).join('.')}`);
  }
  const slider = e.classList.contains('noUi-handle') ? e.closest('.widget-slider') : null;
  const readout = slider && slider.querySelector('.widget-readout');
  return {output: outs.indexOf(out),
          key: e.tagName.toLowerCase() + '|' + (e.className || '') + '|' + (e.textContent || e.getAttribute('aria-label') || '').trim().slice(0, 40),
          ring: cs.outlineStyle !== 'none' && width >= %d ? width : 0, contrast: (hi + 0.05) / (lo + 0.05), clipped,
          slider: slider ? {label: e.getAttribute('aria-label'), valuetext: e.getAttribute('aria-valuetext'),
                            index: slider.classList.contains('attnlab-selection-slider'),
                            now: e.getAttribute('aria-valuenow'), min: e.getAttribute('aria-valuemin'), max: e.getAttribute('aria-valuemax'),
                            shown: readout ? readout.textContent.replace(/[\\u200b\\s]+/g, ' ').trim() : null} : null,
          toggle: e.classList.contains('widget-toggle-button') ? {on: e.classList.contains('mod-active'),
                                                                  pressed: e.getAttribute('aria-pressed')} : null};
}""" % (OUTPUTS, MIN_RING)


def _accessible(cdp):
    """Chromium's accessibility node of the focused element: (role, name, ignored)."""
    found = cdp.send("Runtime.evaluate", {"expression": "document.activeElement", "objectGroup": "attnlab-ax"})
    nodes = cdp.send("Accessibility.getPartialAXTree", {"objectId": found["result"]["objectId"], "fetchRelatives": False})
    node = nodes["nodes"][0] if nodes["nodes"] else {}
    return node.get("role", {}).get("value", ""), node.get("name", {}).get("value", ""), node.get("ignored", False)


def _stop_problems(stop, role, name, ignored):
    where = f"{stop['key']!r}"
    found = []
    if not stop["ring"]:
        found.append(f"{where}: no focus ring of {MIN_RING} px or more")
    elif stop["contrast"] < MIN_RING_CONTRAST:
        found.append(f"{where}: focus ring at {stop['contrast']:.2f}:1 against what lies around it, under {MIN_RING_CONTRAST}:1")
    if stop["clipped"]:
        found.append(f"{where}: focus ring clipped by {stop['clipped'][:3]}")
    if ignored or role in ("", "generic", "none", "presentation") or not name.strip():
        found.append(f"{where}: a Tab stop a screen reader cannot name (role {role!r}, name {name!r})")
    if ICON_GLYPH.search(name):
        found.append(f"{where}: its name {name!r} holds an icon-font glyph")
    s = stop["slider"]
    if s:
        if s["valuetext"] != s["shown"]:
            found.append(f"slider {s['label']!r} speaks {s['valuetext']!r}, its readout shows {s['shown']!r}")
        try:                  # a selection slider's value is its option's index, spoken as the option (valuetext)
            shown, now, low, high = float(s["shown"]), float(s["now"]), float(s["min"]), float(s["max"])
            shown = now if s["index"] else shown
            decimals = len(s["shown"].split(".")[1]) if "." in s["shown"] else 0
            if abs(now - shown) > 0.5 * 10 ** -decimals + 1e-9 or not low <= now <= high:
                found.append(f"slider {s['label']!r}: aria-valuenow {s['now']} (in [{s['min']}, {s['max']}]) is not "
                             f"the value its readout shows, {s['shown']}")
        except (TypeError, ValueError):
            found.append(f"slider {s['label']!r}: aria-valuenow {s['now']!r} or its readout {s['shown']!r} is not a number")
    t = stop["toggle"]
    if t and t["pressed"] != ("true" if t["on"] else "false"):
        found.append(f"toggle button {where} is {'on' if t['on'] else 'off'}, aria-pressed {t['pressed']!r}")
    return found


def tab_walk_problems(page):
    """Walk every output holding widgets with Tab alone; the problems found (empty: it passed)."""
    problems = []
    page.keyboard.press("Shift")                  # a key first: the focus that follows shows its ring (:focus-visible)
    cdp = page.context.new_cdp_session(page)
    try:
        for i in range(page.evaluate(f"() => ({OUTPUTS})().length")):
            reachable = page.evaluate(REACHABLE, i)
            if not reachable:
                continue
            page.evaluate(START, i)
            walked = []
            for _ in range(len(reachable) + 3):
                page.keyboard.press("Tab")
                stop = page.evaluate(FOCUSED)
                if stop is None or stop["output"] != i:
                    break                                   # left the output: no trap
                walked.append(stop["key"])
                problems += _stop_problems(stop, *_accessible(cdp))
            else:
                problems.append(f"output {i}: Tab did not leave it after {len(reachable) + 3} presses (a keyboard trap)")
            page.evaluate(DONE, i)
            if walked != reachable:
                problems.append(f"output {i}: Tab walked {walked}, not the controls in reading order {reachable}")
        cdp.send("Runtime.releaseObjectGroup", {"objectGroup": "attnlab-ax"})
    finally:
        cdp.detach()
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
    return problems


# Each control of each live panel: its kind, label and value as shown (as the template reads them).
CONTROLS = """() => [...document.querySelectorAll('.attnlab-panel')].map(p => [...p.querySelectorAll(
  ':scope > .widget-hbox > :is(.widget-slider, .widget-dropdown, .widget-checkbox, .widget-toggle-buttons, .widget-text, .widget-textarea)')]
  .map(c => { const label = [...c.querySelectorAll(':scope > .widget-label, :scope > .widget-label-basic')]
      .map(l => l.textContent.replace(/[\\u200b\\s]+/g, ' ').trim()).find(t => t) || '';
    const kind = ['slider', 'dropdown', 'checkbox', 'toggle-buttons', 'text', 'textarea'].find(k => c.classList.contains('widget-' + k));
    const h = c.querySelector('.noUi-handle'), s = c.querySelector('select'), b = c.querySelector('input[type=checkbox]');
    const on = c.querySelector('.widget-toggle-button.mod-active'), t = c.querySelector('input, textarea');
    const clean = x => x.replace(/[\\u200b\\s]+/g, ' ').trim();
    const shown = h ? clean(c.querySelector('.widget-readout').textContent) : s ? clean(s.options[s.selectedIndex].textContent)
      : b ? (b.checked ? 'on' : 'off') : on ? clean(on.textContent) : t ? t.value : '';
    const choices = s ? s.options.length : c.querySelectorAll('.widget-toggle-button').length || 2;
    return {kind, label, shown, choices, disabled: !!(c.querySelector(':disabled') || c.querySelector('[disabled]'))}; }))"""
ANNOUNCED = "() => (window.attnlabAnnounced || []).slice()"
REGION = """i => { const r = document.querySelectorAll('.attnlab-panel')[i].querySelector(':scope > .attnlab-announce');
  return r ? {role: r.getAttribute('role'), live: r.getAttribute('aria-live'), text: r.textContent,
              name: (document.querySelectorAll('.attnlab-panel')[i].querySelector(':scope > img') || {}).alt || ''} : null; }"""


# What a move changes: the figure, its name or the text under it (a trainer's empty curves change only their name).
FIGURE = """i => { const p = document.querySelectorAll('.attnlab-panel')[i], img = p.querySelector(':scope > img');
  const text = p.querySelector('.attnlab-summary');
  return [img ? img.src : '', img ? img.alt : '', text ? text.textContent : ''].join('\\n'); }"""


def _redrawn(page, panel, before):
    try:
        page.wait_for_function(f"([i, before]) => ({FIGURE})(i) !== before", arg=[panel, before],
                               timeout=UPDATE_TIMEOUT, polling=50)
        return True
    except Exception:  # playwright TimeoutError
        return False


def _move(page, panel, index, control):
    """Move a live panel's menu, checkbox, toggle buttons or text box by its keys; True if its figure (or the
    figure's name or text) changed. A text box gets a character more and Enter (the panel refuses or redraws)."""
    box = page.locator(".attnlab-panel").nth(panel).locator(
        ":scope > .widget-hbox > :is(.widget-slider, .widget-dropdown, .widget-checkbox, .widget-toggle-buttons, "
        ".widget-text, .widget-textarea)").nth(index)
    before = page.evaluate(FIGURE, panel)
    box.scroll_into_view_if_needed()
    if control["kind"] == "dropdown":
        menu = box.locator("select")
        menu.focus()
        page.keyboard.press("ArrowDown" if menu.evaluate("s => s.selectedIndex < s.options.length - 1") else "ArrowUp")
    elif control["kind"] == "checkbox":
        box.locator("input").focus()
        page.keyboard.press("Space")
    elif control["kind"] == "toggle-buttons":
        box.locator(".widget-toggle-button:not(.mod-active)").first.focus()
        page.keyboard.press("Space")
    else:
        box.locator("input, textarea").first.focus()
        page.keyboard.press("End")
        page.keyboard.type("1")
        page.keyboard.press("Enter")
    return _redrawn(page, panel, before)


def _restore_text(page, panel, index):
    box = page.locator(".attnlab-panel").nth(panel).locator(":scope > .widget-hbox > :is(.widget-text, .widget-textarea)").nth(index)
    before = page.evaluate(FIGURE, panel)
    box.locator("input, textarea").first.focus()
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    page.keyboard.press("Enter")
    _redrawn(page, panel, before)


def _told(page, lang, panel, label, shown, since):
    """The announcement of panel ``panel`` after index ``since`` that tells ``label = shown`` (the template's
    words in ``lang``), or None."""
    told = re.escape(MESSAGES[lang]["setting"]).replace(re.escape("{control}"), re.escape(label)) \
        .replace(re.escape("{value}"), re.escape(shown))
    pattern = re.compile(rf"(^|{re.escape(MESSAGES[lang]['separator'])}){told}({re.escape(MESSAGES[lang]['separator'])}|"
                         rf"{re.escape(MESSAGES[lang]['moved'].split('{settings}')[1].split('{change}')[0])}|$)")
    for entry in page.evaluate(ANNOUNCED)[since:]:
        if entry["panel"] == panel and pattern.search(entry["text"]):
            return entry["text"]
    return None


def _shown(control, lang):
    """A control's value as the template speaks it (a checkbox: "on"/"off" in the page's language)."""
    return MESSAGES[lang][control["shown"]] if control["kind"] == "checkbox" else control["shown"]


def announcement_problems(page, lang, record=None):
    """Move each menu, checkbox, toggle buttons and text box of every live panel by its keys (the sliders were
    moved by test_dashboard) and check that every control's move is announced; the problems found.
    ``record``: a path to write what was announced (build/a11y/<page>-announced.json, for a person to read)."""
    problems = []
    setting = MESSAGES[lang]["setting"]
    controls = page.evaluate(CONTROLS)
    texts = []
    for p, panel in enumerate(controls):
        for c, control in enumerate(panel):
            if control["kind"] == "slider" or control["disabled"] or control["choices"] < 2:
                continue                                    # (a menu of one choice does not move)
            since = len(page.evaluate(ANNOUNCED))
            if not _move(page, p, c, control):
                problems.append(f"panel {p + 1}: moving {control['kind']} {control['label']!r} did not change its figure")
                continue
            if control["kind"] in ("text", "textarea"):         # wait for its announcement, then put it back
                shown = page.evaluate(CONTROLS)[p][c]["shown"]
                deadline = time.time() + ANNOUNCE_TIMEOUT
                while _told(page, lang, p, control["label"], shown, since) is None and time.time() < deadline:
                    time.sleep(0.2)
                if _told(page, lang, p, control["label"], shown, since) is None:
                    problems.append(f"panel {p + 1}: {setting.format(control=control['label'], value=shown)!r} "
                                    f"was not announced after the move: {page.evaluate(ANNOUNCED)[since:]}")
                texts.append(control["label"])
                _restore_text(page, p, sum(1 for x in panel[:c] if x["kind"] in ("text", "textarea")))
    # Every control moved (its value now as shown) was announced, the sliders' moves included.
    now = page.evaluate(CONTROLS)
    deadline = time.time() + ANNOUNCE_TIMEOUT
    for p, panel in enumerate(now):
        region = page.evaluate(REGION, p)
        if region is None or region["role"] != "status" or region["live"] != "polite":
            problems.append(f"panel {p + 1}: no polite live region of its own (role=status): {region}")
            continue
        for control in panel:
            if control["kind"] in ("text", "textarea") or control["disabled"] or not control["label"] or control["choices"] < 2:
                continue
            shown = _shown(control, lang)
            while _told(page, lang, p, control["label"], shown, 0) is None and time.time() < deadline:
                time.sleep(0.2)
            if _told(page, lang, p, control["label"], shown, 0) is None:
                problems.append(f"panel {p + 1}: its {control['kind']} {control['label']!r} moved to {shown!r}, "
                                f"never announced as {setting.format(control=control['label'], value=shown)!r}; "
                                f"announced: {[e['text'][:120] for e in page.evaluate(ANNOUNCED) if e['panel'] == p]}")
        # brief: never the figure's whole name (its image's alt says that), at most a line of it and the settings
        name = region["name"]
        for entry in page.evaluate(ANNOUNCED):
            if entry["panel"] == p and (len(entry["text"]) > MAX_ANNOUNCEMENT or len(name) > LINE and name in entry["text"]):
                problems.append(f"panel {p + 1}: an announcement of {len(entry['text'])} characters (the figure's "
                                f"name: {len(name)}): {entry['text'][:120]!r}")
    if record is not None:
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps(page.evaluate(ANNOUNCED), ensure_ascii=False, indent=1), encoding="utf-8")
    return problems


# Text of the other language than the page's, where a control or a link shows it: its element's language.
LANGUAGES = """lang => {
  const CJK = /[\\u3400-\\u9fff\\uf900-\\ufaff]/, WORD = /[A-Za-z]{2,}/;
  const other = t => lang === 'zh' ? (WORD.test(t) && !CJK.test(t) ? 'en' : null) : (CJK.test(t) && !WORD.test(t) ? 'zh' : null);
  return [...document.querySelectorAll('.jp-RenderedMarkdown a, .jp-OutputArea-output :is(option, button, .widget-label, ' +
                                       '.widget-label-basic, .widget-radio-box label)')]
    .map(e => [e, e.textContent.replace(/[\\u200b\\s]+/g, ' ').trim()]).filter(([e, t]) => other(t))
    .filter(([e, t]) => (e.closest('[lang]') || document.documentElement).lang !== other(t))
    .map(([e, t]) => `${e.tagName.toLowerCase()} "${t.slice(0, 40)}" is read as ${(e.closest('[lang]') || {}).lang || '?'}, it is ${other(t)}`);
}"""


def language_problems(page, lang):
    """Text shown in the other language than the page's without its own lang attribute."""
    return page.evaluate(LANGUAGES, lang)
