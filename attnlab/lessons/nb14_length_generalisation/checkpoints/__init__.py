"""The shipped models and their measurements, written by ``python -m attnlab.lessons.nb14_length_generalisation``
(one model per task and encoding, seed 0: ``<task>_<encoding>.pt``; every seed's curves in results.json)."""
from pathlib import Path

__all__ = ["HERE", "LIVE", "RESULTS", "checkpoint"]

HERE = Path(__file__).parent
RESULTS = HERE / "results.json"
LIVE = HERE / "live.json"               # bench/bench_nb14_live.py: the Train button timed


def checkpoint(task, encoding):
    """The path of the shipped model of ``task`` and ``encoding``."""
    return HERE / f"{task}_{encoding}.pt"
