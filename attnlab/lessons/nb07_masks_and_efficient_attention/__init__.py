"""Notebook 07, masks and efficient attention: the mask gallery, the cost of dense / local / block / linear
attention, and flash attention's tiles step by step.

masks             causal (two alignments), block, sparse patterns (Longformer, BigBird, log-sparse, LSH),
                  and the three conventions for a fully masked row
seed_dot_product  seed 001's DotProductAttention as written (NaN on all padding, no √d) and fixed
costs             toy data with local structure, errors of the cheap methods, FLOP and memory counts
tiles             the online softmax of flash attention, state after every tile
figures           the notebook's figures, with named handles, and the index thumbnail
live              the Play panels: ``play(*, kind, num_queries, num_keys, w)`` (a mask and its weights) and
                  ``play_tiles(*, queries, keys, values, tile, block)`` (the tiles step by step)
exercises         references and checks for the three "write it yourself" cells (exercise 3: one
                  online-softmax tile update, its reference and the mistakes it recognises)

``__all__`` is what the notebook reads as ``lesson.<name>`` (and ``thumbnail``, for the index); tests import
the rest from the modules.
"""
from .costs import METHODS, approximation_errors, flops, memory_bytes, structured_qkv
from .exercises import check_bottom_right, check_masked_softmax, check_tile_update
from .figures import error_plot, mask_gallery, mask_key, memory_plot, thumbnail, weights_so_far_figure
from .live import play, play_tiles
from .masks import block_mask, causal_mask_bottom_right, masked_row_conventions, sparse_patterns, visible_keys_mistakes
from .seed_dot_product import SeedDotProductAttention, score_spread
from .tiles import tiled_attention_steps, toy_problem

__all__ = [
    "METHODS", "SeedDotProductAttention", "approximation_errors", "block_mask", "causal_mask_bottom_right",
    "check_bottom_right", "check_masked_softmax", "check_tile_update", "error_plot", "flops", "mask_gallery",
    "mask_key", "masked_row_conventions", "memory_bytes", "memory_plot", "play", "play_tiles", "score_spread",
    "sparse_patterns", "structured_qkv", "thumbnail", "tiled_attention_steps", "toy_problem",
    "visible_keys_mistakes", "weights_so_far_figure",
]
