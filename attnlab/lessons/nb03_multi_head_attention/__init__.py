"""Notebook 03, multi-head attention (多头注意力): hand-built toy heads, the figures of the split into
heads, the Play panel and the two code exercises."""
from . import exercises, figures, heads  # noqa: F401
from .figures import (
    HEAD_COLORS, head_blocks_plot, mark_padding, thumbnail)
from .heads import (
    VOCAB, MAX_LEN, HEAD_SIZE, INPUT_SIZE, HEAD_KINDS, HEAD_TITLES, SENTENCES, embed,
    head_projections, toy_multihead, head_titles, head_readout, readout_table)
from .play import CONTROLS, MAX_HEADS, QUERY, HeadsPlay, play
from .exercises import (
    multihead, split_cases, multihead_cases, check_split_heads, check_multihead, head_size_mistakes,
    SPLIT_MISTAKES, MULTIHEAD_MISTAKES)
