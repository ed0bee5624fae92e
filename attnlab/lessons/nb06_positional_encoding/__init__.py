"""Notebook 06, positional encoding (位置编码): the sinusoidal P, its figures, relative position as a
rotation, the rotary encoding (RoPE) that applies that rotation to queries and keys, and the
notebook's exercises.

encoding   computation: frequencies, wavelengths, the rotation M_δ, similarity by offset, RoPE
figures    figures of P and the Play explorer (named handles, no state on matplotlib objects)
exercises  references and checks for the two "write it yourself" cells
"""
from . import encoding
from .encoding import (
    frequencies, wavelengths, rotation_matrix, offset_similarity, similarity_by_offset, rope, wavelength_mistakes)
from . import figures
from .figures import (
    SIGNED_CMAP, encoding_image, encoding_heatmap, update_encoding_heatmap, encoding_columns_plot,
    binary_counter_plot, MAX_BITS, CounterFigure, counter_vs_columns_figure, SimilarityFigure, similarity_figure,
    CircleFigure, rotation_circle_figure, Explorer, explorer, thumbnail)
from . import exercises
from .exercises import SINUSOIDAL_MISTAKES, ROPE_MISTAKES, check_sinusoidal, check_rope
