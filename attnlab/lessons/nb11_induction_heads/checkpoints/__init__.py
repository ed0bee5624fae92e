"""The shipped models and their measurements, written by ``python -m attnlab.lessons.nb11_induction_heads``."""
from pathlib import Path

__all__ = ["CHECKPOINTS", "HERE", "LIVE", "RESULTS", "SNAPSHOTS"]

HERE = Path(__file__).parent
CHECKPOINTS = {name: HERE / f"{name}.pt" for name in ("two_layer", "one_layer", "rope", "fixed_length")}
RESULTS = HERE / "results.json"
SNAPSHOTS = HERE / "snapshots.pt"
LIVE = HERE / "live.json"               # bench/bench_nb11_live.py: the Train button timed, 5 seeds
