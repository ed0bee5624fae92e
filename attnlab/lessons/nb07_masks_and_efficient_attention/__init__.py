"""Notebook 07, masks and efficient attention: the mask gallery, the cost of dense / local / block / linear
attention, and flash attention's tiles step by step."""
from . import costs
from .costs import (
    METHODS, BYTES, structured_qkv, relative_error, approximation_errors, flops, memory_bytes)
from . import masks
from .masks import (
    MASK_KINDS, causal_mask_bottom_right, block_mask, make_mask, masked_row_conventions, thumbnail)
from . import tiles
from .tiles import (
    tiled_attention_steps, implied_weights, toy_problem, draw_step_figure, update_step_figure)
