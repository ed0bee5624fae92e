"""Stored measurements: the results.json a lesson's training command wrote and, for the lessons with a Train
button, the live.json its bench wrote (bench/bench_nb*_live.py). Lessons 10-14 read theirs here: each call
hands out a fresh dict (a notebook may change what it was given) from text read once per process."""
import functools
import json

__all__ = ["measured"]


@functools.cache
def _text(path):
    return path.read_text(encoding="utf-8") if path.exists() else None


def measured(results, live=None):
    """``results`` (a results.json path) as a fresh dict; with ``live`` (a live.json path) that exists, its
    dict under "live"."""
    text = _text(results)
    if text is None:
        raise FileNotFoundError(f"{results}: the lesson's stored results are missing; its training command writes them")
    out = json.loads(text)
    if live is not None and (live_text := _text(live)) is not None:
        out["live"] = json.loads(live_text)
    return out
