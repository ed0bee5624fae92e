"""Notebook 03, multi-head attention (多头注意力): hand-built toy heads, the figures of the split into
heads, the Play panel and the two code exercises.

heads      the toy heads: embeddings, hand-set projections, titles, what each head read
figures    the split into heads, padding hatches, the index thumbnail
live       the Play panel
exercises  the two "write it yourself" checks and the numeric question's mistakes
"""
from .exercises import check_multihead, check_split_heads, head_size_mistakes
from .figures import head_blocks_plot, mark_padding, thumbnail
from .heads import HEAD_SIZE, embed, head_readout, head_titles, readout_table, toy_multihead
from .live import play

__all__ = ["HEAD_SIZE", "check_multihead", "check_split_heads", "embed", "head_blocks_plot", "head_readout",
           "head_size_mistakes", "head_titles", "mark_padding", "play", "readout_table", "thumbnail", "toy_multihead"]
