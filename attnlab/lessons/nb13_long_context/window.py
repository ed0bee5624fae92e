"""Sliding-window attention and the rolling KV cache (notebook 13, 13_long_context.ipynb).

A sliding window of w lets position t attend to positions t - w + 1 ... t only: the band mask of notebook 07
(``band_mask``), made causal. With ``sinks`` = k > 0 the first k positions stay visible too (StreamingLLM's
attention sinks, Xiao et al. 2023), and the band shrinks to w - k newest positions, so that a query still
sees at most w keys: keys j <= t with j < k or t - j < w - k.

Receptive field: one layer moves information at most w - 1 positions back, so after L layers position t has
heard from t - L (w - 1) on (``receptive_field``): Mistral 7B's 32 layers with w = 4,096 reach about 131k
positions back (its paper's arithmetic).

The rolling cache (``RollingCache``) keeps only the w keys and values a new position may see, in a ring
buffer of w slots: position n goes to slot n mod w (with k sinks: slots 0 ... k-1 hold the first k
positions for good, and position n >= k goes to k + (n - k) mod (w - k)). Keys are stored after RoPE, turned
for their own position: RoPE's score depends only on the offset between query and key (notebook 06), so a
key turned once stays right for every later query, and its slot never has to know where it sits. Its bytes,
layers x 2 x kv_heads x head size x w x 4 (float32), do not grow with the text.

``windowed_logits`` runs a course GPT (attnlab.core.gpt) on a whole sequence with the band mask;
``rolling_logits`` runs it one position at a time with the rolling cache; the two agree to round-off (the
tests also check both against torch's scaled_dot_product_attention with the same mask). ``generate_windowed``
writes text with the rolling cache, past the model's context if asked: every offset a query meets is < w.

Shape legend: T positions, D model width, H query heads, K key/value heads, d head size, V vocabulary.
"""
import math
from typing import NamedTuple

import torch

from ...core import checks
from ...core.attention import attend_unchecked
from ...core.gpt import corpus
from ...core.gpt.model import GPT, ROPE_BASE
from ...core.multihead import merge_unchecked, split_unchecked
from ...core.positional import rope_unchecked
from ...ui.trainer import one_thread

__all__ = ["MAX_STEPS", "RollingCache", "WindowedGeneration", "band_mask", "band_mask_unchecked", "generate_windowed",
           "ring_slot", "receptive_field", "rolling_logits", "rolling_logits_unchecked", "windowed_logits",
           "windowed_logits_unchecked"]

MAX_STEPS = 4096              # generate_windowed's limit: the window makes any length possible; this keeps it quick
_MODEL = checks.Instance(GPT, "a course GPT (attnlab.core.gpt.GPT, e.g. notebook 12's model)")


def _window_and_sinks(window, sinks, limit=None, why=None):
    window = checks.count(window, "window", low=1, high=limit, why=why)
    sinks = checks.count(sinks, "sinks", high=window - 1, why="a window keeps its newest position besides its sinks")
    return window, sinks


def band_mask_unchecked(length, window, sinks=0):
    """``band_mask`` for checked arguments."""
    t = torch.arange(length)[:, None]                                             # query positions (T, 1)
    j = torch.arange(length)[None, :]                                             # key positions (1, T)
    return (j <= t) & ((t - j < window - sinks) | (j < sinks))                    # (T, T)


@checks.arguments(length=checks.Int(1, 16384))
def band_mask(length, window, sinks=0):
    """The causal sliding-window mask (T, T) bool, True = may attend: query t sees key j when j <= t and
    t - j < window - sinks, or j < sinks (the first ``sinks`` positions, kept). At most ``window`` keys each."""
    window, sinks = _window_and_sinks(window, sinks)
    return band_mask_unchecked(length, window, sinks)


@checks.arguments(window=checks.Int(1), layers=checks.Int(1, 64), length=checks.Int(1, 2048))
def receptive_field(window, layers, length):
    """Who reaches whom through a stack of sliding-window layers: (layers, length, length) bool, [l, t, j] True
    when position j's information can reach position t after l + 1 layers (each layer's causal band of
    ``window``). Closed form: t - l' (window - 1) <= j <= t after l' layers (the tests check it)."""
    band = band_mask_unchecked(length, window).to(torch.int64)                   # (T, T) one layer
    out = [band.bool()]
    for _ in range(layers - 1):
        out.append((band @ out[-1].to(torch.int64)) > 0)                          # t sees m, m has heard j
    return torch.stack(out)                                                       # (L, T, T)


def ring_slot(n, window, sinks=0):
    """The slot of a RollingCache that position ``n`` (from 0) is written to: n itself while n < sinks, then
    sinks + (n - sinks) mod (window - sinks)."""
    return n if n < sinks else sinks + (n - sinks) % (window - sinks)


class RollingCache:
    """A ring buffer of ``window`` positions per layer (float32, or ``dtype``): keys and values (kv_heads,
    head_dim) each.

    ``append(layer, k, v)`` writes one position; ``keys(layer)``, ``values(layer)``: (kv_heads, held, head_dim),
    oldest first, held = min(appended, window); ``positions(layer)``: the held positions (from 0), in the same
    order. With ``sinks`` = k, the first k positions are kept for good and the other window - k slots roll.
    ``nbytes`` = layers x 2 x kv_heads x head_dim x window x 4 (float32), however many positions were appended.
    """

    @checks.arguments(window=checks.Int(1, 65536), layers=checks.Int(1, 64), kv_heads=checks.Int(1, 256),
                      head_dim=checks.Int(1, 4096))
    def __init__(self, window, layers, kv_heads, head_dim, *, sinks=0, dtype=torch.float32):
        self.window, self.sinks = _window_and_sinks(window, sinks)
        dtype = checks.choice(dtype, "dtype", (torch.float32, torch.float64))
        checks.fits((layers, 2, kv_heads, window, head_dim), 8, "window", "a rolling cache")
        self.layers, self.kv_heads, self.head_dim = layers, kv_heads, head_dim
        self._keys = torch.zeros(layers, kv_heads, window, head_dim, dtype=dtype)   # (L, K, w, d)
        self._values = torch.zeros(layers, kv_heads, window, head_dim, dtype=dtype)
        self._appended = [0] * layers

    def _layer(self, layer):
        return checks.count(layer, "layer", high=self.layers - 1, why="the cache's layers, from 0")

    def append(self, layer, k, v):
        """Write one position's key and value, (kv_heads, head_dim) each, into ``layer``'s next slot."""
        layer = self._layer(layer)
        for name, x in (("k", k), ("v", v)):
            checks.tensor(x, name, dims=2)
            if tuple(x.shape) != (self.kv_heads, self.head_dim):
                raise checks.error(name, f"shape (kv_heads, head_dim) = ({self.kv_heads}, {self.head_dim}), "
                                 f"got {tuple(x.shape)}")
        self.append_unchecked(layer, k, v)

    def append_unchecked(self, layer, k, v):
        """``append`` for checked arguments."""
        slot = ring_slot(self._appended[layer], self.window, self.sinks)
        self._keys[layer, :, slot] = k
        self._values[layer, :, slot] = v
        self._appended[layer] += 1

    def __len__(self):
        """Positions appended to layer 0 (all of them, not only the held ones)."""
        return self._appended[0]

    def _order(self, layer):
        """Slots oldest first: the sinks, then the rolling slots from the next to be overwritten."""
        n, k, w = self._appended[layer], self.sinks, self.window
        if n <= w:
            return list(range(n))
        nxt = ring_slot(n, w, k)                                                  # the oldest rolling slot
        return list(range(k)) + list(range(nxt, w)) + list(range(k, nxt))

    def keys(self, layer):
        """(kv_heads, held, head_dim), oldest first (a copy)."""
        return self._keys[self._layer(layer)][:, self._order(layer)]

    def values(self, layer):
        """(kv_heads, held, head_dim), oldest first (a copy)."""
        return self._values[self._layer(layer)][:, self._order(layer)]

    def positions(self, layer):
        """The held positions, oldest first: a list of ints."""
        layer = self._layer(layer)
        n, k, w = self._appended[layer], self.sinks, self.window
        return list(range(n)) if n <= w else list(range(k)) + list(range(n - (w - k), n))

    @property
    def nbytes(self):
        """The buffer's bytes: layers x 2 x kv_heads x head_dim x window x 4."""
        return self._keys.nbytes + self._values.nbytes


def _attention_step(attention, Xn, positions, keys, values, mask, need_weights=False):
    """One GroupedQueryAttention of a course GPT on normalised inputs Xn (B, T, D) at ``positions`` (T,), its
    queries against ``keys``/``values`` (B, K, Tk, d) under ``mask`` (T, Tk) or None: (B, T, D), and the weights
    (B, H, T, Tk) when ``need_weights`` (else None: torch's fused attention, no weights kept)."""
    group = attention.heads // attention.kv_heads
    q = rope_unchecked(split_unchecked(attention.W_q(Xn), attention.heads), positions, ROPE_BASE)  # (B, H, T, d)
    keys, values = keys.repeat_interleave(group, dim=1), values.repeat_interleave(group, dim=1)   # (B, H, Tk, d)
    out, weights = attend_unchecked(q, keys, values, mask, 1.0 / math.sqrt(attention.head_size),
                                    need_weights=need_weights)
    return attention.W_o(merge_unchecked(out)), weights                                       # (B, T, D)


def windowed_logits_unchecked(model, tokens, window, sinks, need_weights=False):
    """``windowed_logits`` for checked arguments: (logits (B, T, V), [weights (B, H, T, T) per layer] or None)."""
    B, T = tokens.shape
    positions = torch.arange(T, dtype=torch.float64)
    mask = band_mask_unchecked(T, window, sinks)
    X = model.embed(tokens)                                                                   # (B, T, D)
    patterns = []
    for block in model.blocks:
        a = block.attention
        Xn = block.norm1(X)
        k = rope_unchecked(split_unchecked(a.W_k(Xn), a.kv_heads), positions, ROPE_BASE)       # (B, K, T, d)
        v = split_unchecked(a.W_v(Xn), a.kv_heads)                                            # (B, K, T, d)
        out, weights = _attention_step(a, Xn, positions, k, v, mask, need_weights)
        patterns.append(weights)
        X = X + out
        X = X + block.ffn(block.norm2(X))                                                     # (B, T, D)
    return model.norm(X) @ model.embed.weight.T, (patterns if need_weights else None)          # (B, T, V)


@checks.arguments(model=_MODEL, tokens=checks.Tensor(dims=2, floating=False, integer=True))
def windowed_logits(model, tokens, *, window, sinks=0, need_weights=False):
    """Run ``model`` on ``tokens`` (B, T) with every layer's attention limited to the sliding window (and the
    first ``sinks`` positions): logits (B, T, V). With need_weights=True: (logits, [weights (B, H, T, T) per
    layer]). window >= T gives the model's own causal forward."""
    window, sinks = _window_and_sinks(window, sinks)
    checks.flag(need_weights, "need_weights")
    V = model.config["vocab_size"]
    if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= V):
        raise checks.error("tokens", f"ids in [0, {V - 1}] (the model's vocabulary), got {int(tokens.min())}.."
                         f"{int(tokens.max())}")
    with torch.no_grad(), one_thread():
        logits, weights = windowed_logits_unchecked(model, tokens, window, sinks, need_weights)
    return (logits, weights) if need_weights else logits


def rolling_logits_unchecked(model, ids, window, sinks, cache=None):
    """Feed the token ids one at a time through ``model`` with a RollingCache: (logits (len(ids), V), cache).
    Position n's query is turned for n, its key too, stored at ring_slot(n); it attends to the cache's held
    keys (the window) with no mask."""
    c = model.config
    if cache is None:
        cache = RollingCache(window, c["layers"], c["kv_heads"], c["d_model"] // c["heads"], sinks=sinks,
                             dtype=model.embed.weight.dtype)
    out = []
    for token in ids:
        n = len(cache)
        positions = torch.tensor([float(n)], dtype=torch.float64)
        X = model.embed(torch.tensor([[token]]))                                              # (1, 1, D)
        for layer, block in enumerate(model.blocks):
            a = block.attention
            Xn = block.norm1(X)
            k = rope_unchecked(split_unchecked(a.W_k(Xn), a.kv_heads), positions, ROPE_BASE)   # (1, K, 1, d)
            v = split_unchecked(a.W_v(Xn), a.kv_heads)
            cache.append_unchecked(layer, k[0, :, 0], v[0, :, 0])
            keys, values = cache.keys(layer)[None], cache.values(layer)[None]                 # (1, K, held, d)
            attended, _ = _attention_step(a, Xn, positions, keys, values, None)
            X = X + attended
            X = X + block.ffn(block.norm2(X))
        out.append((model.norm(X) @ model.embed.weight.T)[0, 0])                              # (V,)
    return torch.stack(out), cache


@checks.arguments(model=_MODEL, tokens=checks.Tensor(dims=1, floating=False, integer=True))
def rolling_logits(model, tokens, *, window, sinks=0):
    """Run ``model`` over ``tokens`` (T,) one position at a time with a RollingCache of ``window`` (and
    ``sinks``): logits (T, V), equal to windowed_logits' to round-off."""
    window, sinks = _window_and_sinks(window, sinks)
    V = model.config["vocab_size"]
    if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= V):
        raise checks.error("tokens", f"ids in [0, {V - 1}] (the model's vocabulary), got {int(tokens.min())}.."
                         f"{int(tokens.max())}")
    with torch.no_grad(), one_thread():
        return rolling_logits_unchecked(model, tokens.tolist(), window, sinks)[0]


class WindowedGeneration(NamedTuple):
    """What ``generate_windowed`` returns: ``text`` the prompt plus the generated characters; ``logits``
    (steps, V) the raw next-character logits at each step; ``prompt``; ``window``, ``sinks``; ``cache_bytes``
    the rolling cache's bytes at the end (the same at any length)."""
    text: str
    logits: torch.Tensor
    prompt: str
    window: int
    sinks: int
    cache_bytes: int


@checks.arguments(model=_MODEL, prompt=checks.Text(), steps=checks.Int(0, MAX_STEPS),
                  seed=checks.Optional(checks.Int(0)))
def generate_windowed(model, prompt, steps, *, window, sinks=0, seed=None, temperature=None):
    """Continue ``prompt`` by ``steps`` characters with a sliding window of ``window`` positions (keeping the
    first ``sinks``) and a rolling KV cache: the prompt is fed one position at a time, then each step appends
    the chosen character. Greedy (the most probable character) unless ``temperature`` > 0 is given, then
    drawn from softmax(z / temperature) with a torch.Generator seeded with ``seed`` (None: a fresh seed).

    The text may run past the model's context: no query ever meets an offset of ``window`` or more.
    Returns WindowedGeneration(text, logits (steps, V), prompt, window, sinks, cache_bytes).
    Raises ValueError naming ``window`` (< 1 or above the model's context), ``sinks`` (> window - 1),
    ``prompt`` (empty or characters outside the vocabulary), ``steps``, ``temperature``.
    """
    window, sinks = _window_and_sinks(window, sinks, limit=model.config["context"], why="the model's context")
    if temperature is not None:
        temperature = checks.real(temperature, "temperature", positive=True)
    if not prompt:
        raise checks.error("prompt", "at least one character, got ''")
    known = set(corpus.vocab())
    unknown = "".join(dict.fromkeys(c for c in prompt if c not in known))
    if unknown:
        raise checks.error("prompt", f"characters of the vocabulary, got {len(unknown)} outside it: {unknown!r}")
    generator = torch.Generator()
    if seed is None:
        generator.seed()
    else:
        generator.manual_seed(seed)
    ids = corpus.encode(prompt)
    was = model.training
    model.eval()
    with torch.no_grad(), one_thread():
        logits, cache = rolling_logits_unchecked(model, ids, window, sinks)
        z = logits[-1]
        steps_logits = []
        for i in range(steps):
            steps_logits.append(z)
            if temperature is None:
                token = int(torch.argmax(z))
            else:
                p = torch.softmax(z.double() / temperature, dim=-1)
                token = int(torch.multinomial(p, 1, generator=generator))
            ids.append(token)
            if i + 1 < steps:                                     # the last character needs no next logits
                z = rolling_logits_unchecked(model, [token], window, sinks, cache)[0][-1]
    model.train(was)
    V = model.config["vocab_size"]
    stacked = torch.stack(steps_logits) if steps_logits else torch.zeros(0, V)
    return WindowedGeneration(corpus.decode(ids), stacked, prompt, window, sinks, cache.nbytes)
