"""Notebook 03, multi-head attention (多头注意力): hand-built toy heads and the figures of the split into heads."""
from . import figures
from .figures import (
    HEAD_COLORS, head_blocks_plot, mark_padding, thumbnail)
from . import heads
from .heads import (
    VOCAB, MAX_LEN, HEAD_SIZE, INPUT_SIZE, HEAD_KINDS, HEAD_TITLES, SENTENCES, embed,
    head_projections, toy_multihead, head_titles, head_readout, readout_table)
