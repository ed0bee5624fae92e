"""A small GPT (notebook 12, 12_gpt.ipynb): the model itself is attnlab.core.gpt.model (GPT, Block,
GroupedQueryAttention, new_caches, re-exported here), shared with notebook 13; this module adds what
notebook 12 does to it: the conversion to fewer key/value heads and the ablation of one head.
"""
import copy

from ...core import checks
from ...core.gpt.model import GPT, ROPE_BASE, Block, GroupedQueryAttention, new_caches

__all__ = ["ROPE_BASE", "Block", "GPT", "GroupedQueryAttention", "ablate", "new_caches", "with_kv_heads"]


def with_kv_heads(model, kv_heads):
    """A copy of ``model`` with ``kv_heads`` key/value heads: each group's key and value projections
    mean-pooled into one (the conversion of Ainslie et al. 2023, before any fine-tuning)."""
    checks.instance(model, "model", GPT, "a GPT (e.g. pretrained())")
    heads, old = model.config["heads"], model.config["kv_heads"]
    kv_heads = checks.count(kv_heads, "kv_heads", low=1)
    if old != heads:
        raise checks.error("model", f"a multi-head model (kv_heads = heads = {heads}), got kv_heads={old}")
    if heads % kv_heads:
        raise checks.error("kv_heads", f"a divisor of heads={heads}, got {kv_heads}")
    out = GPT(**dict(model.config, kv_heads=kv_heads))
    state = dict(model.state_dict())
    d = model.config["d_model"] // heads
    for name in list(state):
        if name.endswith(("W_k.weight", "W_v.weight")):
            W = state[name]                                                                    # (H d, D)
            state[name] = W.reshape(kv_heads, heads // kv_heads, d, -1).mean(1).reshape(kv_heads * d, -1)
    out.load_state_dict(state)
    return out.train(model.training)


def ablate(model, layer, head):
    """A copy of ``model`` without query head ``head`` of layer ``layer`` (its output multiplied by 0)."""
    checks.instance(model, "model", GPT, "a GPT (e.g. pretrained())")
    layer = checks.count(layer, "layer", high=model.config["layers"] - 1)
    head = checks.count(head, "head", high=model.config["heads"] - 1)
    out = copy.deepcopy(model)
    out.blocks[layer].attention.keep[head] = 0.0
    return out
