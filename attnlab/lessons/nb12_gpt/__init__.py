"""Notebook 12 (12_gpt.ipynb): a GPT from the course's own parts. A decoder-only causal stack (RoPE,
grouped-query attention, a KV cache) trained to predict the next character of this course's prose in
both languages; generation with temperature, top-k and top-p; the KV cache's bytes and time; MQA and GQA.

    from attnlab.lessons import nb12_gpt as lesson
    model = lesson.pretrained(kv_heads=None)      # None: as many key/value heads as query heads (4)
    g = lesson.generate(model, prompt, steps, temperature=1.0, top_k=None, top_p=None, seed=None, cache=True)
    g.text, g.probs, g.logits; lesson.vocab(); lesson.cache_bytes(model, length)
    lesson.bits_per_char(model, split="heldout")

corpus      the training text (the prose of notebooks 00-11), its held-out tenth, characters as tokens
model       the GPT: pre-LN blocks, RoPE, grouped-query attention, KV cache; conversion to fewer kv heads
generation  the filters (temperature, top-k, top-p) and the generation loop
measure     bits per character, the unigram and bigram count models, the cache's bytes
induction   probes with a made-up word twice, induction and previous-token scores, copying
timing      seconds per generated character against length, with and without the KV cache
real_models real models' query and key/value heads, from their published configs
training    the training loop; ``python -m attnlab.lessons.nb12_gpt`` retrains the shipped models
shipped     the shipped checkpoints and their measurements
figures     the static figures and the index thumbnail
live        the Play panels: play (generation, filter by filter), play_kv (4, 2 or 1 key/value heads)
exercises   the two "write it yourself" checks
"""
from .corpus import vocab
from .exercises import check_cache_bytes, check_top_p
from .figures import (
                      cache_figure,
                      filters_figure,
                      filters_text,
                      induction_figure,
                      patterns_figure,
                      thumbnail,
                      timing_figure,
                      training_figure,
)
from .generation import filtered, generate
from .induction import copying, induction_scores, probes
from .live import kv_cache_timing, kv_quality, play, play_kv
from .measure import bigram_bits, bits_per_char, cache_bytes, held_bytes, unigram_bits
from .model import ablate
from .real_models import REAL_MODELS
from .shipped import measured, pretrained
from .timing import step_seconds

__all__ = ["REAL_MODELS", "ablate", "bigram_bits", "bits_per_char", "cache_bytes", "cache_figure", "check_cache_bytes",
           "check_top_p", "copying", "filtered", "filters_figure", "filters_text", "generate", "held_bytes", "induction_figure",
           "induction_scores", "kv_cache_timing", "kv_quality", "measured", "patterns_figure", "play", "play_kv", "pretrained", "probes",
           "step_seconds", "thumbnail", "timing_figure", "training_figure", "unigram_bits", "vocab"]
