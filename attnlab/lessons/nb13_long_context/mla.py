"""Multi-head latent attention (MLA, DeepSeek-AI 2024, "DeepSeek-V2", section 2.1), on the course's GPT
(notebook 13).

Keys and values of every head come from one small latent per position, c = x W_DKV (d_c numbers), and the
cache keeps c instead of the keys and values: per layer and position d_c + d_R numbers against 2 x kv_heads x
d for MHA/GQA/MQA.

    c = x W_DKV                         (d_c)           the latent, cached
    k_h = c W_UK,h ,  v_h = c W_UV,h    (d_nope), (d_v)  each head's content key and value, up-projected
    k_R = RoPE(x W_KR)                  (d_R)           ONE rotated key for all heads, cached (decoupled RoPE)
    q_h = [RoPE(x W_QR,h), x W_Q,h]     (d_R + d_nope)  each head's query: a rotated part and a content part
    score_h(t, j) = (q_R,h(t) . k_R(j) + q_h(t) . k_h(j)) / sqrt(d_R + d_nope)

Why a separate rotated key: RoPE turns q and k by their positions, R_t q . R_j k = q . R_{j-t} k. Without RoPE
the content score q_h . (c W_UK,h) = (q_h W_UK,h^T) . c, so W_UK,h can be multiplied into the query once and the
cached c used as it is ("absorbed"); with RoPE on k_h, a rotation that depends on j would sit between W_UK,h and
c, and every cached c would have to be up-projected again at every step. So position goes into a small extra
key, k_R, shared by the heads, and the content keys carry none. Likewise W_UV,h is absorbed into the output
projection: sum_j a_j v_h(j) W_O,h = (sum_j a_j c_j) (W_UV,h W_O,h). ``LatentAttention.forward(...,
absorbed=True)`` computes it that way; the tests check it equals the up-projected form.

Converting notebook 12's model (``convert``), after MHA2MLA (Ji et al. 2025): each head's 16 RoPE pairs are
split: the 8 fastest-turning pairs (the first 16 numbers of the head) keep RoPE, with their own frequencies,
as the rotated part (queries as they were; the shared k_R the mean of the four heads' rotated keys, as GQA
pools heads); the 8 slowest lose it and become the content part. Then one SVD of the stacked content-key and
value projections [W_K,nope; W_V] (192 x 128) gives W_DKV (its top d_c right singular vectors) and W_UK, W_UV
(the matching U S columns), the best rank-d_c approximation of both. A short fine-tune of the attention
weights (the rest of the model stays notebook 12's) repairs what the cut and the pooling lost.

Shape legend: B batch, T positions, D model width, H heads, d_c latent size, d_R rotated size, d_nope content
key size, d_v value size (d_R + d_nope = d_v = D / H, so scores are scaled as in the original model).
"""
import math

import torch
from torch import nn

from ...core import checks
from ...core.attention import attend_unchecked
from ...core.gpt.model import GPT, ROPE_BASE
from ...core.multihead import merge_unchecked, split_unchecked
from ...core.positional import rope_unchecked

__all__ = ["D_ROPE", "LatentAttention", "LatentBlock", "LatentCache", "LatentGPT", "cache_bytes_per_token",
           "cache_numbers_per_token", "convert", "held_bytes", "latent_spectrum"]

D_ROPE = 16                   # the rotated part of each query and the shared rotated key (half a head)


class LatentCache:
    """One layer's latent cache: ``latents`` (B, T, d_c) and ``rotated`` (B, T, d_R), the keys' rotated part
    already turned for its position."""

    def __init__(self):
        self.latents = None
        self.rotated = None

    def __len__(self):
        return 0 if self.latents is None else self.latents.shape[1]

    def append(self, c, k_rope):
        self.latents = c if self.latents is None else torch.cat([self.latents, c], dim=1)
        self.rotated = k_rope if self.rotated is None else torch.cat([self.rotated, k_rope], dim=1)


class LatentAttention(nn.Module):
    """Causal multi-head latent attention (see the module docstring). forward(X (B, T, D), cache=None,
    need_weights=False, absorbed=False) -> (B, T, D); with a LatentCache the T new positions follow the cached
    ones and their latents and rotated keys are appended. ``absorbed=True`` scores against the cached latents
    directly (W_UK in the query, W_UV in the output), as inference does."""

    def __init__(self, d_model, heads, latent, d_rope=D_ROPE):
        super().__init__()
        self.heads, self.latent, self.d_rope = heads, latent, d_rope
        self.head_size = d_model // heads                      # d_v = d_R + d_nope
        self.d_nope = self.head_size - d_rope
        self.rope_base = ROPE_BASE ** (d_rope / self.head_size)     # the head's fastest d_R / 2 frequencies
        self.W_q = nn.Linear(d_model, d_model, bias=False)     # per head: [rotated part (d_R), content part]
        self.W_dkv = nn.Linear(d_model, latent, bias=False)    # x -> c
        self.W_uk = nn.Linear(latent, heads * self.d_nope, bias=False)
        self.W_uv = nn.Linear(latent, heads * self.head_size, bias=False)
        self.W_kr = nn.Linear(d_model, d_rope, bias=False)     # x -> the shared rotated key
        self.W_o = nn.Linear(d_model, d_model, bias=False)
        self.attention_weights = None

    def queries(self, X, positions):
        """(rotated part (B, H, T, d_R), content part (B, H, T, d_nope))."""
        q = split_unchecked(self.W_q(X), self.heads)                                       # (B, H, T, d)
        return rope_unchecked(q[..., :self.d_rope], positions, self.rope_base), q[..., self.d_rope:]

    def forward(self, X, cache=None, need_weights=False, absorbed=False):
        B, T, D = X.shape
        start = 0 if cache is None else len(cache)
        positions = torch.arange(start, start + T, dtype=torch.float64)
        q_rope, q_nope = self.queries(X, positions)                                       # (B, H, T, d_R / d_nope)
        c = self.W_dkv(X)                                                                  # (B, T, d_c)
        k_rope = rope_unchecked(self.W_kr(X), positions, self.rope_base)                   # (B, T, d_R)
        if cache is not None:
            cache.append(c, k_rope)
            c, k_rope = cache.latents, cache.rotated                                        # (B, Tk, ...)
        Tk = c.shape[1]
        mask = None
        if T > 1:
            mask = torch.arange(Tk)[None, :] <= torch.arange(start, start + T)[:, None]     # (T, Tk)
        scale = 1.0 / math.sqrt(self.head_size)
        if absorbed:
            return self._absorbed(q_rope, q_nope, c, k_rope, mask, scale, need_weights)
        k_nope = split_unchecked(self.W_uk(c), self.heads)                                  # (B, H, Tk, d_nope)
        v = split_unchecked(self.W_uv(c), self.heads)                                       # (B, H, Tk, d_v)
        k = torch.cat([k_rope[:, None].expand(B, self.heads, Tk, self.d_rope), k_nope], dim=-1)   # (B, H, Tk, d)
        q = torch.cat([q_rope, q_nope], dim=-1)                                              # (B, H, T, d)
        out, self.attention_weights = attend_unchecked(q, k, v, mask, scale, need_weights=need_weights)
        return self.W_o(merge_unchecked(out))                                                 # (B, T, D)

    def absorbed_matrices(self):
        """W_UK per head (H, d_nope, d_c), for the query side, and W_UV,h W_O,h per head (H, d_c, D), for the
        output side."""
        uk = self.W_uk.weight.reshape(self.heads, self.d_nope, self.latent)                  # (H, d_nope, d_c)
        uv = self.W_uv.weight.reshape(self.heads, self.head_size, self.latent)               # (H, d_v, d_c)
        wo = self.W_o.weight.reshape(-1, self.heads, self.head_size).permute(1, 2, 0)         # (H, d_v, D)
        return uk, uv.transpose(1, 2) @ wo                                                    # (H, d_c, D)

    def _absorbed(self, q_rope, q_nope, c, k_rope, mask, scale, need_weights):
        uk, uvo = self.absorbed_matrices()
        q_latent = torch.einsum("bhtn,hnc->bhtc", q_nope, uk)                                # (B, H, T, d_c)
        q = torch.cat([q_rope, q_latent], dim=-1)                                            # (B, H, T, d_R + d_c)
        keys = torch.cat([k_rope, c], dim=-1)[:, None]                                      # (B, 1, Tk, d_R + d_c)
        mixed, self.attention_weights = attend_unchecked(q, keys, c[:, None], mask, scale,
                                                         need_weights=need_weights)        # (B, H, T, d_c)
        return torch.einsum("bhtc,hcd->btd", mixed, uvo)                                     # (B, T, D)


class LatentBlock(nn.Module):
    """A pre-LN block of the course GPT with latent attention."""

    def __init__(self, d_model, heads, latent, d_rope=D_ROPE):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attention = LatentAttention(d_model, heads, latent, d_rope)
        self.norm2 = nn.LayerNorm(d_model)
        self.ffn = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, X, cache=None, need_weights=False, absorbed=False):
        X = X + self.attention(self.norm1(X), cache, need_weights, absorbed)
        return X + self.ffn(self.norm2(X))


class LatentGPT(nn.Module):
    """The course GPT with multi-head latent attention: forward(tokens (B, T), caches=None, need_weights=False,
    absorbed=False) -> logits (B, T, V); ``caches`` one LatentCache per layer (``new_caches``). ``config``:
    the GPT's, with ``latent`` (d_c) and ``d_rope``."""

    def __init__(self, vocab_size, *, d_model=128, heads=4, layers=4, context=256, latent=32, d_rope=D_ROPE):
        super().__init__()
        self.config = dict(vocab_size=vocab_size, d_model=d_model, heads=heads, layers=layers, context=context,
                           latent=latent, d_rope=d_rope)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList(LatentBlock(d_model, heads, latent, d_rope) for _ in range(layers))
        self.norm = nn.LayerNorm(d_model)

    def forward(self, tokens, caches=None, need_weights=False, absorbed=False):
        X = self.embed(tokens)                                                              # (B, T, D)
        for i, block in enumerate(self.blocks):
            X = block(X, None if caches is None else caches[i], need_weights, absorbed)
        return self.norm(X) @ self.embed.weight.T                                           # (B, T, V)

    def new_caches(self):
        return [LatentCache() for _ in self.blocks]

    def attention(self):
        """The attention weights of the last call with need_weights=True: one (B, H, T, Tk) per layer."""
        return [b.attention.attention_weights for b in self.blocks]


def cache_numbers_per_token(model):
    """Numbers the cache keeps per position, over all layers: layers x (d_c + d_R) for a LatentGPT,
    layers x 2 x kv_heads x head size for a course GPT."""
    c = model.config
    if isinstance(model, LatentGPT):
        return c["layers"] * (c["latent"] + c["d_rope"])
    return c["layers"] * 2 * c["kv_heads"] * (c["d_model"] // c["heads"])


@checks.arguments(model=checks.Instance((GPT, LatentGPT), "a course GPT or a LatentGPT (e.g. latent(32))"))
def cache_bytes_per_token(model):
    """The cache's bytes per position over all layers, numbers as the model holds them (float32 here):
    ``cache_numbers_per_token(model)`` x 4. The same as the bytes a cache holds after n positions, over n."""
    return cache_numbers_per_token(model) * next(model.parameters()).element_size()


def convert(gpt, latent, d_rope=D_ROPE):
    """A LatentGPT from a multi-head course GPT (``GPT`` with kv_heads = heads), before any fine-tuning: the
    partial-RoPE split and the joint SVD of the module docstring. Everything but the attention is copied."""
    checks.instance(gpt, "gpt", GPT, "a course GPT (attnlab.core.gpt.GPT)")
    if gpt.config["kv_heads"] != gpt.config["heads"]:
        raise checks.error("gpt", f"a multi-head model (kv_heads = heads), got kv_heads={gpt.config['kv_heads']}")
    latent = checks.count(latent, "latent", low=1, high=gpt.config["d_model"])
    c = gpt.config
    H, d = c["heads"], c["d_model"] // c["heads"]
    out = LatentGPT(c["vocab_size"], d_model=c["d_model"], heads=H, layers=c["layers"], context=c["context"],
                    latent=latent, d_rope=d_rope)
    state = {k: v for k, v in gpt.state_dict().items() if ".attention." not in k}
    out.load_state_dict(state, strict=False)
    with torch.no_grad():
        for mine, theirs in zip(out.blocks, gpt.blocks):
            a, b = mine.attention, theirs.attention
            a.W_q.weight.copy_(b.W_q.weight)
            a.W_o.weight.copy_(b.W_o.weight)
            W_k = b.W_k.weight.reshape(H, d, -1)                                             # (H, d, D)
            a.W_kr.weight.copy_(W_k[:, :d_rope].mean(0))                                    # (d_R, D)
            stacked = torch.cat([W_k[:, d_rope:].reshape(-1, W_k.shape[-1]), b.W_v.weight]).double()   # (H d_nope + H d, D)
            U, S, Vh = torch.linalg.svd(stacked, full_matrices=False)
            up = (U[:, :latent] * S[:latent]).float()                                       # (H d_nope + H d, d_c)
            a.W_dkv.weight.copy_(Vh[:latent].float())                                       # (d_c, D)
            a.W_uk.weight.copy_(up[:H * (d - d_rope)])
            a.W_uv.weight.copy_(up[H * (d - d_rope):])
    return out.train(gpt.training)



def held_bytes(model, length):
    """The bytes the cache tensors hold after running ``length`` positions through ``model`` (a LatentGPT or a
    course GPT) with its cache: the first as a prompt, then one position at a time."""
    from ...core.gpt.model import new_caches
    caches = model.new_caches() if isinstance(model, LatentGPT) else new_caches(model)
    tokens = torch.zeros(1, length, dtype=torch.long)
    with torch.no_grad():
        model(tokens[:, :1], caches)
        for t in range(1, length):
            model(tokens[:, t:t + 1], caches)
    tensors = [t for c in caches for t in ((c.latents, c.rotated) if isinstance(c, LatentCache) else (c.keys, c.values))]
    return sum(t.numel() * t.element_size() for t in tensors)


def latent_spectrum(gpt, layer=0, d_rope=D_ROPE):
    """The singular values (float64, descending) of layer ``layer``'s stacked content-key and value projections
    [W_K,nope; W_V] of a multi-head course GPT: what ``convert`` cuts at d_c."""
    checks.instance(gpt, "gpt", GPT, "a course GPT (attnlab.core.gpt.GPT)")
    layer = checks.count(layer, "layer", high=gpt.config["layers"] - 1)
    b = gpt.blocks[layer].attention
    H, d = gpt.config["heads"], gpt.config["d_model"] // gpt.config["heads"]
    W_k = b.W_k.weight.detach().reshape(H, d, -1)
    stacked = torch.cat([W_k[:, d_rope:].reshape(H * (d - d_rope), -1), b.W_v.weight.detach()]).double()
    return torch.linalg.svdvals(stacked)
