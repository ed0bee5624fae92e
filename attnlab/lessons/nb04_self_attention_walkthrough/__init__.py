"""Notebook 04, the self-attention (自注意力) walkthrough: the six steps, masks, and the cost of CNN / RNN /
self-attention layers against sequence length n, with their figures, the Play panel and two exercises."""
from . import exercises, figures, steps  # noqa: F401
from .figures import (
    StepTable, draw_step_table, cost_plot, path_plot, thumbnail)
from .steps import (
    self_attention_steps, short, step_table, step_table_text, describe_step, SENTENCE, sentence_attention,
    LAYER_TYPES, COMPLEXITY, layer_cost, path_length, crossover, complexity_table, plain_label)
from .play import CONTROLS, WalkthroughPlay, play, sentence_title
from .exercises import (
    attention_cases, masked_cases, check_attention, check_masked_softmax, divisor_mistakes, softmax_weight_mistakes,
    ATTENTION_MISTAKES, MASKED_MISTAKES)
