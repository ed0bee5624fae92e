"""Notebook 09 (09_transformer_block.ipynb): a Transformer block trained live finds what "it" refers to.

    from attnlab.lessons import nb09_transformer_block as lesson
    lesson.VOCAB, lesson.examples("train" | "test"), lesson.pretrained(), lesson.resolve(model, sentence)

data      the generated "it" sentences, the vocabulary and the held-out test split
model     TransformerBlock (attnlab's MultiHeadAttention + FFN + residual + LayerNorm), ItResolver, resolve
training  the training generator (for attnlab.trainer.Trainer), accuracy, per-head accuracy, ablations
figures   the block diagram and the attention figures
widgets   the explorer (a typed sentence) and the trainer (a Train button), and the index's thumbnail

Retrain the shipped checkpoint and re-measure the ablations: python -m attnlab.lessons.nb09_transformer_block
"""
from . import data, figures, model, training, widgets
from .data import (
    HELD_OUT_NOUNS, HELD_OUT_PAIRS, INDEX, KIND_NAMES, KIND_OF, MAX_WORDS, PAD, SPLIT_SEED, SPLIT_SIZES, TEMPLATES,
    VOCAB, WORDS, encode, examples, generate, referent, sentence, sentence_problem, words_of)
from .model import (
    CHECKPOINT, CHECKPOINTS, RESULTS, ItResolver, Resolution, TransformerBlock, measured, pretrained, resolve,
    torch_layer)
from .training import (
    ABLATIONS, DEFAULTS, DEPTH_ABLATIONS, SHIPPED_STEPS, accuracy, batches, encoded, head_accuracy, one_thread,
    peak_kinds, retrain_and_measure, run, train)
from .figures import (
    BLOCK_PARTS, ablation_bars, attention_rows, block_diagram, head_accuracy_map, it_attention, pointer_rows,
    row_labels)
from .widgets import EXAMPLE, Explorer, describe, known_words, thumbnail, trainer
