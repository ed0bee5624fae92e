"""The shipped models and their measurements, written by ``python -m attnlab.lessons.nb12_gpt``."""
from pathlib import Path

__all__ = ["CHECKPOINTS", "HERE", "RESULTS"]

HERE = Path(__file__).parent
CHECKPOINTS = {kv: HERE / f"gpt_kv{kv}.pt" for kv in (4, 2, 1)}     # key/value heads: 4 = heads (MHA), 2, 1
RESULTS = HERE / "results.json"
