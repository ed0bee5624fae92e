"""python -m attnlab.lessons.nb09_transformer_block: retrain the shipped checkpoint and re-measure the ablations."""
from .training import retrain_and_measure

if __name__ == "__main__":
    retrain_and_measure()
