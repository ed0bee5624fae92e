"""python -m attnlab.lessons.nb10_encoder_decoder: retrain the shipped checkpoint and re-measure."""
from .training import retrain_and_measure

if __name__ == "__main__":
    retrain_and_measure()
