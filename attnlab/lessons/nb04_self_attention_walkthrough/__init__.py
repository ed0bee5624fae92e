"""Notebook 04, the self-attention (自注意力) walkthrough: the six steps, masks, and the cost of CNN / RNN /
self-attention layers against sequence length n, with their figures, the Play panel and two exercises.

data       "Thinking Machines", the toy sentence, the translation pair
steps      the six steps, the step table, the sentence's masked weights, layer costs and path lengths
figures    the step table drawn, the cost and path plots, the index thumbnail
live       the Play panel
exercises  the two "write it yourself" checks and the numeric questions' mistakes
"""
from .data import thinking_machines, translation_pair
from .exercises import check_attention, check_masked_softmax, divisor_mistakes, softmax_weight_mistakes
from .figures import cost_plot, draw_step_table, path_plot, thumbnail
from .live import play
from .steps import complexity_table, layer_cost, self_attention_steps, sentence_attention, short, step_table

__all__ = ["check_attention", "check_masked_softmax", "complexity_table", "cost_plot", "divisor_mistakes",
           "draw_step_table", "layer_cost", "path_plot", "play", "self_attention_steps", "sentence_attention", "short",
           "softmax_weight_mistakes", "step_table", "thinking_machines", "thumbnail", "translation_pair"]
