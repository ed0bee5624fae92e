"""python -m attnlab.lessons.nb14_length_generalisation: retrain the shipped models and re-measure them."""
from .training import retrain_and_measure

if __name__ == "__main__":
    retrain_and_measure()
