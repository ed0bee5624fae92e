"""Where a slider press's time goes between the browser and the kernel, per press (medians, ms):

    .venv/bin/python bench/probe_transport.py [--only 00] [--presses 20]

The page's WebSocket is wrapped (an init script) to time, in the browser's clock: the keydown, the
comm message the slider sends, and the arrival of each kernel message. The kernel's own messages
carry the time it made them (header.date: status "busy" when it starts on the slider's message,
the Image update once the PNG is ready, "idle" when done), on the same machine's clock. So a press
splits into: key -> send (the slider's view), send -> busy (browser -> server -> kernel),
busy -> image made (callback, draw, PNG: the kernel's work), image made -> arrives (kernel ->
server -> browser), arrives -> src (the widget manager), src -> decoded, decoded -> next frame.
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "bench"))
from bench_dashboards import focus_slider  # noqa: E402
from dashboard_helpers import (  # noqa: E402
    ARGS, chromium_path, NOTEBOOKS, VoilaServer, close_like_a_learner, settle, PANELS_READY, expected_panels)

HOOK = r"""
(() => {
  const now = () => performance.timeOrigin + performance.now();
  window.__ev = [];
  const text = d => typeof d === 'string' ? d : new TextDecoder('utf-8', {fatal: false}).decode(d);
  const pick = (s, key) => { const m = s.match(new RegExp('"' + key + '"\\s*:\\s*"([^"]*)"')); return m ? m[1] : null; };
  const Orig = window.WebSocket;
  class Hooked extends Orig {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', e => {
        const t = now();
        const s = text(e.data instanceof ArrayBuffer ? new Uint8Array(e.data) : e.data);
        window.__ev.push({dir: 'in', t, type: pick(s, 'msg_type'), date: pick(s, 'date'),
                          state: pick(s, 'execution_state'), img: s.includes('IHDR')});
      });
    }
    send(d) {
      const s = typeof d === 'string' ? d : text(d instanceof ArrayBuffer ? new Uint8Array(d) : d);
      window.__ev.push({dir: 'out', t: now(), type: pick(s, 'msg_type')});
      return super.send(d);
    }
  }
  window.WebSocket = Hooked;
  document.addEventListener('keydown', () => window.__ev.push({dir: 'key', t: now()}), true);
  new MutationObserver(muts => {
    for (const m of muts) {
      const tSrc = now();
      window.__ev.push({dir: 'src', t: tSrc});
      m.target.addEventListener('load', () => {
        window.__ev.push({dir: 'load', t: now()});
        requestAnimationFrame(() => window.__ev.push({dir: 'frame', t: now()}));
      }, {once: true});
    }
  }).observe(document, {attributes: true, attributeFilter: ['src'], subtree: true});
})();
"""

PARTS = ["key->send", "send->busy", "kernel work", "image->arrive", "arrive->src", "decode", "->frame", "total"]


def epoch_ms(iso):
    from datetime import datetime
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1e3


def split(events):
    """The parts of one press from its events (the first after its keydown)."""
    key = events[0]["t"]
    send = next(e["t"] for e in events if e["dir"] == "out" and e["type"] == "comm_msg")
    busy = next(e for e in events if e["dir"] == "in" and e["state"] == "busy")
    image = next(e for e in events if e["dir"] == "in" and e["type"] == "comm_msg" and e["img"])
    src = next(e["t"] for e in events if e["dir"] == "src" and e["t"] >= image["t"])
    load = next(e["t"] for e in events if e["dir"] == "load" and e["t"] >= src)
    frame = next(e["t"] for e in events if e["dir"] == "frame" and e["t"] >= load)
    b, m = epoch_ms(busy["date"]), epoch_ms(image["date"])
    return [send - key, b - send, m - b, image["t"] - m, src - image["t"], load - src, frame - load, frame - key]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presses", type=int, default=20)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=ARGS)
        server = VoilaServer(NOTEBOOKS[0].parent, ROOT / "bench" / "results" / "voila-transport.log")
        try:
            settle(server, quiet=8)
            for p in NOTEBOOKS:
                if a.only not in p.name or not expected_panels(p):
                    continue
                settle(server, quiet=3)
                ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
                page = ctx.new_page()
                page.add_init_script(HOOK)
                page.goto(f"{server.url}/voila/render/{p.name}", wait_until="commit", timeout=180_000)
                page.wait_for_function(PANELS_READY, arg=expected_panels(p), timeout=180_000, polling=20)
                settle(server, quiet=3)
                handles = page.locator(".attnlab-panel .widget-slider .noUi-handle")
                n = handles.count()
                rows = []
                for i in range(a.presses if n else 0):
                    key = focus_slider(handles, i, n)          # the presses bench_dashboards makes
                    page.evaluate("window.__ev = []")
                    page.keyboard.press(key)
                    try:
                        page.wait_for_function("window.__ev.some(e => e.dir === 'frame')", timeout=15_000, polling=5)
                        time.sleep(0.1)
                        rows.append(split(page.evaluate("window.__ev")))
                    except Exception as exc:
                        print("   ", p.name, i, type(exc).__name__, str(exc)[:120])
                    time.sleep(0.15)
                close_like_a_learner(page)
                ctx.close()
                if rows:
                    med = [statistics.median(r[k] for r in rows) for k in range(len(PARTS))]
                    print(f"{p.name[:24]:24s} " + "  ".join(f"{n} {v:5.1f}" for n, v in zip(PARTS, med)), flush=True)
        finally:
            server.stop()
        browser.close()


if __name__ == "__main__":
    main()
