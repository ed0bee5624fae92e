"""python -m attnlab.lessons.nb13_long_context [sinks | latent]: retrain notebook 13's shipped models and re-measure
them (training.py says what each does and how long it took here)."""
import sys

if __name__ == "__main__":
    from .training import main
    main(sys.argv[1:])
