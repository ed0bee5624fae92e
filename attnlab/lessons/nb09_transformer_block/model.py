"""A Transformer encoder built from attnlab's parts, and the pointer that reads "it"'s referent.

Shape legend: B batch, T words, D model width (num_hiddens), H heads.

One block (pre-norm, the default here):
    X = X + MultiHeadAttention(LN(X))        every word gathers information from the others
    X = X + FFN(LN(X))                        each word, on its own, transforms what it gathered
Post-norm (``norm_first=False``, the 2017 paper and d2l's AddNorm) puts LN after each addition instead:
    X = LN(X + MultiHeadAttention(X));  X = LN(X + FFN(X)).
Both equal ``torch.nn.TransformerEncoderLayer`` (norm_first=True / False) with the same weights.

The resolver's answer is read from attention: the last block's weights for the query "it",
averaged over heads, are a distribution over the sentence's words (a pointer); its peak is the referent.
"""
import json
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

import attnlab as al

from ...core import checks
from ...core.transformer import EncoderLayer, torch_encoder_layer
from . import data

__all__ = [
    "CHECKPOINTS", "CHECKPOINT", "RESULTS", "TransformerBlock", "torch_layer", "ItResolver", "Resolution",
    "resolve", "pretrained", "measured", "resolve_unchecked"
]

CHECKPOINTS = Path(__file__).parent / "checkpoints"
CHECKPOINT = CHECKPOINTS / "it_resolver.pt"
RESULTS = CHECKPOINTS / "results.json"


class TransformerBlock(EncoderLayer):
    """One encoder block: multi-head self-attention and a position-wise FFN, each in a residual
    connection with LayerNorm. ``residual=False`` or ``ffn=False`` build the ablations.
    (The layer itself is ``attnlab.core.transformer.EncoderLayer``, shared with notebook 10.)"""


@checks.arguments(block=checks.Instance(TransformerBlock, "a TransformerBlock"))
def torch_layer(block):
    """``torch.nn.TransformerEncoderLayer`` with ``block``'s weights copied in (batch-first, ReLU,
    same norm placement, dropout 0): the reference a test and the notebook compare the block with.
    Needs a full block (residual and FFN) whose attention has biases, like torch's."""
    if not (block.residual and block.use_ffn and block.attention.W_q.bias is not None):
        raise checks.error("block",
                           "a full block with biases (residual=True, ffn=True, bias=True), torch's layer has no "
                           "ablations")
    return torch_encoder_layer(block)


class ItResolver(nn.Module):
    """Embeddings + sinusoidal positions + blocks; the last block's attention from "it" is the answer.

    Args: num_hiddens D, num_heads H, num_layers, ffn_hiddens, positions (False: the no-PE ablation),
    residual, ffn (False: ablations), norm_first (pre-norm by default), seed (the initial weights,
    drawn without touching the global random generator).
    forward(ids (B, T), valid_lens (B,), it_pos (B,)) -> pointer (B, T): the "it" query's weights in
    the last block, averaged over heads. ``.attention`` then holds (B, layers, H, T, T).
    """

    @checks.arguments(num_hiddens=checks.Int(1, 4096), num_heads=checks.Int(1), num_layers=checks.Int(1, 64),
                       ffn_hiddens=checks.Int(1, 16384), positions=checks.Flag(), residual=checks.Flag(),
                       ffn=checks.Flag(), norm_first=checks.Flag(), seed=checks.Int(0))
    def __init__(self, *, num_hiddens=32, num_heads=4, num_layers=2, ffn_hiddens=64, positions=True,
                 residual=True, ffn=True, norm_first=True, seed=0):
        super().__init__()
        with torch.random.fork_rng(devices=[]):          # nn's initialisers draw from the global RNG
            torch.manual_seed(seed)
            self._build(num_hiddens, num_heads, num_layers, ffn_hiddens, positions, residual, ffn, norm_first)

    def _build(self, num_hiddens, num_heads, num_layers, ffn_hiddens, positions, residual, ffn, norm_first):
        self.config = dict(num_hiddens=num_hiddens, num_heads=num_heads, num_layers=num_layers,
                           ffn_hiddens=ffn_hiddens, positions=positions, residual=residual, ffn=ffn,
                           norm_first=norm_first)
        self.embedding = nn.Embedding(len(data.INDEX), num_hiddens, padding_idx=0)
        nn.init.normal_(self.embedding.weight, std=0.02)     # a word never trained stays near 0: "some word"
        with torch.no_grad():
            self.embedding.weight[0].zero_()
        self.positions = al.PositionalEncoding(num_hiddens, max_len=data.MAX_WORDS) if positions else None
        self.blocks = nn.ModuleList(
            TransformerBlock(num_hiddens, num_heads, ffn_hiddens, norm_first=norm_first, residual=residual, ffn=ffn)
            for _ in range(num_layers))
        self.attention = None

    def forward(self, ids, valid_lens, it_pos, *, word_dropout=None):
        X = self.embedding(ids)                                                   # (B, T, D)
        if word_dropout is not None:
            X = X * word_dropout[..., None]                                       # zero = an unknown word
        if self.positions is not None:
            X = self.positions(X)
        weights = []
        for block in self.blocks:
            X = block(X, valid_lens)
            weights.append(block.attention.attention_weights)                     # (B, H, T, T)
        self.attention = torch.stack(weights, dim=1)                              # (B, L, H, T, T)
        rows = torch.arange(ids.shape[0])
        return self.attention[rows, -1, :, it_pos].mean(dim=1)                    # (B, T)


@dataclass
class Resolution:
    """What the model says about one sentence."""
    words: list          # the sentence's words
    referent: str        # the word at the peak of the pointer
    pointer: torch.Tensor    # (n_words,): the last block's "it" weights, averaged over heads
    attention: torch.Tensor  # (layers, heads, n_words): the "it" query's weights in every block and head

    @property
    def it_index(self):
        return self.words.index("it")


@checks.arguments(model=checks.Instance(ItResolver, "an ItResolver (e.g. pretrained())"))
def resolve(model, sentence):
    """Which word does "it" refer to? The peak of the model's pointer. Raises ValueError for a
    sentence with an unknown word (named), no or several "it", or too many words."""
    return resolve_unchecked(model, sentence)


def resolve_unchecked(model, sentence):
    """``resolve`` for an ItResolver (the explorer's menu holds only those); the sentence is checked here."""
    words = data.words_of(sentence)
    ids, valid_lens, it_pos = data.encode([" ".join(words)])
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            pointer = model(ids, valid_lens, it_pos)[0]                            # (T,)
            attention = model.attention[0, :, :, it_pos[0]]                       # (L, H, T)
    finally:
        model.train(was_training)
    return Resolution(words, words[int(pointer.argmax())], pointer.clone(), attention.clone())


def pretrained():
    """The shipped model (trained by ``python -m attnlab.lessons.nb09_transformer_block``), in eval mode."""
    saved = torch.load(CHECKPOINT, weights_only=True)
    model = ItResolver(**saved["config"])
    model.load_state_dict(saved["state"])
    return model.eval()


def measured():
    """What training the shipped model and its ablations measured (results.json): steps, seconds,
    train and test accuracy per ablation, and each head's peak accuracy on the test split."""
    return json.loads(RESULTS.read_text())
