"""Real models' KV cache per token (notebook 13, section 4), from their published configs.

MHA / GQA: layers x 2 (keys and values) x key/value heads x head size numbers per token; MLA (DeepSeek-V2 and
V3): layers x (kv_lora_rank + qk_rope_head_dim), the latent and the shared rotated key; 2 bytes a number
(bfloat16, as the models are served without cache quantisation). The Llama 3 configs are gated on Hugging Face;
their numbers are those of the model card and of public copies of config.json (e.g.
NousResearch/Meta-Llama-3-8B and -70B), as notebook 12's table read them.
"""
from typing import NamedTuple

__all__ = ["BYTES_PER_NUMBER", "REAL_MODELS", "RealModel", "bytes_per_token"]

BYTES_PER_NUMBER = 2


class RealModel(NamedTuple):
    """One row: ``kind`` "GQA" or "MLA"; for GQA ``kv_heads`` and ``head_size``, for MLA ``latent`` and ``rope``;
    ``window`` the sliding window (None: full attention); ``source`` where the numbers come from."""
    name: str
    kind: str
    layers: int
    kv_heads: int
    head_size: int
    latent: int
    rope: int
    window: object
    source: str


REAL_MODELS = (
    RealModel("Llama 3 8B", "GQA", 32, 8, 128, 0, 0, None,
              "https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json (num_hidden_layers 32, "
              "num_attention_heads 32, num_key_value_heads 8, hidden_size 4096)"),
    RealModel("Llama 3 70B", "GQA", 80, 8, 128, 0, 0, None,
              "https://huggingface.co/meta-llama/Meta-Llama-3-70B/blob/main/config.json (num_hidden_layers 80, "
              "num_attention_heads 64, num_key_value_heads 8, hidden_size 8192)"),
    RealModel("Mistral 7B", "GQA", 32, 8, 128, 0, 0, 4096,
              "https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json (num_hidden_layers 32, "
              "num_attention_heads 32, num_key_value_heads 8, hidden_size 4096, sliding_window 4096)"),
    RealModel("DeepSeek-V2", "MLA", 60, 0, 0, 512, 64, None,
              "https://huggingface.co/deepseek-ai/DeepSeek-V2/blob/main/config.json (num_hidden_layers 60, "
              "num_attention_heads 128, kv_lora_rank 512, qk_rope_head_dim 64, qk_nope_head_dim 128)"),
    RealModel("DeepSeek-V3", "MLA", 61, 0, 0, 512, 64, None,
              "https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json (num_hidden_layers 61, "
              "num_attention_heads 128, kv_lora_rank 512, qk_rope_head_dim 64, qk_nope_head_dim 128)"),
)


def bytes_per_token(model, bytes_per_number=BYTES_PER_NUMBER):
    """The KV cache's bytes per token of a RealModel."""
    if model.kind == "MLA":
        return model.layers * (model.latent + model.rope) * bytes_per_number
    return model.layers * 2 * model.kv_heads * model.head_size * bytes_per_number
