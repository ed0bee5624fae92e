"""Notebook 06, positional encoding (位置编码): the sinusoidal P, its figures, relative position as a
rotation, the rotary encoding (RoPE) that applies that rotation to queries and keys, and the
notebook's exercises.

encoding   computation: frequencies, wavelengths, the rotation M_δ, similarity by offset, RoPE
figures    figures of P (named handles, no state on matplotlib objects) and the index thumbnail
live       the Play panel: ``play(*, n, position, pair, width, base)``, the explorer of P
exercises  references and checks for the two "write it yourself" cells

``__all__`` is what the notebook reads as ``lesson.<name>`` (and ``thumbnail``, for the index); tests import
the rest from the modules.
"""
from .encoding import (
                       frequencies,
                       offset_similarity,
                       rope,
                       rotation_matrix,
                       similarity_by_offset,
                       wavelength_mistakes,
                       wavelengths,
)
from .exercises import check_rope, check_sinusoidal
from .figures import (
                       counter_vs_columns_figure,
                       encoding_columns_plot,
                       encoding_heatmap,
                       rotation_circle_figure,
                       similarity_figure,
                       thumbnail,
)
from .live import play

__all__ = [
    "check_rope", "check_sinusoidal", "counter_vs_columns_figure", "encoding_columns_plot", "encoding_heatmap",
    "frequencies", "offset_similarity", "play", "rope", "rotation_circle_figure", "rotation_matrix",
    "similarity_by_offset", "similarity_figure", "thumbnail", "wavelength_mistakes", "wavelengths",
]
