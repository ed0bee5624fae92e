"""The course's GPT, shared by notebooks 12 and 13: the model (``model``), the text it reads (``corpus``, the
prose of notebooks 00-11 in both languages) and its shipped weights (``shipped``: 4, 2 and 1 key/value heads,
trained and converted by ``python -m attnlab.lessons.nb12_gpt``). Notebook 12 trains and measures it; notebook
13 runs it with a sliding window and converts it to latent attention. It sits in core because two lessons use it.

model     GPT, Block, GroupedQueryAttention, new_caches
corpus    vocab, encode, decode, paragraphs, text: the corpus and its held-out tenth
shipped   CHECKPOINTS, load: the shipped weights
"""
