"""The phone (390x844 CSS px, touch, device scale 2) and tablet (768 px) checks of a dashboard page,
as a learner opening a shared link sees it (issue 26; the CSS is the attnlab template's, item 6).
test_dashboards.py's test_dashboard runs them on its one page per notebook (both languages), before
its desktop checks: the page is opened in a PHONE context, checked at 390 px, then at 768 px (the
layout is CSS under media queries only), then at 1280 px.

At each width: no slider track on the page under 120 px; no control's label cut short (its text
wider than its box, which ipywidgets ends with an ellipsis: zh 05's "√d_k 中的 …" at 390 px), nor a
closed menu's choice (zh 05's 缩放 at 640 px, 200 % zoom);
nothing of a panel past the panel's right edge, which is on screen, unless it is inside a box of its own that scrolls sideways (a panel's
text); on the phone and the tablet each figure is shown at its own size (one picture pixel per CSS pixel: no text
smaller than the renderer drew it) in the panel, which scrolls sideways, with a hint in the page's
language when the figure is wider than the screen. A touch drag on a slider changes its panel's
figure. Screenshots of each panel: screenshots/phone/ (ignored by git).
"""
import time

from attnlab.i18n import page_messages
from dashboard_helpers import SCREENSHOTS, figure_changed

UPDATE_TIMEOUT = 20_000      # ms for a drag to reach the figure
MIN_TRACK = 120              # px: a slider track a thumb can drag
PHONE = dict(width=390, height=844, device_scale_factor=2, is_mobile=True, has_touch=True)
TABLET = 768
HINT = {lang: page_messages(lang)["scroll_hint"] for lang in ("en", "zh")}   # from the catalog

# Per panel: what of it ends past its right edge outside a scroll box of its own, its figure's
# natural and drawn width, the hint's text; with the first: every slider track of the page.
LAYOUT = """() => {
  const vw = document.documentElement.clientWidth;
  const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  const tracks = [...document.querySelectorAll('.jp-OutputArea-output .widget-slider')].map(s => [
    (s.querySelector('.widget-label') || {}).textContent || '?',
    Math.round(s.querySelector('.slider-container').getBoundingClientRect().width)]);
  // a control's label cut short (ipywidgets ends it with an ellipsis): its text is wider than its box
  const cut = [...document.querySelectorAll('.jp-OutputArea-output .widget-label')].filter(l =>
    l.getBoundingClientRect().width > 0 && l.scrollWidth > l.clientWidth + 1).map(l =>
    `"${l.textContent.trim()}" ${l.scrollWidth} px of text in ${l.clientWidth} px`);
  // a closed menu's choice cut short (zh 05's 缩放 at 640 px): its text, in the menu's font, wider than the
  // room left of its arrow (4 px spare: Chromium draws the text into the arrow's padding a little)
  const measure = document.createElement('canvas').getContext('2d');
  for (const s of document.querySelectorAll('.jp-OutputArea-output select')) {
    const o = s.options[s.selectedIndex], cs = getComputedStyle(s);
    if (!o || !s.getClientRects().length) continue;
    measure.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const text = measure.measureText(o.textContent).width;
    const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    if (text > room + 4) cut.push(`menu "${o.textContent.trim()}" ${Math.round(text)} px of text in ${Math.round(room)} px`);
  }
  return [...document.querySelectorAll('.attnlab-panel')].map((panel, i) => {
    panel.scrollLeft = 0;
    const edge = Math.min(vw, panel.getBoundingClientRect().right) + 1;
    const img = panel.querySelector(':scope > img');
    const inOwnBox = e => { for (let a = e.parentElement; a && a !== panel; a = a.parentElement) {
      if (scrolls(a) && a.getBoundingClientRect().right <= edge) return true; } return false; };
    const past = [...panel.querySelectorAll('*')].filter(e => {
      const r = e.getBoundingClientRect();
      return e !== img && r.width > 0 && r.height > 0 && r.right > edge && !inOwnBox(e);
    }).map(e => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} "${e.textContent.trim().slice(0, 30)}" ends at ${Math.round(e.getBoundingClientRect().right)}`);
    const hint = getComputedStyle(panel, '::after').content;
    return {
      panelRight: Math.round(panel.getBoundingClientRect().right), vw,
      tracks: i ? [] : tracks,                    // every slider of the page, with the first panel
      cut: i ? [] : cut,                          // every cut label of the page, with the first panel
      past, natural: img ? img.naturalWidth : 0, drawn: img ? img.getBoundingClientRect().width : 0,
      inner: panel.clientWidth, hint: hint === 'none' ? '' : hint.replace(/^"|"$/g, ''),
    };
  });
}"""


def check_layout(page, width, lang):
    """What breaks the layout at this width, as readable lines (empty: none)."""
    problems = []
    for i, p in enumerate(page.evaluate(LAYOUT), 1):
        if p["panelRight"] > p["vw"] + 1:
            problems.append(f"{width} px, panel {i}: ends at {p['panelRight']} px, past the screen ({p['vw']} px)")
        narrow = [f"{label!r} {w} px" for label, w in p["tracks"] if w < MIN_TRACK]
        if narrow:
            problems.append(f"{width} px: slider tracks under {MIN_TRACK} px: {narrow}")
        if p["cut"]:
            problems.append(f"{width} px: control labels cut short: {p['cut']}")
        if p["past"]:
            problems.append(f"{width} px, panel {i}: {len(p['past'])} element(s) cut at the right edge: {p['past'][:4]}")
        if p["natural"]:                 # phone and tablet: fitted to 768 px, its text was under 9 px
            if abs(p["drawn"] - p["natural"]) > 0.5:
                problems.append(f"{width} px, panel {i}: figure {p['natural']} px wide drawn {p['drawn']:.0f} px wide")
            if p["natural"] > p["inner"] and p["hint"] != HINT[lang]:
                problems.append(f"{width} px, panel {i}: figure wider than the screen, hint {p['hint']!r}, "
                                f"expected {HINT[lang]!r}")
    return problems


def touch_drag(page, panel):
    """Drag the first slider of a panel with a finger (touch events through the DevTools
    protocol, as a phone sends them); True if the panel's figure changed."""
    slider = page.locator(".attnlab-panel").nth(panel).locator(".widget-slider").first
    handle = slider.locator(".noUi-handle").first
    handle.scroll_into_view_if_needed()
    img = page.locator(".attnlab-panel").nth(panel).locator("img").first
    before = img.get_attribute("src")
    box = handle.bounding_box()
    track = slider.locator(".slider-container").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    at_max = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
    to = track["x"] + (track["width"] * 0.2 if at_max else track["width"] * 0.8)
    if abs(to - x) < 20:
        to = track["x"] + (track["width"] * 0.2 if x > track["x"] + track["width"] / 2 else track["width"] * 0.8)
    cdp = page.context.new_cdp_session(page)
    touch = lambda kind, px: cdp.send("Input.dispatchTouchEvent", {
        "type": kind, "touchPoints": [] if kind == "touchEnd" else [{"x": px, "y": y}]})
    touch("touchStart", x)
    for k in range(1, 9):
        touch("touchMove", x + (to - x) * k / 8)
        time.sleep(0.03)
    touch("touchEnd", to)
    return figure_changed(page, panel, before, UPDATE_TIMEOUT)


def shoot_panels(page, stem, width):
    folder = SCREENSHOTS / "phone"
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(page.locator(".attnlab-panel").count()):
        page.locator(".attnlab-panel").nth(i).screenshot(path=str(folder / f"{stem}-{width}-panel{i + 1}.png"))
