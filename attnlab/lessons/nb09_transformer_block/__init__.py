"""Notebook 09 (09_transformer_block.ipynb): a Transformer block trained live finds what "it" refers to.

    from attnlab.lessons import nb09_transformer_block as lesson
    lesson.VOCAB, lesson.examples("train" | "test"), lesson.pretrained(), lesson.resolve(model, sentence)

data      the generated "it" sentences, the vocabulary and the held-out test split
model     TransformerBlock (attnlab's MultiHeadAttention + FFN + residual + LayerNorm), ItResolver, resolve
training  the training generator (for attnlab.trainer.Trainer), accuracy, per-head accuracy, ablations
figures   the block diagram and the attention figures;  widgets: the notebook's live panels
"""
from .data import VOCAB, examples
from .model import ItResolver, Resolution, TransformerBlock, measured, pretrained, resolve

__all__ = ["VOCAB", "ItResolver", "Resolution", "TransformerBlock", "examples", "measured", "pretrained", "resolve"]
