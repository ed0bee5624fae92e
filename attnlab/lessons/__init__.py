"""Lessons: what one notebook needs and no other (``nbNN_<notebook stem>``, one per notebook)."""
