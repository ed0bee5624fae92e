"""Notebook 10 (10_encoder_decoder.ipynb): the whole Transformer, an encoder-decoder trained on dates in
five formats, teacher forcing, greedy decoding step by step with a KV cache.

    from attnlab.lessons import nb10_encoder_decoder as lesson
    lesson.random_dates(n, seed=0), lesson.pretrained(), lesson.translate(model, texts),
    lesson.decode(model, text, cache=True) -> .output, .logits (steps, V), .cross_attention (L, H, steps, S)

data      the formats, vocabularies, held-out split, the typed-date check
model     DateTransformer (attnlab.transformer's EncoderLayer and DecoderLayer), greedy decoding with
          and without the KV cache, translate, decode, pretrained
training  teacher forcing and free running, exact match per format, the live model's settings, the
          retrain entry
play      the Play panel (a typed date decoded step by step), the Train button, the index thumbnail
analysis  which heads read which field, head ablations, the three families' masks, the race against
          08's Bahdanau GRU (comparison_figure, comparison_lines: results.json's numbers)

Retrain the shipped checkpoint and re-measure: python -m attnlab.lessons.nb10_encoder_decoder
"""
from .. import surface
from . import analysis, data, model, play, training

__all__ = surface(globals(), data, model, training, play, analysis)
