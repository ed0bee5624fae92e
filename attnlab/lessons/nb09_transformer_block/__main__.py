"""python -m attnlab.lessons.nb09_transformer_block: retrain the shipped checkpoint and re-measure the ablations."""
from .training import _main

_main()
