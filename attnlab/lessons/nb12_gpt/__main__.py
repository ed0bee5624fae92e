"""python -m attnlab.lessons.nb12_gpt: retrain the shipped models and re-measure them.
python -m attnlab.lessons.nb12_gpt corpus [NOTEBOOKS]: rewrite corpus.txt from the notebooks' prose
(default ./notebooks, run from a checkout)."""
import sys

if __name__ == "__main__":
    if sys.argv[1:2] == ["corpus"]:
        from .corpus import write
        print(write(sys.argv[2] if len(sys.argv) > 2 else "notebooks"), "paragraphs written")
    else:
        from .training import retrain_and_measure
        retrain_and_measure()
