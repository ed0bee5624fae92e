"""Real models' attention heads (notebook 12, section 6): how many query heads share how many key/value
heads, from each model's published config.

Each row: query heads, key/value heads, head size (hidden size / query heads unless the config says
head_dim), layers, and where the numbers come from. The Hugging Face config.json of each model (for
Llama 2 and 3 the meta-llama repositories are gated; the numbers were read from public copies whose
``_name_or_path`` names the model, e.g. TheBloke/Llama-2-70B-fp16 and NousResearch/Meta-Llama-3-8B-Instruct).
Falcon 7B's config says ``"multi_query": true`` (newer copies also carry ``"num_kv_heads": 71``, which
transformers ignores for multi-query, non-"new decoder architecture" Falcon): one key/value head, as its
fused query-key-value projection shows (4544 -> 4672 = 71 x 64 + 2 x 64).
"""
from typing import NamedTuple

__all__ = ["REAL_MODELS", "RealModel", "cache_bytes_per_token"]


class RealModel(NamedTuple):
    """One row of the table."""
    name: str
    query_heads: int
    kv_heads: int
    head_size: int
    layers: int
    source: str


REAL_MODELS = (
    RealModel("GPT-2 (124M)", 12, 12, 64, 12,
              "https://huggingface.co/openai-community/gpt2/blob/main/config.json (n_head 12, n_embd 768, n_layer 12)"),
    RealModel("Falcon 7B", 71, 1, 64, 32,
              "https://huggingface.co/tiiuae/falcon-7b/blob/main/config.json (n_head 71, hidden_size 4544, "
              "n_layer 32, multi_query true)"),
    RealModel("Llama 2 70B", 64, 8, 128, 80,
              "https://huggingface.co/meta-llama/Llama-2-70b-hf/blob/main/config.json (num_attention_heads 64, "
              "num_key_value_heads 8, hidden_size 8192, num_hidden_layers 80)"),
    RealModel("Mistral 7B", 32, 8, 128, 32,
              "https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json (num_attention_heads 32, "
              "num_key_value_heads 8, hidden_size 4096, num_hidden_layers 32)"),
    RealModel("Llama 3 8B", 32, 8, 128, 32,
              "https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json (num_attention_heads 32, "
              "num_key_value_heads 8, hidden_size 4096, num_hidden_layers 32)"),
    RealModel("Qwen2 7B", 28, 4, 128, 28,
              "https://huggingface.co/Qwen/Qwen2-7B/blob/main/config.json (num_attention_heads 28, "
              "num_key_value_heads 4, hidden_size 3584, num_hidden_layers 28)"),
)


def cache_bytes_per_token(model, bytes_per_number=2):
    """The KV cache's bytes per position of a RealModel: layers x 2 x kv_heads x head_size x bytes
    (2 for float16/bfloat16)."""
    return model.layers * 2 * model.kv_heads * model.head_size * bytes_per_number
