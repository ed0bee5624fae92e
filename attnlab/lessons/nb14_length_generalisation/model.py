"""One small causal Transformer, five ways to tell it where each token is (notebook 14).

Shape legend: B batch, T positions, D model width, H heads, d = D / H the head size, V the vocabulary.

Block (pre-LN, as GPT-2 and notebook 12):  X = X + Attention(LN(X));  X = X + FFN(LN(X)),
FFN = Linear(D, 2D) GELU Linear(2D, D). The encodings differ in one place each:

    "nope"        nothing: the causal mask is the only source of order (Kazemnejad et al. 2023)
    "learned"     one learned vector per position added to the token embeddings, TRAIN_LENGTH rows
    "sinusoidal"  attnlab.core's sinusoidal P added to the token embeddings (notebook 06)
    "rope"        attnlab.core's rotary encoding of queries and keys (notebook 06's sign convention)
    "alibi"       a fixed penalty -m_h (i - j) added to head h's scores (Press et al. 2022)

``scale`` multiplies the positions RoPE turns by: scale = TRAIN_LENGTH / n is position interpolation
(Chen et al. 2023), which squeezes n positions into the range trained on.
"""
import math

import torch
from torch import nn

from ...core import checks
from ...core.masking import causal_unchecked, softmax_unchecked
from ...core.multihead import merge_unchecked, split_unchecked
from ...core.positional import rope_unchecked, sinusoidal_encoding
from .data import TRAIN_LENGTH, VOCAB

__all__ = ["ENCODINGS", "MODEL", "ROPE_BASE", "Block", "CausalAttention", "Decoder", "alibi_bias", "alibi_bias_unchecked",
           "alibi_slopes", "check_length", "largest_angles", "run_unchecked"]

ENCODINGS = ("nope", "learned", "sinusoidal", "rope", "alibi")
ROPE_BASE = 10000.0
MODEL = dict(width=64, heads=4, layers=3, ffn=128)       # the one model of the notebook, whatever the encoding


def alibi_slopes(heads):
    """Press et al.'s slopes m_h, h = 1 .. heads: the geometric sequence 2^(-8/H), 2^(-16/H), ..., 2^(-8) for H a
    power of 2; otherwise the slopes of the power of 2 just below H, then every other slope of twice that
    power until there are H (their code, ``get_slopes``). Float64 tensor (heads,)."""
    heads = checks.count(heads, "heads", low=1, high=1024)
    return _slopes(heads)


def _slopes(heads):
    def power_of_two(n):
        return [2.0 ** (-8.0 * (h + 1) / n) for h in range(n)]
    below = 2 ** int(math.floor(math.log2(heads)))
    slopes = power_of_two(below)
    if below < heads:
        slopes += power_of_two(2 * below)[0::2][: heads - below]
    return torch.tensor(slopes, dtype=torch.float64)


@checks.arguments(heads=checks.Int(1, 1024), length=checks.Int(1, 4096))
def alibi_bias(heads, length):
    """ALiBi's bias (heads, length, length), float32: entry (h, i, j) = -m_h (i - j) for a key j at or before the
    query i, the penalty growing with the distance (Press et al. 2022, eq. of section 3); 0 above the diagonal,
    where the causal mask hides the keys anyway."""
    return alibi_bias_unchecked(heads, length).float()


def alibi_bias_unchecked(heads, length):
    """``alibi_bias`` in float64, for checked arguments."""
    i = torch.arange(length, dtype=torch.float64)
    behind = (i[None, :] - i[:, None]).clamp(max=0)                      # (T, T): j - i = -(i - j) for j <= i, else 0
    return _slopes(heads)[:, None, None] * behind                        # (H, T, T)


def largest_angles(num_positions, width):
    """For each column pair j of a width ``width`` (ω_j = ROPE_BASE^(-2j/width), the frequencies of the sinusoidal
    P and of RoPE), the largest angle (num_positions - 1) ω_j, in radians, that positions (or offsets) 0 ..
    num_positions - 1 turn it by: float64 (ceil(width / 2),)."""
    omega = ROPE_BASE ** (-torch.arange(0, width, 2, dtype=torch.float64) / width)
    return (num_positions - 1) * omega


class CausalAttention(nn.Module):
    """Causal multi-head self-attention with the lesson's encoding of positions inside it (RoPE, ALiBi) or
    none. forward(X (B, T, D), scale) -> ((B, T, D), weights (B, H, T, T))."""

    def __init__(self, width, heads, encoding):
        super().__init__()
        self.heads, self.encoding = heads, encoding
        self.W_q = nn.Linear(width, width, bias=False)
        self.W_k = nn.Linear(width, width, bias=False)
        self.W_v = nn.Linear(width, width, bias=False)
        self.W_o = nn.Linear(width, width, bias=False)

    def forward(self, X, scale=1.0):
        B, T, D = X.shape
        q = split_unchecked(self.W_q(X), self.heads)                      # (B, H, T, d)
        k = split_unchecked(self.W_k(X), self.heads)                      # (B, H, T, d)
        v = split_unchecked(self.W_v(X), self.heads)                      # (B, H, T, d)
        if self.encoding == "rope":
            positions = torch.arange(T, dtype=torch.float64) * scale
            q, k = rope_unchecked(q, positions, ROPE_BASE), rope_unchecked(k, positions, ROPE_BASE)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])          # (B, H, T, T)
        if self.encoding == "alibi":
            scores = scores + alibi_bias_unchecked(self.heads, T).to(scores.dtype)
        weights = softmax_unchecked(scores, causal_unchecked(T, T))       # (B, H, T, T)
        return self.W_o(merge_unchecked(weights @ v)), weights            # (B, T, D)


class Block(nn.Module):
    """One pre-LN block: X + Attention(LN(X)), then X + FFN(LN(X))."""

    def __init__(self, width, heads, ffn, encoding):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.attention = CausalAttention(width, heads, encoding)
        self.ffn = nn.Sequential(nn.Linear(width, ffn), nn.GELU(), nn.Linear(ffn, width))

    def forward(self, X, scale=1.0):
        out, weights = self.attention(self.norm1(X), scale)
        X = X + out
        return X + self.ffn(self.norm2(X)), weights


class Decoder(nn.Module):
    """The lesson's model: token embedding (+ positions for "learned" and "sinusoidal"), ``layers`` blocks,
    LN, a linear read-out to the vocabulary. ``model(tokens (B, T))`` -> logits (B, T, V), row t predicting
    token t + 1; ``model.attention(tokens)`` -> weights (layers, B, H, T, T). Built from ``seed`` alone."""

    @checks.arguments(encoding=checks.Choice(ENCODINGS), seed=checks.Int(0), width=checks.Int(2, 4096),
                      heads=checks.Int(1, 64), layers=checks.Int(1, 12), ffn=checks.Int(1, 16384),
                      max_length=checks.Int(1, 4096))
    def __init__(self, encoding, *, seed=0, width=MODEL["width"], heads=MODEL["heads"], layers=MODEL["layers"],
                 ffn=MODEL["ffn"], max_length=TRAIN_LENGTH):
        super().__init__()
        if width % heads or (encoding == "rope" and (width // heads) % 2):
            raise checks.error("width", f"a multiple of heads={heads} with an even head size for RoPE, got {width}")
        self.encoding = encoding
        self.config = dict(encoding=encoding, width=width, heads=heads, layers=layers, ffn=ffn, max_length=max_length)
        with torch.random.fork_rng():
            torch.manual_seed(seed)
            self.embed = nn.Embedding(VOCAB, width)
            self.position = nn.Parameter(torch.randn(max_length, width)) if encoding == "learned" else None
            self.blocks = nn.ModuleList([Block(width, heads, ffn, encoding) for _ in range(layers)])
            self.norm = nn.LayerNorm(width)
            self.unembed = nn.Linear(width, VOCAB)

    def forward(self, tokens, *, scale=1.0):
        check_length(self, _tokens(tokens).shape[1], "tokens")
        return run_unchecked(self, tokens, scale)[0]

    def attention(self, tokens, *, scale=1.0):
        """The weights of every head of every layer on ``tokens`` (B, T): (layers, B, H, T, T)."""
        check_length(self, _tokens(tokens).shape[1], "tokens")
        with torch.no_grad():
            return torch.stack(run_unchecked(self, tokens, scale)[1])


def _tokens(tokens):
    checks.tensor(tokens, "tokens", dims=2, floating=False, integer=True)
    if tokens.numel() and (tokens.min() < 0 or tokens.max() >= VOCAB):
        bad = tokens[(tokens < 0) | (tokens >= VOCAB)][0].item()
        raise checks.error("tokens", f"token ids in 0..{VOCAB - 1}, got {bad}")
    return tokens


def check_length(model, length, name="length"):
    """A ValueError naming ``name`` when ``model`` cannot represent ``length`` positions: a learned table has
    max_length rows and no row for any later position. Every other encoding takes any length."""
    if model.encoding == "learned" and length > model.config["max_length"]:
        rows = model.config["max_length"]
        raise checks.error(name, f"at most {rows} positions (a learned model has one position vector per position "
                                 f"it trained on: {rows} rows, no row for position {rows} or later)", length)
    return length


def run_unchecked(model, tokens, scale=1.0):
    """The model on ``tokens`` (B, T): (logits (B, T, V), [weights (B, H, T, T) per layer])."""
    T = tokens.shape[1]
    X = model.embed(tokens)                                               # (B, T, D)
    if model.encoding == "learned":
        X = X + model.position[:T]
    elif model.encoding == "sinusoidal":
        X = X + sinusoidal_encoding(T, X.shape[-1], dtype=X.dtype)
    patterns = []
    for block in model.blocks:
        X, weights = block(X, scale)
        patterns.append(weights)
    return model.unembed(model.norm(X)), patterns                        # (B, T, V)
