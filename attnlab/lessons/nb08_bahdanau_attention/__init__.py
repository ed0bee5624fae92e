"""Notebook 08, Bahdanau attention: the date data, a GRU encoder-decoder with additive (加性) or dot-product
attention, shipped checkpoints, and the explorer and trainer panels.

dates        the date strings: random dates, the vocabularies, the typed-date check, encoding
gru_pooling  seed 001's GRU with attention pooling, as written and fixed
seq2seq      DateTranslator (GRU encoder-decoder, additive or dot attention), translate, trace, training,
             the shipped checkpoints
figures      alignment heatmaps and the index thumbnail
live         the Play panels: ``play(*, models, text)`` (the alignment explorer) and
             ``play_trainer(*, explorer, steps)`` (a fresh model behind a button, added to the explorer)
exercises    references and checks for the two "write it yourself" cells

``__all__`` is what the notebook reads as ``lesson.<name>`` (and ``thumbnail``, for the index); tests import
the rest from the modules.
"""
from .dates import MAX_SOURCE_LEN, SOURCE_CHARS, SOURCE_VOCAB, TARGET_LEN, TARGET_VOCAB, random_dates
from .exercises import check_additive_scores, check_context
from .figures import alignment_heatmap, argmax_line, thumbnail
from .gru_pooling import SeedGRUAttention
from .live import play, play_trainer
from .seq2seq import accuracy, pretrained, trace, translate

__all__ = [
    "MAX_SOURCE_LEN", "SOURCE_CHARS", "SOURCE_VOCAB", "SeedGRUAttention", "TARGET_LEN", "TARGET_VOCAB", "accuracy",
    "alignment_heatmap", "argmax_line", "check_additive_scores", "check_context", "play", "play_trainer",
    "pretrained", "random_dates", "thumbnail", "trace", "translate",
]
