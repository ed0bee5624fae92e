"""Transformer layers built from attnlab's MultiHeadAttention: the encoder layer (notebooks 09 and 10)
and the decoder layer with an optional KV cache (notebook 10).

Shape legend: B batch, T (Tq) target positions, S (Tk) source positions, D model width (num_hiddens),
H heads, F the FFN's hidden width.

Encoder layer, pre-norm (``norm_first=True``):          post-norm (the 2017 paper, d2l's AddNorm):
    X = X + SelfAttention(LN(X))                             X = LN(X + SelfAttention(X))
    X = X + FFN(LN(X))                                       X = LN(X + FFN(X))
Decoder layer adds, between the two, attention to the encoder's output (cross-attention), and its
self-attention is causal (position t sees targets 0..t only):
    Y = Y + CausalSelfAttention(LN(Y));  Y = Y + CrossAttention(LN(Y), memory);  Y = Y + FFN(LN(Y))
Both equal ``torch.nn.TransformerEncoderLayer`` / ``TransformerDecoderLayer`` (batch_first, ReLU,
dropout 0) with copied weights: ``torch_encoder_layer`` and ``torch_decoder_layer`` build those.

KV cache: while decoding one token at a time, the keys and values of the earlier positions do not
change, so ``DecoderLayer.step`` keeps them (projected, per head) in a ``KVCache`` and computes only the
new position's query, key and value; the query of the newest position sees every cached key (the
bottom-right aligned causal mask of a 1 x t block). Masks are bool with True = may attend.
"""
import math

import torch
from torch import nn

from . import checks
from .attention import attend_unchecked, scaled_dot_product_attention
from .masking import sequence_mask
from .multihead import MultiHeadAttention, merge_unchecked, split_unchecked


def _ffn(num_hiddens, ffn_hiddens):
    return nn.Sequential(nn.Linear(num_hiddens, ffn_hiddens), nn.ReLU(), nn.Linear(ffn_hiddens, num_hiddens))


class EncoderLayer(nn.Module):
    """One encoder layer: multi-head self-attention and a position-wise FFN, each in a residual
    connection with LayerNorm. ``residual=False`` or ``ffn=False`` build ablations.

    forward(X (B, T, D), valid_lens (B,) or None) -> (B, T, D); weights in ``self.attention.attention_weights``.
    """

    @checks.arguments(num_hiddens=checks.Int(1, 4096), num_heads=checks.Int(1), ffn_hiddens=checks.Int(1, 16384),
                       norm_first=checks.Flag(), bias=checks.Flag(), residual=checks.Flag(), ffn=checks.Flag())
    def __init__(self, num_hiddens, num_heads, ffn_hiddens, *, dropout=0.0, norm_first=True,
                 bias=True, residual=True, ffn=True):
        super().__init__()
        self.norm_first, self.residual, self.use_ffn = norm_first, residual, ffn
        self.attention = MultiHeadAttention(num_hiddens, num_hiddens, num_hiddens, num_hiddens,
                                            num_heads, dropout=dropout, bias=bias)
        self.norm1 = nn.LayerNorm(num_hiddens)
        self.ffn = _ffn(num_hiddens, ffn_hiddens) if ffn else None
        self.norm2 = nn.LayerNorm(num_hiddens) if ffn else None
        self.dropout = nn.Dropout(dropout)

    def _attend(self, X, valid_lens):
        return self.dropout(self.attention(X, X, X, valid_lens))                   # (B, T, D)

    def _feed(self, X):
        return self.dropout(self.ffn(X))                                          # (B, T, D)

    def forward(self, X, valid_lens=None):
        """X (B, T, D), valid_lens (B,) or None -> (B, T, D). Weights: ``self.attention.attention_weights``."""
        add = (lambda x, y: x + y) if self.residual else (lambda x, y: y)
        if self.norm_first:
            X = add(X, self._attend(self.norm1(X), valid_lens))
            if self.use_ffn:
                X = add(X, self._feed(self.norm2(X)))
        else:
            X = self.norm1(add(X, self._attend(X, valid_lens)))
            if self.use_ffn:
                X = self.norm2(add(X, self._feed(X)))
        return X


class KVCache:
    """One decoder layer's cache: the self-attention's keys and values so far (B, H, t, D/H) each, and
    the cross-attention's keys and values of the encoder's output (B, H, S, D/H), computed once."""

    def __init__(self):
        self.keys = None
        self.values = None
        self.memory_keys = None
        self.memory_values = None

    def __len__(self):
        """How many target positions are cached."""
        return 0 if self.keys is None else self.keys.shape[-2]


def _heads(linear, X, num_heads):
    return split_unchecked(linear(X), num_heads)                                      # (B, H, T, D/H)


class DecoderLayer(nn.Module):
    """One decoder layer: causal multi-head self-attention, cross-attention to the encoder's output
    (``memory``), a position-wise FFN; each in a residual connection with LayerNorm (pre- or post-norm).

    forward(Y (B, T, D), memory (B, S, D), memory_valid_lens (B,) or None) -> (B, T, D): every target
    position at once (training with teacher forcing). ``step`` does one new position with a KVCache.
    After each call, ``self.self_attention.attention_weights`` (B, H, T, T) and
    ``self.cross_attention.attention_weights`` (B, H, T, S) hold the weights.
    """

    @checks.arguments(num_hiddens=checks.Int(1, 4096), num_heads=checks.Int(1), ffn_hiddens=checks.Int(1, 16384),
                       norm_first=checks.Flag(), bias=checks.Flag())
    def __init__(self, num_hiddens, num_heads, ffn_hiddens, *, dropout=0.0, norm_first=True, bias=True):
        super().__init__()
        self.norm_first = norm_first
        mha = lambda: MultiHeadAttention(num_hiddens, num_hiddens, num_hiddens, num_hiddens, num_heads,
                                         dropout=dropout, bias=bias)
        self.self_attention = mha()
        self.cross_attention = mha()
        self.norm1 = nn.LayerNorm(num_hiddens)
        self.norm2 = nn.LayerNorm(num_hiddens)
        self.norm3 = nn.LayerNorm(num_hiddens)
        self.ffn = _ffn(num_hiddens, ffn_hiddens)
        self.dropout = nn.Dropout(dropout)

    def _inputs_fit(self, Y, memory, name="Y"):
        """Y (or y) and memory: (B, T, num_hiddens) tensors of one batch."""
        D = self.norm1.normalized_shape[0]
        for n, x in ((name, Y), ("memory", memory)):
            checks.tensor(x, n, min_dim=3)
            if x.shape[-1] != D:
                raise checks.error(n, f"last dim num_hiddens={D}", x.shape[-1])
        if memory.shape[0] != Y.shape[0]:
            raise checks.error("memory", f"batch {Y.shape[0]} like {name}", memory.shape[0])

    def _blocks(self, Y, self_attend, cross_attend):
        if self.norm_first:
            Y = Y + self.dropout(self_attend(self.norm1(Y)))
            Y = Y + self.dropout(cross_attend(self.norm2(Y)))
            return Y + self.dropout(self.ffn(self.norm3(Y)))
        Y = self.norm1(Y + self.dropout(self_attend(Y)))
        Y = self.norm2(Y + self.dropout(cross_attend(Y)))
        return self.norm3(Y + self.dropout(self.ffn(Y)))

    def forward(self, Y, memory, memory_valid_lens=None):
        """Y (B, T, D) targets so far, memory (B, S, D) the encoder's output -> (B, T, D)."""
        self._inputs_fit(Y, memory)
        return self._blocks(
            Y, lambda x: self.self_attention(x, x, x, causal=True),
            lambda x: self.cross_attention(x, memory, memory, memory_valid_lens))

    def step(self, y, memory, cache, memory_valid_lens=None):
        """One new target position: y (B, 1, D), memory (B, S, D), cache a KVCache (updated in place)
        -> (B, 1, D). Equal (to round-off) to the last row of ``forward`` over all positions so far."""
        self._inputs_fit(y, memory, "y")
        if y.shape[-2] != 1:
            raise checks.error("y", "one new position (B, 1, D)", tuple(y.shape))
        checks.instance(cache, "cache", KVCache, "a KVCache")
        return self._blocks(y, lambda x: self._cached_self(x, cache),
                            lambda x: self._cached_cross(x, memory, cache, memory_valid_lens))

    def _cached_self(self, x, cache):
        att = self.self_attention
        k, v = _heads(att.W_k, x, att.num_heads), _heads(att.W_v, x, att.num_heads)   # (B, H, 1, D/H)
        cache.keys = k if cache.keys is None else torch.cat([cache.keys, k], dim=-2)     # (B, H, t, D/H)
        cache.values = v if cache.values is None else torch.cat([cache.values, v], dim=-2)
        q = _heads(att.W_q, x, att.num_heads)                                          # (B, H, 1, D/H)
        out, att.attention_weights = attend_unchecked(q, cache.keys, cache.values, None,
                                                      1.0 / math.sqrt(q.shape[-1]))   # newest sees all
        return att.W_o(merge_unchecked(out))                                               # (B, 1, D)

    def _cached_cross(self, x, memory, cache, memory_valid_lens):
        att = self.cross_attention
        if cache.memory_keys is None:                                                  # once per sequence
            cache.memory_keys = _heads(att.W_k, memory, att.num_heads)                 # (B, H, S, D/H)
            cache.memory_values = _heads(att.W_v, memory, att.num_heads)
        mask = None
        if memory_valid_lens is not None:
            mask = sequence_mask(memory_valid_lens, memory.shape[-2])[:, None]         # (B, 1, 1, S)
        q = _heads(att.W_q, x, att.num_heads)
        out, att.attention_weights = scaled_dot_product_attention(q, cache.memory_keys, cache.memory_values, mask)
        return att.W_o(merge_unchecked(out))


def _copy_attention(mine, theirs):
    theirs.in_proj_weight.copy_(torch.cat([mine.W_q.weight, mine.W_k.weight, mine.W_v.weight]))
    theirs.in_proj_bias.copy_(torch.cat([mine.W_q.bias, mine.W_k.bias, mine.W_v.bias]))
    theirs.out_proj.weight.copy_(mine.W_o.weight)
    theirs.out_proj.bias.copy_(mine.W_o.bias)


def _copy(pairs):
    for mine, theirs in pairs:
        theirs.weight.copy_(mine.weight)
        theirs.bias.copy_(mine.bias)


@checks.arguments(layer=checks.Instance(EncoderLayer, "an EncoderLayer"))
def torch_encoder_layer(layer):
    """``torch.nn.TransformerEncoderLayer`` with ``layer``'s weights copied in (batch-first, ReLU, same
    norm placement, dropout 0), in eval mode. Needs a full layer (residual, FFN) with biases."""
    if not (layer.residual and layer.use_ffn and layer.attention.W_q.bias is not None):
        raise checks.error("layer",
                           "a full layer with biases (residual=True, ffn=True, bias=True), torch's layer has no "
                           "ablations")
    att, (lin1, _, lin2) = layer.attention, layer.ffn
    param = att.W_q.weight
    ref = nn.TransformerEncoderLayer(param.shape[0], att.num_heads, lin1.out_features, dropout=0.0,
                                     batch_first=True, norm_first=layer.norm_first,
                                     device=param.device, dtype=param.dtype)
    with torch.no_grad():
        _copy_attention(att, ref.self_attn)
        _copy(((lin1, ref.linear1), (lin2, ref.linear2), (layer.norm1, ref.norm1), (layer.norm2, ref.norm2)))
    return ref.eval()


@checks.arguments(layer=checks.Instance(DecoderLayer, "a DecoderLayer"))
def torch_decoder_layer(layer):
    """``torch.nn.TransformerDecoderLayer`` with ``layer``'s weights copied in (batch-first, ReLU, same
    norm placement, dropout 0), in eval mode. Needs a layer with biases. Call it with
    ``tgt_mask=~attnlab.causal_mask(T, T)`` (torch's bool masks say True = may NOT attend)."""
    if layer.self_attention.W_q.bias is None:
        raise checks.error("layer", "a layer with biases (bias=True), like torch's")
    (lin1, _, lin2) = layer.ffn
    param = layer.self_attention.W_q.weight
    ref = nn.TransformerDecoderLayer(param.shape[0], layer.self_attention.num_heads, lin1.out_features,
                                     dropout=0.0, batch_first=True, norm_first=layer.norm_first,
                                     device=param.device, dtype=param.dtype)
    with torch.no_grad():
        _copy_attention(layer.self_attention, ref.self_attn)
        _copy_attention(layer.cross_attention, ref.multihead_attn)
        _copy(((lin1, ref.linear1), (lin2, ref.linear2), (layer.norm1, ref.norm1), (layer.norm2, ref.norm2),
               (layer.norm3, ref.norm3)))
    return ref.eval()
