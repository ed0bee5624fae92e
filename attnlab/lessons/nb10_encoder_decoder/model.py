"""The whole Transformer: an encoder-decoder built from attnlab's layers, greedy decoding with and
without a KV cache, and the lesson's API (pretrained, translate, decode).

Shape legend: B batch, S source characters, T target positions so far, D model width, H heads,
L layers, V the target vocabulary.

    source chars -> embedding * sqrt(D) + P -> L encoder layers -> memory (B, S, D)
    BOS y1 .. y_t -> embedding * sqrt(D) + P -> L decoder layers (causal self-attention,
                     cross-attention to memory, FFN) -> linear -> logits over the next character
"""
import math
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

import attnlab as al

from ...core import checks, stored
from ...core.transformer import DecoderLayer, EncoderLayer, KVCache
from ...ui.trainer import one_thread
from . import data

__all__ = [
    "BOS_ID", "CHECKPOINT", "CHECKPOINTS", "EOS_ID", "MAX_STEPS", "RESULTS", "DateTransformer", "Decoding",
    "decode", "greedy", "measured", "parameters", "pretrained", "translate", "decode_unchecked"
]

CHECKPOINTS = Path(__file__).parent / "checkpoints"
CHECKPOINT = CHECKPOINTS / "date_transformer.pt"
RESULTS = CHECKPOINTS / "results.json"
BOS_ID, EOS_ID = data.TARGET_VOCAB.index(data.BOS), data.TARGET_VOCAB.index(data.EOS)
MAX_STEPS = data.TARGET_LEN + 1                  # ten characters and EOS


class DateTransformer(nn.Module):
    """Encoder-decoder Transformer for dates. Args: num_hiddens D, num_heads H, num_layers L (each side),
    ffn_hiddens, norm_first (pre-norm), seed (initial weights, without touching the global generator)."""

    @checks.arguments(num_hiddens=checks.Int(1, 1024), num_heads=checks.Int(1), num_layers=checks.Int(1, 12),
                       ffn_hiddens=checks.Int(1, 4096), norm_first=checks.Flag(), seed=checks.Int(0))
    def __init__(self, *, num_hiddens=48, num_heads=4, num_layers=2, ffn_hiddens=96, norm_first=True, seed=0):
        super().__init__()
        self.config = dict(num_hiddens=num_hiddens, num_heads=num_heads, num_layers=num_layers,
                           ffn_hiddens=ffn_hiddens, norm_first=norm_first)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            D = num_hiddens
            self.src_embedding = nn.Embedding(len(data.SOURCE_VOCAB), D, padding_idx=0)
            self.tgt_embedding = nn.Embedding(len(data.TARGET_VOCAB), D)
            self.positions = al.PositionalEncoding(D, max_len=64)
            self.encoder = nn.ModuleList(EncoderLayer(D, num_heads, ffn_hiddens, norm_first=norm_first)
                                         for _ in range(num_layers))
            self.decoder = nn.ModuleList(DecoderLayer(D, num_heads, ffn_hiddens, norm_first=norm_first)
                                         for _ in range(num_layers))
            self.encoder_norm = nn.LayerNorm(D) if norm_first else nn.Identity()
            self.decoder_norm = nn.LayerNorm(D) if norm_first else nn.Identity()
            self.out = nn.Linear(D, len(data.TARGET_VOCAB))

    def _embed(self, embedding, ids, offset=0):
        X = embedding(ids) * math.sqrt(self.config["num_hiddens"])               # (B, T, D)
        P = self.positions.P[0, offset:offset + ids.shape[1]].to(X.dtype)
        return X + P

    def encode(self, src, valid_lens):
        """src (B, S) ids, valid_lens (B,) -> memory (B, S, D)."""
        X = self._embed(self.src_embedding, src)
        for layer in self.encoder:
            X = layer(X, valid_lens)
        return self.encoder_norm(X)

    def forward(self, src, valid_lens, dec_inputs):
        """All target positions at once (teacher forcing): dec_inputs (B, T) = BOS y1 .. y_{T-1}
        -> logits (B, T, V). Weights: each layer's ``.cross_attention.attention_weights`` (B, H, T, S)."""
        memory = self.encode(src, valid_lens)
        Y = self._embed(self.tgt_embedding, dec_inputs)
        for layer in self.decoder:
            Y = layer(Y, memory, valid_lens)
        return self.out(self.decoder_norm(Y))

    def step(self, token, t, memory, valid_lens, caches):
        """One cached decoding step: token (B,) at position t -> logits (B, V); caches: one KVCache per layer."""
        y = self._embed(self.tgt_embedding, token[:, None], offset=t)            # (B, 1, D)
        for layer, cache in zip(self.decoder, caches):
            y = layer.step(y, memory, cache, valid_lens)
        return self.out(self.decoder_norm(y))[:, 0]


def _cross(model):
    return torch.stack([layer.cross_attention.attention_weights for layer in model.decoder], dim=1)  # (B, L, H, T, S)


@checks.arguments(model=checks.Instance(DateTransformer, "a DateTransformer (e.g. pretrained())"),
                   src=checks.Tensor(dims=2, integer=True), valid_lens=checks.Tensor(dims=1, integer=True),
                   cache=checks.Flag(), steps=checks.Int(1, 64))
def greedy(model, src, valid_lens, *, cache=True, steps=MAX_STEPS):
    """Greedy decoding of a batch (src, valid_lens from data.encode_sources): (tokens (B, steps),
    logits (B, steps, V), cross-attention (B, L, H, steps, S)).

    With the cache each step computes one new position; without it, each step re-runs the decoder on
    every position so far (what the cache saves) and keeps the last row."""
    B = src.shape[0]
    if valid_lens.shape[0] != B:
        raise checks.error("valid_lens", f"{B} lengths (one per row of src)", valid_lens.shape[0])
    if src.numel() and (src.min() < 0 or src.max() >= len(data.SOURCE_VOCAB)):
        raise checks.error("src", f"ids in [0, {len(data.SOURCE_VOCAB) - 1}] (data.encode_sources)",
                           f"{src.min().item()}..{src.max().item()}")
    memory = model.encode(src, valid_lens)
    tokens = torch.full((B, 1), BOS_ID)
    logits, cross = [], []
    caches = [KVCache() for _ in model.decoder]
    for t in range(steps):
        if cache:
            step_logits = model.step(tokens[:, -1], t, memory, valid_lens, caches)          # (B, V)
            cross.append(_cross(model)[:, :, :, -1])                                       # (B, L, H, S)
        else:
            Y = model._embed(model.tgt_embedding, tokens)
            for layer in model.decoder:
                Y = layer(Y, memory, valid_lens)
            step_logits = model.out(model.decoder_norm(Y))[:, -1]
            cross.append(_cross(model)[:, :, :, -1])
        logits.append(step_logits)
        tokens = torch.cat([tokens, step_logits.argmax(-1, keepdim=True)], dim=1)
    return tokens[:, 1:], torch.stack(logits, 1), torch.stack(cross, 3)


_MODEL = checks.Instance(DateTransformer, "a DateTransformer (e.g. pretrained())")


@checks.arguments(model=_MODEL, texts=checks.Items(min_len=1))
def translate(model, texts):
    """Dates as typed -> ISO strings (greedy decoding with the KV cache). A text the model cannot read
    is a ValueError naming ``text``."""
    src, valid_lens = data.encode_sources(list(texts))
    was = model.training
    model.eval()
    try:
        with torch.no_grad(), one_thread():
            tokens, _, _ = greedy(model, src, valid_lens)
    finally:
        model.train(was)
    return data.decode_targets(tokens)


@dataclass
class Decoding:
    """One date decoded greedily, step by step."""
    source: str                   # the text as read (lowercased, stripped)
    output: str                   # the characters before EOS
    tokens: list                  # every step's chosen character (up to and including EOS)
    logits: torch.Tensor          # (steps, V): each step's scores over TARGET_VOCAB
    cross_attention: torch.Tensor  # (layers, heads, steps, S): each step's query over the source characters
    cache_sizes: list             # how many positions each step's KV cache held after the step (1, 2, ...)


@checks.arguments(model=_MODEL, cache=checks.Flag())
def decode(model, text, *, cache=True):
    """Greedy decoding of one date, stopping at EOS: a Decoding. ``cache=False`` recomputes every
    position at each step (same tokens, same logits to round-off). A text the model cannot read is a
    ValueError naming ``text``; it is never evaluated."""
    return decode_unchecked(model, data.check_source(text), cache)


def decode_unchecked(model, source, cache=True):
    """``decode`` for a DateTransformer and a ``source`` that ``data.check_source`` returned (the Play's
    update calls this after its one check of the typed text)."""
    src, valid_lens = data.encode_sources_unchecked([source])
    was = model.training
    model.eval()
    try:
        with torch.no_grad(), one_thread():
            tokens, logits, cross = greedy(model, src, valid_lens, cache=cache)
    finally:
        model.train(was)
    ids = tokens[0].tolist()
    n = ids.index(EOS_ID) + 1 if EOS_ID in ids else len(ids)
    return Decoding(source, data.decode_targets(tokens)[0], [data.TARGET_VOCAB[i] for i in ids[:n]],
                    logits[0, :n].clone(), cross[0, :, :, :n].clone(), list(range(1, n + 1)))


@checks.arguments(model=checks.Instance(nn.Module, "a torch module (e.g. pretrained())"))
def parameters(model):
    """How many trainable numbers the model has."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def pretrained():
    """The shipped model (``python -m attnlab.lessons.nb10_encoder_decoder``), in eval mode."""
    saved = torch.load(CHECKPOINT, weights_only=True)
    model = DateTransformer(**saved["config"])
    model.load_state_dict({k: v.float() for k, v in saved["state"].items()})
    return model.eval()


def measured():
    """What retraining the shipped model measured (results.json)."""
    return stored.measured(RESULTS)
