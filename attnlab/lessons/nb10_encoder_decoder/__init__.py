"""Notebook 10 (10_encoder_decoder.ipynb): the whole Transformer, an encoder-decoder trained on dates in
five formats, teacher forcing, greedy decoding step by step with a KV cache.

    from attnlab.lessons import nb10_encoder_decoder as lesson
    lesson.random_dates(n, seed=0), lesson.pretrained(), lesson.translate(model, texts),
    lesson.decode(model, text, cache=True) -> .output, .logits (steps, V), .cross_attention (L, H, steps, S)

data      the formats, vocabularies, held-out split, the typed-date check
model     DateTransformer (attnlab.core.transformer's EncoderLayer and DecoderLayer), greedy decoding with
          and without the KV cache, translate, decode, pretrained
training  teacher forcing and free running, exact match per format, the live model's settings, the
          retrain entry
analysis  which heads read which field, head ablations, the race against 08's Bahdanau GRU
          (comparison_lines: results.json's numbers)
figures   the three families' masks (families_figure), the race drawn (comparison_figure), the index
          thumbnail
live      the Play panels: ``play(*, model, text)`` (a typed date decoded step by step) and
          ``play_trainer(*, steps)`` (the Train button)

``__all__`` is what the notebook reads as ``lesson.<name>``, the names docs/api.md's "Lesson 10" block
documents, and ``thumbnail`` (for the index); tests import the rest from the modules.

Retrain the shipped checkpoint and re-measure: python -m attnlab.lessons.nb10_encoder_decoder
"""
from .analysis import comparison_lines, head_ablations, head_alignment
from .data import format_of, random_dates
from .figures import comparison_figure, families_figure, thumbnail
from .live import play, play_trainer
from .model import decode, measured, parameters, pretrained, translate
from .training import accuracy

__all__ = [
    "accuracy", "comparison_figure", "comparison_lines", "decode", "families_figure", "format_of",
    "head_ablations", "head_alignment", "measured", "parameters", "play", "play_trainer", "pretrained",
    "random_dates", "thumbnail", "translate",
]
