"""One module (or package) per notebook: what that notebook needs and no other."""
from .. import fonts  # noqa: F401  (the CJK font, behind matplotlib's default: Chinese figures draw anywhere)
