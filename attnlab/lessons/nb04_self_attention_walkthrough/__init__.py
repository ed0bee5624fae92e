"""Notebook 04, the self-attention (自注意力) walkthrough: the six steps, masks, and the cost of CNN / RNN /
self-attention layers against sequence length, with their figures."""
from . import figures
from .figures import (
    draw_step_table, update_step_table, cost_plot, path_plot, thumbnail)
from . import steps
from .steps import (
    self_attention_steps, short, step_table, describe_step, SENTENCE, sentence_attention,
    LAYER_TYPES, COMPLEXITY, layer_cost, path_length, crossover, complexity_table)
