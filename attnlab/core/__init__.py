"""The reusable maths of attention: the API contract (docs/api.md). Plain torch: no matplotlib, no
widgets, nothing else of attnlab; its messages stay English.

checks       the one vocabulary of argument checks (inclusive bounds), used at the public boundary
masking      causal, sequence and local masks; the masked softmax
scoring      dot, scaled dot, cosine, Gaussian and additive scores
attention    scaled dot-product attention, Nadaraya-Watson, the d2l-style modules
multihead    multi-head attention, split and merge of heads
positional   sinusoidal positions, rotary positions (RoPE)
efficient    tiled (flash-style) and linear attention
transformer  encoder and decoder layers, the KV cache
data         toy data shared by several notebooks
gpt          the course's GPT (model, corpus, shipped weights), shared by notebooks 12 and 13
"""
