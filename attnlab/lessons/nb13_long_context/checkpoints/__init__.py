"""Notebook 13's shipped models and measurements, written by ``python -m attnlab.lessons.nb13_long_context``:
sink.pt (the sink model), latent_<d_c>.pt (the attention weights of notebook 12's model converted to latent
attention and fine-tuned; the rest of each model is notebook 12's, attnlab/core/gpt/gpt_kv4.pt), results.json."""
from pathlib import Path

__all__ = ["HERE", "RESULTS", "SINK", "latent_path"]

HERE = Path(__file__).parent
SINK = HERE / "sink.pt"
RESULTS = HERE / "results.json"


def latent_path(d_c):
    """Where the latent model of size ``d_c`` is stored."""
    return HERE / f"latent_{d_c}.pt"
