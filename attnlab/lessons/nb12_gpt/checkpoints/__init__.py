"""The shipped models' measurements, written by ``python -m attnlab.lessons.nb12_gpt``. The models themselves
(gpt_kv4.pt, gpt_kv2.pt, gpt_kv1.pt) sit in attnlab/core/gpt/, shared with notebook 13."""
from pathlib import Path

from ....core.gpt.shipped import CHECKPOINTS

__all__ = ["CHECKPOINTS", "HERE", "RESULTS"]

HERE = Path(__file__).parent
RESULTS = HERE / "results.json"
