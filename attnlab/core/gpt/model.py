"""The course's GPT (notebook 12 trains it, notebook 13 reads it): a decoder-only causal stack of pre-LN blocks,
built from attnlab's parts -- RoPE (core.positional), head splitting and the attention kernel (core.multihead,
core.attention), the KV cache (core.transformer.KVCache).

Shape legend: B batch, T positions, D model width (d_model), H query heads, K key/value heads
(kv_heads), G = H / K query heads per key/value head, d = D / H the head size, V the vocabulary.

Grouped-query attention (GQA, 分组查询注意力): the H query heads share K key/value heads, query head h
reading key/value head h // G (the order of torch's ``enable_gqa=True``). K = H is ordinary multi-head
attention (MHA), K = 1 multi-query attention (MQA). Only the K key/value heads are projected and cached,
so the cache holds layers x 2 x K x d numbers per position.

Block (pre-LN):  X = X + Attention(LN(X));  X = X + FFN(LN(X)),  FFN = Linear(D, 4D) GELU Linear(4D, D).
Logits: LN(X) times the token embedding, transposed (tied input and output embeddings).
"""
import math

import torch
from torch import nn

from .. import checks
from ..attention import attend_unchecked
from ..multihead import merge_unchecked, split_unchecked
from ..positional import rope_unchecked
from ..transformer import KVCache

__all__ = ["ROPE_BASE", "Block", "GPT", "GroupedQueryAttention", "new_caches"]

ROPE_BASE = 10000.0


class GroupedQueryAttention(nn.Module):
    """Causal self-attention with ``heads`` query heads and ``kv_heads`` key/value heads, RoPE on
    queries and keys. forward(X (B, T, D), cache=None, need_weights=False) -> (B, T, D); with a KVCache
    the T new positions follow the len(cache) cached ones, and their keys and values are appended.
    ``.attention_weights``: (B, H, T, Tk) after a call with need_weights=True. ``keep`` (H,) scales each
    head's output (1 kept, 0 ablated)."""

    def __init__(self, d_model, heads, kv_heads):
        super().__init__()
        self.heads, self.kv_heads, self.head_size = heads, kv_heads, d_model // heads
        self.W_q = nn.Linear(d_model, d_model, bias=False)
        self.W_k = nn.Linear(d_model, kv_heads * self.head_size, bias=False)
        self.W_v = nn.Linear(d_model, kv_heads * self.head_size, bias=False)
        self.W_o = nn.Linear(d_model, d_model, bias=False)
        self.register_buffer("keep", torch.ones(heads), persistent=False)
        self.attention_weights = None

    def forward(self, X, cache=None, need_weights=False):
        B, T, D = X.shape
        start = 0 if cache is None else len(cache)
        positions = torch.arange(start, start + T, dtype=torch.float64)
        q = rope_unchecked(split_unchecked(self.W_q(X), self.heads), positions, ROPE_BASE)     # (B, H, T, d)
        k = rope_unchecked(split_unchecked(self.W_k(X), self.kv_heads), positions, ROPE_BASE)  # (B, K, T, d)
        v = split_unchecked(self.W_v(X), self.kv_heads)                                        # (B, K, T, d)
        if cache is not None:
            cache.keys = k if cache.keys is None else torch.cat([cache.keys, k], dim=-2)       # (B, K, Tk, d)
            cache.values = v if cache.values is None else torch.cat([cache.values, v], dim=-2)
            k, v = cache.keys, cache.values
        Tk = k.shape[-2]
        group = self.heads // self.kv_heads
        k = k.repeat_interleave(group, dim=1)                                                  # (B, H, Tk, d)
        v = v.repeat_interleave(group, dim=1)                                                  # (B, H, Tk, d)
        mask = None                                # one new position sees every cached key: no mask
        if T > 1:                                  # query i (position start + i) sees keys 0 .. start + i
            mask = torch.arange(Tk)[None, :] <= torch.arange(start, start + T)[:, None]        # (T, Tk)
        out, self.attention_weights = attend_unchecked(q, k, v, mask, 1.0 / math.sqrt(self.head_size),
                                                       need_weights=need_weights)              # (B, H, T, d)
        out = out * self.keep[:, None, None].to(out.dtype)
        return self.W_o(merge_unchecked(out))                                                  # (B, T, D)


class Block(nn.Module):
    """One pre-LN decoder block: X + Attention(LN(X)), then X + FFN(LN(X))."""

    def __init__(self, d_model, heads, kv_heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attention = GroupedQueryAttention(d_model, heads, kv_heads)
        self.norm2 = nn.LayerNorm(d_model)
        self.ffn = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, X, cache=None, need_weights=False):
        X = X + self.attention(self.norm1(X), cache, need_weights)                             # (B, T, D)
        return X + self.ffn(self.norm2(X))                                                     # (B, T, D)


class GPT(nn.Module):
    """The decoder-only model: forward(tokens (B, T) int, caches=None, need_weights=False) -> logits
    (B, T, V). ``caches``: one KVCache per layer (``new_caches(model)``), updated in place. ``config``
    holds the constructor's arguments. Parameters are drawn from a generator seeded with ``seed``
    (normal, std 0.02; the residual outputs W_o and the FFN's second layer 0.02 / sqrt(2 layers))."""

    @checks.arguments(vocab_size=checks.Int(1), d_model=checks.Int(2, 4096), heads=checks.Int(1, 64),
                      kv_heads=checks.Optional(checks.Int(1, 64)), layers=checks.Int(1, 32),
                      context=checks.Int(1, 65536), seed=checks.Int(0))
    def __init__(self, vocab_size, *, d_model=128, heads=4, kv_heads=None, layers=4, context=256, seed=0):
        super().__init__()
        kv_heads = heads if kv_heads is None else kv_heads
        if d_model % heads or (d_model // heads) % 2:
            raise checks.error("d_model", f"a multiple of heads={heads} with an even head size (RoPE turns pairs)",
                               d_model)
        if heads % kv_heads:
            raise checks.error("kv_heads", f"a divisor of heads={heads}", kv_heads)
        self.config = dict(vocab_size=vocab_size, d_model=d_model, heads=heads, kv_heads=kv_heads, layers=layers,
                           context=context, seed=seed)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList(Block(d_model, heads, kv_heads) for _ in range(layers))
        self.norm = nn.LayerNorm(d_model)
        generator = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name.endswith("bias"):
                    p.zero_()
                elif "norm" in name:
                    p.fill_(1.0)
                else:
                    residual = name.endswith(("W_o.weight", "ffn.2.weight"))
                    p.normal_(0.0, 0.02 / math.sqrt(2 * layers) if residual else 0.02, generator=generator)

    def forward(self, tokens, caches=None, need_weights=False):
        X = self.embed(tokens)                                                                 # (B, T, D)
        for i, block in enumerate(self.blocks):
            X = block(X, None if caches is None else caches[i], need_weights)
        return self.norm(X) @ self.embed.weight.T                                              # (B, T, V)

    def attention(self):
        """The attention weights of the last call with need_weights=True: one (B, H, T, Tk) per layer."""
        return [b.attention.attention_weights for b in self.blocks]


def new_caches(model):
    """One empty KVCache per layer of ``model``."""
    return [KVCache() for _ in model.blocks]
