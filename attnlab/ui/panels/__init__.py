"""Live panels (``Panel``: a figure drawn once, updated in place after each move of its controls).

panel     the Panel, its display bundle and the figure factory
renderer  the blitter: redraws only what changed, pixel for pixel what a full draw shows
png       the PNG encoder of the pictures a panel sends
"""
from .panel import Later, Panel, new_figure, widget_bundle
from .png import PngEncoder, png_bytes

__all__ = ["Later", "Panel", "PngEncoder", "new_figure", "png_bytes", "widget_bundle"]
