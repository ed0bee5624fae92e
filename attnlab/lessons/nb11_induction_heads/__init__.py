"""Notebook 11 (11_induction_heads.ipynb): in-context copying. A 2-layer attention-only model completes
``… A B … A → B`` with a previous-token head in layer 1 feeding an induction head in layer 2; built by hand,
trained live, measured, ablated, and compared with a 1-layer control and with RoPE.

    from attnlab.lessons import nb11_induction_heads as lesson
    lesson.VOCAB, lesson.CONTEXT, lesson.LENGTHS; b = lesson.repeats(n, lengths=..., seed=...)
    model = lesson.pretrained(layers=2); model(tokens); model.attention(tokens)
    lesson.scores(model, b), lesson.ablate(model, layer, head), lesson.train(layers=2, steps=..., seed=...)

data       the repeats task (BOS, x, x, filler) and its predictable positions
model      AttentionOnly (learned positions on queries and keys, or RoPE), the hand-built circuit, ablation
circuits   previous-token and induction scores, K-composition
analysis   loss per position, the circuit's heads, the QK/OV tables, the phase change
training   the training loop, the shipped runs (python -m attnlab.lessons.nb11_induction_heads)
shipped    the shipped checkpoints, snapshots and measurements
figures    the static figures and the index thumbnail
live       the Play panels: play (training snapshots), play_circuit (ablation, repeat length), play_trainer
exercises  the two "write it yourself" checks
"""
from .analysis import circuit, circuit_views, guesses, loss_by_position, restart_bets
from .circuits import k_composition, scores
from .data import CONTEXT, LENGTHS, VOCAB, repeats
from .exercises import check_induction_score, check_previous_token_head
from .figures import (
                      ablation_figure,
                      k_composition_figure,
                      length_figure,
                      length_table,
                      loss_figure,
                      loss_table,
                      patterns_figure,
                      previous_token_table,
                      scores_figure,
                      shortcut_table,
                      thumbnail,
                      training_figure,
                      training_table,
)
from .live import play, play_circuit, play_trainer
from .model import ablate, accuracy, hand_built
from .shipped import measured, pretrained
from .training import train

__all__ = ["CONTEXT", "LENGTHS", "VOCAB", "ablate", "ablation_figure", "accuracy", "check_induction_score",
           "check_previous_token_head", "circuit", "circuit_views", "guesses", "hand_built", "k_composition",
           "k_composition_figure", "length_figure", "length_table", "loss_by_position", "loss_figure", "loss_table",
           "measured", "patterns_figure", "play", "play_circuit", "play_trainer", "pretrained", "previous_token_table",
           "repeats", "restart_bets", "scores", "scores_figure", "shortcut_table", "thumbnail", "train",
           "training_figure", "training_table"]
