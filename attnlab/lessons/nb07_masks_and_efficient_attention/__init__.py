"""Notebook 07, masks and efficient attention: the mask gallery, the cost of dense / local / block / linear
attention, and flash attention's tiles step by step.

masks             causal (two alignments), block, sparse patterns (Longformer, BigBird, log-sparse, LSH),
                  and the three conventions for a fully masked row
seed_dot_product  seed 001's DotProductAttention as written (NaN on all padding, no √d) and fixed
costs             toy data with local structure, errors of the cheap methods, FLOP and memory counts
tiles             the online softmax of flash attention, state after every tile
figures           the notebook's figures and Play panels, with named handles
exercises         references and checks for the first two "write it yourself" cells
tile_exercise     exercise 3: one online-softmax tile update, its reference and the mistakes it recognises
"""
from . import costs
from .costs import (
    METHODS, BYTES, structured_qkv, relative_error, approximation_errors, flops, memory_bytes)
from . import masks
from .masks import (
    MASK_KINDS, SPARSE_PATTERNS, causal_mask_bottom_right, block_mask, make_mask, masked_row_conventions,
    global_mask, random_mask, log_sparse_mask, lsh_buckets, lsh_mask, sparse_patterns, thumbnail,
    visible_keys_mistakes)
from . import seed_dot_product
from .seed_dot_product import SeedDotProductAttention, score_spread
from . import tiles
from .tiles import tiled_attention_steps, implied_weights, toy_problem
from . import figures
from .figures import (
    MASK_CMAP, SCORE_CMAP, OUTSIDE_COLOUR, MASK_CMAP_OUTSIDE, WEIGHT_CMAP_OUTSIDE, NOT_VISITED_HATCH, NOT_VISITED_EDGE,
    not_visited_background, not_visited_patch,
    mask_heatmap, mask_key, key_positions, visible_keys_table, Gallery, mask_gallery, ErrorPlot, error_plot, SoFarFigure, weights_so_far_figure, MemoryPlot,
    memory_plot, MaskExplorer, StepFigure, TileExplorer)
from . import exercises
from .exercises import BOTTOM_RIGHT_MISTAKES, MASKED_SOFTMAX_MISTAKES, check_bottom_right, check_masked_softmax
from . import tile_exercise
from .tile_exercise import TILE_HINTS, check_tile_update, tile_cases, tile_update
