"""Notebook 13 (13_long_context.ipynb): long contexts. Sliding-window attention and its receptive field, the
rolling KV cache (a ring buffer of w positions, keys kept with their RoPE turn), attention sinks formed live on
the Bigram-Backcopy task and StreamingLLM's fix, and multi-head latent attention (MLA) on notebook 12's model.

    from attnlab.lessons import nb13_long_context as lesson
    lesson.receptive_field(window, layers, length); c = lesson.RollingCache(window, layers, kv_heads, head_dim)
    g = lesson.generate_windowed(model, prompt, steps, window=..., sinks=0, seed=None)     # notebook 12's model
    sm = lesson.sink_model(); lesson.train_sink_model(steps, seed); b = lesson.sink_batch(n, seed=...)
    lesson.sink_scores(model, b); lesson.LATENT_SIZES; m = lesson.latent(d_c); lesson.cache_bytes_per_token(model)

window       band masks, the receptive field, the rolling cache, windowed and rolling runs of a course GPT
sinks        the Bigram-Backcopy task, the sink model and its training, sink scores, StreamingLLM's experiment
mla          multi-head latent attention, the decoupled RoPE key, absorption, the conversion of notebook 12's model
real_models  real models' cache per token (Llama 3, Mistral 7B, DeepSeek-V2 and V3), from their configs
training     the training commands (python -m attnlab.lessons.nb13_long_context [sinks | latent])
shipped      the shipped models and their measurements
figures      the static figures and the index thumbnail
live         the Play panels: play (receptive field), play_sinks (StreamingLLM), play_latent (d_c), play_trainer
exercises    the two "write it yourself" checks
"""
from ...core.gpt.corpus import encode
from .exercises import check_latent_bytes, check_ring_slot
from .figures import (
                      bytes_figure,
                      latent_figure,
                      receptive_figure,
                      ring_figure,
                      sink_figure,
                      sink_training_figure,
                      spectrum_figure,
                      streaming_figure,
                      thumbnail,
)
from .live import latent_points, play, play_latent, play_sinks, play_trainer
from .mla import cache_bytes_per_token, latent_spectrum
from .real_models import REAL_MODELS, bytes_per_token
from .shipped import LATENT_SIZES, gpt, latent, measured, sink_model
from .sinks import prose_batch, sink_batch, sink_scores, train_sink_model
from .window import RollingCache, generate_windowed, receptive_field, rolling_logits, windowed_logits

__all__ = ["LATENT_SIZES", "REAL_MODELS", "RollingCache", "bytes_figure", "bytes_per_token", "cache_bytes_per_token",
           "check_latent_bytes", "check_ring_slot", "encode", "generate_windowed", "gpt", "latent",
           "latent_figure", "latent_points", "latent_spectrum", "measured", "play", "play_latent",
           "play_sinks", "play_trainer", "prose_batch", "receptive_field", "receptive_figure",
           "ring_figure", "rolling_logits", "sink_batch", "sink_figure", "sink_model", "sink_scores",
           "sink_training_figure", "spectrum_figure", "streaming_figure", "thumbnail", "train_sink_model",
           "windowed_logits"]
