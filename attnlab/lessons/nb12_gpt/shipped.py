"""The shipped models and their measurements, as written by ``python -m attnlab.lessons.nb12_gpt``
(training.retrain_and_measure).

    pretrained()             the model trained on the course's prose: 4 query heads, 4 key/value heads
    pretrained(kv_heads=2)   the same converted to grouped-query attention (2 key/value heads), fine-tuned
    pretrained(kv_heads=1)   ... to multi-query attention (1 key/value head), fine-tuned
    measured()               results.json: loss curves, bits per character, timings, induction heads
"""

from ...core import checks, stored
from ...core.gpt import shipped
from .checkpoints import CHECKPOINTS, RESULTS

__all__ = ["load_unchecked", "measured", "pretrained"]


@checks.arguments(kv_heads=checks.Optional(checks.Choice(tuple(CHECKPOINTS))))
def pretrained(kv_heads=None):
    """A shipped model in eval mode (float32): ``kv_heads`` None or 4 (as many key/value heads as query
    heads), 2 (GQA) or 1 (MQA)."""
    return load_unchecked(4 if kv_heads is None else kv_heads)


def load_unchecked(kv_heads):
    """A fresh GPT with the checkpoint of ``kv_heads`` (4, 2 or 1) read from disk, float32, eval mode
    (attnlab.core.gpt.shipped, where the checkpoints sit)."""
    return shipped.load_unchecked(kv_heads)


def measured():
    """What retraining the shipped models measured (results.json), a fresh dict on each call."""
    return stored.measured(RESULTS)
