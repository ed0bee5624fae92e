"""python -m attnlab.lessons.nb11_induction_heads: retrain the shipped models and re-measure them."""
from .training import retrain_and_measure

if __name__ == "__main__":
    retrain_and_measure()
