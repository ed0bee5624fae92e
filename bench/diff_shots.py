"""Pixel difference of two sets of screenshots written by bench/look_widths.py (e.g. the template
before and after a change), one width at a time:

    .venv/bin/python bench/diff_shots.py /tmp/shots/before/1280 /tmp/shots/after/1280 [--out DIR]

Per PNG present in both: same size or not, how many pixels differ (any channel), and the box
holding them (in the PNG's pixels); with --out, an image of each differing pair's difference
(changed pixels red over a faded copy of the first). Exit status 1 if any pair differs.
"""
import argparse
import sys
from pathlib import Path

import numpy as np
from PIL import Image


def compare(a_path, b_path):
    a, b = (np.asarray(Image.open(p).convert("RGB")).astype(np.int16) for p in (a_path, b_path))
    if a.shape != b.shape:
        return {"size": (a.shape[1], a.shape[0], b.shape[1], b.shape[0])}, None
    changed = (np.abs(a - b).max(axis=2) > 0)
    n = int(changed.sum())
    if not n:
        return {"pixels": 0}, None
    ys, xs = np.nonzero(changed)
    picture = (a * 0.3 + 178).astype(np.uint8)
    picture[changed] = (220, 0, 0)
    return {"pixels": n, "box": (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)}, picture


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("first")
    ap.add_argument("second")
    ap.add_argument("--out")
    a = ap.parse_args()
    first, second = Path(a.first), Path(a.second)
    names = sorted({p.name for p in first.glob("*.png")} & {p.name for p in second.glob("*.png")})
    only = sorted({p.name for p in first.glob("*.png")} ^ {p.name for p in second.glob("*.png")})
    differ = 0
    for name in names:
        result, picture = compare(first / name, second / name)
        if result.get("pixels", 1):
            differ += 1
        print(f"{name}: {result}")
        if picture is not None and a.out:
            Path(a.out).mkdir(parents=True, exist_ok=True)
            Image.fromarray(picture).save(Path(a.out) / name)
    print(f"{len(names)} pairs, {differ} differ; in one folder only: {only}")
    sys.exit(1 if differ or only else 0)


if __name__ == "__main__":
    main()
