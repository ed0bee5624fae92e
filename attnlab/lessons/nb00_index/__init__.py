"""Notebook 00, the index: a gallery of one small picture per notebook, and the warm-up softmax panel.

index      the notebooks' titles and captions, and where each stored thumbnail lies
figures    the gallery (a figure, or clickable HTML)
live       the Play panel: softmax(scores / T) as three bars
"""
from .figures import gallery_html
from .live import play

__all__ = ["gallery_html", "play"]
