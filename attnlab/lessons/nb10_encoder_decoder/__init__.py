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
analysis  which heads read which field, head ablations, the three families' masks

Retrain the shipped checkpoint and re-measure: python -m attnlab.lessons.nb10_encoder_decoder
"""
from . import analysis, data, model, play, training
from .data import (
    BOS, EOS, FORMATS, MAX_SOURCE_LEN, MONTH_NAMES, PAD, SOURCE_CHARS, SOURCE_VOCAB, TARGET_LEN, TARGET_VOCAB,
    TEST_SEED, TEST_SIZE, check_source, decode_targets, encode_sources, encode_targets, format_of, held_out, is_date,
    random_dates, source_problem, test_dates, training_dates)
from .model import (
    BOS_ID, CHECKPOINT, CHECKPOINTS, EOS_ID, MAX_STEPS, RESULTS, DateTransformer, Decoding, decode, greedy, measured,
    parameters, pretrained, translate)
from .training import (
    DEFAULTS, LIVE, LIVE_SECONDS_PER_STEP, LIVE_STEPS, SHIPPED_STEPS, accuracy, compare_teacher_forcing, retrain_and_measure, run, test_split, train)
from .play import CONTROLS, EXAMPLE, SHOWCASE, DecodingPlay, controls, play, thumbnail, trainer
from .analysis import (
    FAMILIES, FIELDS, OUTPUT_FIELD, families_figure, head_ablations, head_alignment, source_fields, without_head)
