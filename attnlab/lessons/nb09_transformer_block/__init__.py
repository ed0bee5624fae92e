"""Notebook 09 (09_transformer_block.ipynb): a Transformer block trained live finds what "it" refers to.

    from attnlab.lessons import nb09_transformer_block as lesson
    lesson.VOCAB, lesson.examples("train" | "test"), lesson.pretrained(), lesson.resolve(model, sentence)

data      the generated "it" sentences, the vocabulary and the held-out test split
model     TransformerBlock (attnlab's MultiHeadAttention + FFN + residual + LayerNorm), ItResolver, resolve
training  the training generator (for attnlab.trainer.Trainer), accuracy, per-head accuracy, ablations
figures   the block diagram and the attention figures
widgets   the explorer (a typed sentence), the trainer (a Train button), play (the Play section's explorer), the thumbnail

Retrain the shipped checkpoint and re-measure the ablations: python -m attnlab.lessons.nb09_transformer_block
"""
from .. import surface
from . import data, figures, model, training, widgets

__all__ = surface(globals(), data, figures, model, training, widgets)
