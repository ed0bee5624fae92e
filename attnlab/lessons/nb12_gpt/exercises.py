"""The two "write it yourself" exercises of notebook 12: references, cases, and the mistakes learners make,
written out as functions that ``selfcheck.check_function`` recognises in a wrong answer.

1. Top-p (nucleus) filtering of one distribution (``check_top_p``).
2. The KV cache's bytes (``check_cache_bytes``).
"""
import torch

from ...core import checks
from ...i18n import N_
from ...ui.selfcheck import check_function, mistake
from .generation import filtered_unchecked

__all__ = ["CACHE_BYTES_MISTAKES", "TOP_P_MISTAKES", "check_cache_bytes", "check_top_p", "reference_cache_bytes"]


def _reference_top_p(probs, p):
    return filtered_unchecked(torch.log(probs), 1.0, None, p)


def _top_p(probs, p, *, including=False, renormalise=True, sort=True):
    order = torch.argsort(probs, descending=True, stable=True) if sort else torch.arange(len(probs))
    sorted_p = probs[order]
    mass = sorted_p.cumsum(0)
    keep = mass < p if including else (mass - sorted_p) < p
    out = torch.zeros_like(probs)
    out[order[keep]] = sorted_p[keep]
    return out / out.sum() if renormalise else out


TOP_P_MISTAKES = [
    mistake(lambda probs, p: _top_p(probs, p, including=True), N_(
        "you kept the characters whose mass up to and including them stays below p, so the character that "
        "crosses p is dropped (and a small p keeps nothing). Keep a character when the mass before it is below p.")),
    mistake(lambda probs, p: _top_p(probs, p, renormalise=False), N_(
        "the kept probabilities do not sum to 1: divide them by their sum (renormalise).")),
    mistake(lambda probs, p: _top_p(probs, p, sort=False), N_(
        "you added up the mass in token order: sort the characters by probability first, most probable first.")),
]


def _top_p_cases():
    g = torch.Generator().manual_seed(12)
    cases = []
    for V, p, sharp in ((8, 0.5, 1.0), (12, 0.9, 2.0), (20, 0.3, 1.5), (6, 0.75, 0.5)):
        probs = torch.softmax(torch.randn(V, generator=g, dtype=torch.float64) * sharp, 0)
        cases.append((probs, p))
    return cases


def check_top_p(fn):
    """Check the learner's ``fn(probs, p)``: ``probs`` (V,) float64 summing to 1, 0 < p <= 1; returns (V,): the
    smallest set of the most probable characters whose mass reaches p kept, the rest 0, renormalised. Prints a
    report."""
    checks.function(fn, "fn")
    return check_function(fn, _reference_top_p, _top_p_cases(), name="my_top_p", hints=TOP_P_MISTAKES)


def reference_cache_bytes(layers, heads, kv_heads, d_model, length, bytes_per_number):
    """layers x 2 (keys and values) x kv_heads x head size (d_model / heads) x length x bytes per number."""
    return layers * 2 * kv_heads * (d_model // heads) * length * bytes_per_number


CACHE_BYTES_MISTAKES = [
    mistake(lambda L, H, K, D, n, b: L * K * (D // H) * n * b, N_(
        "you counted the keys only: the cache holds the values too, a factor 2.")),
    mistake(lambda L, H, K, D, n, b: L * 2 * H * (D // H) * n * b, N_(
        "you used the query heads: only the kv_heads key/value heads are cached; the queries are not kept.")),
    mistake(lambda L, H, K, D, n, b: L * 2 * K * D * n * b, N_(
        "each key/value head holds head size = d_model / heads numbers per position, not d_model.")),
    mistake(lambda L, H, K, D, n, b: L * 2 * K * (D // H) * n, N_(
        "that is the count of numbers: multiply by the bytes of one number (4 for float32, 2 for float16).")),
]

_CACHE_CASES = [(4, 4, 2, 128, 100, 4), (32, 32, 8, 4096, 1000, 4), (2, 8, 4, 64, 7, 8)]


def check_cache_bytes(fn):
    """Check the learner's ``fn(layers, heads, kv_heads, d_model, length, bytes_per_number)``: the KV cache's
    bytes after ``length`` positions. Prints a report."""
    checks.function(fn, "fn")
    return check_function(fn, reference_cache_bytes, _CACHE_CASES, name="my_cache_bytes", hints=CACHE_BYTES_MISTAKES)
