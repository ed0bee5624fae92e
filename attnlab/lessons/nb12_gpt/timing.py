"""The KV cache, timed (notebook 12, section 5): seconds to produce the next character after ``length``
characters, with the cache (one new position through the model, attending to ``length`` cached keys)
and without (all ``length`` positions through the model again).

Each measurement is the median of ``repeats`` runs on one CPU thread (time.perf_counter, wall clock), so
it depends on the machine and on what else runs on it; the ratio between the two is what to read.
"""
import statistics
import time

import torch

from ...core import checks
from ...ui.trainer import one_thread
from .model import GPT, new_caches

__all__ = ["step_seconds"]


@checks.arguments(model=checks.Instance(GPT, "a GPT (e.g. pretrained())"), lengths=checks.Items(checks.Int(1), min_len=1),
                  cache=checks.Flag(), repeats=checks.Int(1, 100))
def step_seconds(model, lengths=(16, 64, 128, 255), *, cache=True, repeats=5):
    """For each length n in ``lengths`` (1 <= n < context): the median seconds to compute the logits of
    position n + 1 given n positions, with the KV cache (``cache=True``) or without. A list of floats."""
    context = model.config["context"]
    for n in lengths:
        if n >= context:
            raise checks.error("lengths", f"each length < context={context}", n)
    out = []
    was = model.training
    model.eval()
    with torch.no_grad(), one_thread():
        for n in lengths:
            tokens = torch.arange(n + 1)[None] % model.config["vocab_size"]                     # (1, n + 1)
            times = []
            for _ in range(repeats):
                if cache:
                    caches = new_caches(model)
                    model(tokens[:, :n], caches)                                                 # the prompt, untimed
                    t0 = time.perf_counter()
                    model(tokens[:, n:], caches)                                                 # one new position
                else:
                    t0 = time.perf_counter()
                    model(tokens)                                                                # all n + 1 again
                times.append(time.perf_counter() - t0)
            out.append(statistics.median(times))
    model.train(was)
    return out
