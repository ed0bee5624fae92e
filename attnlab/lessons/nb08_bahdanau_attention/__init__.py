"""Notebook 08, Bahdanau attention: the date data, a GRU encoder-decoder with additive (加性) or dot-product
attention, shipped checkpoints, and the explorer and trainer widgets."""
from .. import surface
from . import dates, gru_pooling, seq2seq, widgets, exercises

__all__ = surface(globals(), dates, gru_pooling, seq2seq, widgets, exercises)
