"""Notebook 09 (09_transformer_block.ipynb): a Transformer block trained live finds what "it" refers to.

    from attnlab.lessons import nb09_transformer_block as lesson
    lesson.VOCAB, lesson.examples("train" | "test"), lesson.pretrained(), lesson.resolve(model, sentence)

data      the generated "it" sentences, the vocabulary and the held-out test split
model     TransformerBlock (attnlab's MultiHeadAttention + FFN + residual + LayerNorm), ItResolver, resolve
training  the training generator (for attnlab.ui.trainer.Trainer), accuracy, per-head accuracy, ablations
figures   the block diagram, the attention figures and the index thumbnail
live      the Play panels: the explorer (a typed sentence; ``play(*, text)``) and the trainer (a Train
          button; ``play_trainer(*, explorer, steps)``: its models join the explorer's menu), and
          ``describe`` (an answer in words)

``__all__`` is what the notebook reads as ``lesson.<name>``, the names docs/api.md's "Lesson 09" block
documents, and ``thumbnail`` (for the index); tests import the rest from the modules.

Retrain the shipped checkpoint and re-measure the ablations: python -m attnlab.lessons.nb09_transformer_block
"""
from .data import HELD_OUT_NOUNS, HELD_OUT_PAIRS, VOCAB, examples
from .figures import ablation_bars, block_diagram, head_accuracy_map, it_attention, thumbnail
from .live import describe, play, play_trainer
from .model import TransformerBlock, measured, pretrained, resolve, torch_layer
from .training import accuracy, head_accuracy, peak_kinds

__all__ = [
    "HELD_OUT_NOUNS", "HELD_OUT_PAIRS", "TransformerBlock", "VOCAB", "ablation_bars", "accuracy",
    "block_diagram", "describe", "examples", "head_accuracy", "head_accuracy_map", "it_attention", "measured",
    "peak_kinds", "play", "play_trainer", "pretrained", "resolve", "thumbnail", "torch_layer",
]
