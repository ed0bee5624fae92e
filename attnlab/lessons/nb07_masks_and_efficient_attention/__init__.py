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
from .. import surface
from . import costs, masks, seed_dot_product, tiles, figures, exercises, tile_exercise

__all__ = surface(globals(), costs, masks, seed_dot_product, tiles, figures, exercises, tile_exercise)
