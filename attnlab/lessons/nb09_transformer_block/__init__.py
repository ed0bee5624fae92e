"""Notebook 09 (09_transformer_block.ipynb): a Transformer block trained live finds what "it" refers to.

    from attnlab.lessons import nb09_transformer_block as lesson
    lesson.VOCAB, lesson.examples("train" | "test"), lesson.pretrained(), lesson.resolve(model, sentence)

data      the generated "it" sentences, the vocabulary and the held-out test split
model     TransformerBlock (attnlab's MultiHeadAttention + FFN + residual + LayerNorm), ItResolver, resolve
training  the training generator (for attnlab.trainer.Trainer), accuracy, per-head accuracy, ablations
figures   the block diagram and the attention figures
widgets   the explorer (a typed sentence) and the trainer (a Train button), and the index's thumbnail
"""
from . import data, figures, training, widgets
from .data import HELD_OUT_NOUNS, HELD_OUT_PAIRS, VOCAB, examples, words_of
from .model import ItResolver, Resolution, TransformerBlock, measured, pretrained, resolve, torch_layer
from .training import ABLATIONS, accuracy, head_accuracy, peak_kinds
from .widgets import EXAMPLE, Explorer, describe, thumbnail, trainer

__all__ = ["ABLATIONS", "EXAMPLE", "Explorer", "HELD_OUT_NOUNS", "HELD_OUT_PAIRS", "ItResolver", "Resolution",
           "TransformerBlock", "VOCAB", "accuracy", "data", "describe", "examples", "figures", "head_accuracy", "measured",
           "peak_kinds", "pretrained", "resolve", "thumbnail", "torch_layer", "trainer", "training", "widgets",
           "words_of"]
