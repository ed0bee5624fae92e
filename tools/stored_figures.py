"""The pictures a dashboard shows before its kernel has run: each notebook's STORED static outputs.

With progressive rendering (Binder), the attnlab Voila template sends the notebook as committed
(text and stored outputs that need no script: figures, printed text; never a widget view) before
the kernel starts, and replaces each stored output by the live one when the kernel has run its
cell. So the stored pictures must be the ones the code draws. nbval skips image/png (and
tests/sanitize.cfg masks the PNGs inside HTML); conftest.py adds this comparison to nbval's, so a
stale or hand-made stored picture fails the notebook's nbval.

    pictures(outputs)              the PNGs of a cell's outputs that the template writes in the page
    differences(stored, fresh)     what differs between two cells' pictures ([] if nothing)
"""
import base64
import io
import re

import numpy as np

WIDGET = "application/vnd.jupyter.widget-view+json"
PNG_IN_HTML = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=\s]+)")
# Root mean square difference of the RGBA values (0-255) above which two pictures differ. A
# one-digit change in a tick label or a curve moved by one pixel in a small figure gives an RMS
# of order 1; round-off in the data gives a few anti-aliased pixels off by one level (RMS ~0.01).
RMS_TOL = 0.05


def pictures(outputs):
    """The PNGs (bytes) shown by a cell's non-widget outputs, in order: image/png data and
    data:image/png URIs inside text/html."""
    found = []
    for out in outputs:
        data = out.get("data") or {}
        if WIDGET in data:
            continue
        if "image/png" in data:
            png = data["image/png"]
            found.append(base64.b64decode("".join(png) if isinstance(png, list) else png))
        html = data.get("text/html")
        if html:
            html = "".join(html) if isinstance(html, list) else html
            found.extend(base64.b64decode(re.sub(r"\s", "", m)) for m in PNG_IN_HTML.findall(html))
    return found


def rms(png_a, png_b):
    """RMS difference of two PNGs' RGBA values (0-255); inf if their sizes differ."""
    from PIL import Image
    a, b = (np.asarray(Image.open(io.BytesIO(p)).convert("RGBA"), dtype=np.float64) for p in (png_a, png_b))
    if a.shape != b.shape:
        return float("inf")
    return float(np.sqrt(np.mean((a - b) ** 2)))


def differences(stored_outputs, fresh_outputs, tol=RMS_TOL):
    """Messages naming each picture of the stored outputs that the fresh outputs do not repeat."""
    stored, fresh = pictures(stored_outputs), pictures(fresh_outputs)
    if len(stored) != len(fresh):
        return [f"{len(stored)} stored picture(s), {len(fresh)} drawn by the code"]
    found = []
    for i, (s, f) in enumerate(zip(stored, fresh)):
        if s == f:
            continue
        d = rms(s, f)
        if d > tol:
            found.append(f"picture {i}: the stored PNG differs from the one the code draws "
                         f"(RMS {d:.3g} > {tol} on 0-255; re-execute the notebook)")
    return found
