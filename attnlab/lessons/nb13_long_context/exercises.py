"""The two "write it yourself" exercises of notebook 13: references, cases, and the mistakes learners make, written
out as functions that ``selfcheck.check_function`` recognises in a wrong answer.

1. The rolling cache's slot for position n (``check_ring_slot``).
2. The latent cache's bytes (``check_latent_bytes``).
"""
from ...core import checks
from ...i18n import N_
from ...ui.selfcheck import check_function, mistake
from .window import ring_slot

__all__ = ["LATENT_BYTES_MISTAKES", "RING_SLOT_MISTAKES", "check_latent_bytes", "check_ring_slot",
           "reference_latent_bytes"]


RING_SLOT_MISTAKES = [
    mistake(lambda n, window, sinks: n % window, N_(
        "you rolled over all the slots: the first `sinks` slots hold the first positions for good, so only "
        "window - sinks slots roll.")),
    mistake(lambda n, window, sinks: n if n < sinks else (n - sinks) % window + sinks, N_(
        "the rolling part has window - sinks slots, not window: take (n - sinks) mod (window - sinks).")),
    mistake(lambda n, window, sinks: sinks + (n - sinks) % (window - sinks), N_(
        "the first `sinks` positions are the sinks: position n < sinks stays in slot n.")),
    mistake(lambda n, window, sinks: n if n < sinks else n % (window - sinks), N_(
        "slots 0 ... sinks - 1 belong to the sinks: the rolling slots start at slot `sinks` (add it).")),
]

# (n, window, sinks), chosen so that where one listed mistake is wrong no other gives the same slot
_RING_CASES = [(0, 4, 0), (6, 4, 0), (1, 1, 0), (3, 3, 1), (9, 3, 1), (0, 3, 2), (1, 3, 2), (4, 3, 2), (1, 2, 1),
               (3, 2, 1), (0, 4, 1), (10, 5, 2), (7, 6, 2), (12, 6, 1), (2, 5, 3)]


def check_ring_slot(fn):
    """Check the learner's ``fn(n, window, sinks)``: the slot (0 ... window - 1) of a rolling cache that position
    ``n`` (from 0) is written to, the first ``sinks`` positions kept for good. Prints a report."""
    checks.function(fn, "fn")
    return check_function(fn, ring_slot, _RING_CASES, name="my_slot", hints=RING_SLOT_MISTAKES)


def reference_latent_bytes(layers, latent, d_rope, length, bytes_per_number):
    """layers x (latent + d_rope) x length x bytes per number: one latent and one rotated key per position."""
    return layers * (latent + d_rope) * length * bytes_per_number


LATENT_BYTES_MISTAKES = [
    mistake(lambda L, c, r, n, b: L * 2 * (c + r) * n * b, N_(
        "there is no factor 2: keys and values are both made from the one latent, which is cached once.")),
    mistake(lambda L, c, r, n, b: L * c * n * b, N_(
        "the rotated key is cached too: d_rope numbers per position and layer, beside the latent.")),
    mistake(lambda L, c, r, n, b: (c + r) * n * b, N_(
        "every layer keeps its own latents: multiply by the layers.")),
    mistake(lambda L, c, r, n, b: L * (c + r) * n, N_(
        "that is the count of numbers: multiply by the bytes of one number (2 for bfloat16, 4 for float32).")),
]

_LATENT_CASES = [(3, 32, 16, 100, 4), (60, 512, 64, 1000, 2), (61, 512, 64, 128_000, 2), (2, 8, 4, 7, 8)]


def check_latent_bytes(fn):
    """Check the learner's ``fn(layers, latent, d_rope, length, bytes_per_number)``: the bytes of a latent cache
    after ``length`` positions. Prints a report."""
    checks.function(fn, "fn")
    return check_function(fn, reference_latent_bytes, _LATENT_CASES, name="my_latent_bytes",
                          hints=LATENT_BYTES_MISTAKES)
