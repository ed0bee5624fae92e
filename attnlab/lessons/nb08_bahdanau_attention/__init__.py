"""Notebook 08, Bahdanau attention: the date data, a GRU encoder-decoder with additive (加性) or dot-product
attention, shipped checkpoints, and the explorer and trainer widgets."""
from . import dates
from .dates import (
    MONTHS, SOURCE_CHARS, SOURCE_VOCAB, TARGET_VOCAB, MAX_SOURCE_LEN, TARGET_LEN, random_dates,
    check_source, source_problem, encode_sources, encode_targets, decode_targets)
from . import gru_pooling
from .gru_pooling import (
    SeedGRUAttention, pool)
from . import seq2seq
from .seq2seq import (
    CHECKPOINTS, DateTranslator, translate, trace, train, train_steps, accuracy, pretrained)
from . import widgets
from .widgets import (
    SPACE, ROWS, source_labels, output_labels, alignment_heatmap, update_alignment, alignment,
    argmax_line, AlignmentExplorer, trainer, thumbnail)
from . import exercises
from .exercises import additive_scores, context, check_additive_scores, check_context, SCORE_MISTAKES, CONTEXT_MISTAKES
