"""Seed 001's ``GRUAttention``, as written and fixed: attention pooling (注意力汇聚) with one
learned vector, which is not Bahdanau attention.

The seed scores each GRU output h_j with a single linear layer, e_j = w·h_j. No decoder state
enters the score, so the model has ONE set of weights per sequence (not one per output step):
w acts as a fixed, learned query. And its weighted sum
``torch.bmm(outputs.transpose(0, 1), weights)`` multiplies (B, T, 2h) by (B, T, 1), which fails
unless 2h == T, and then silently mixes features with time steps.
"""
import torch
from torch import nn
from torch.nn import functional as F


class SeedGRUAttention(nn.Module):
    """Seed 001's module. ``fixed=False`` keeps its bmm line; ``fixed=True`` uses the corrected one.

    forward(input (T, B, input_dim), sequence first like nn.GRU's default) -> (output (B, output_dim),
    weights (B, T, 1)). The weights are returned too (the seed drops them) so they can be looked at.
    """

    def __init__(self, input_dim, hidden_dim, output_dim, *, fixed=False):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.fixed = fixed
        self.gru = nn.GRU(input_dim, hidden_dim, bidirectional=True)
        self.attention = nn.Linear(hidden_dim * 2, 1, bias=False)   # the learned vector w (2h,)
        self.output = nn.Linear(hidden_dim * 2, output_dim)

    def forward(self, input):
        outputs, hidden = self.gru(input)                          # (T, B, 2h)
        weights = self.attention(outputs.transpose(0, 1))          # (B, T, 1): e_j = w·h_j, no query
        weights = F.softmax(weights, dim=1)                        # (B, T, 1), softmax over T
        context = pool(outputs, weights, fixed=self.fixed)         # (B, 2h)
        return self.output(context), weights


def pool(outputs, weights, *, fixed=True):
    """The weighted sum of the GRU outputs (T, B, 2h) with weights (B, T, 1) -> context (B, 2h).

    fixed=False is the seed's line: (B, T, 2h) @ (B, T, 1), a shape error unless 2h == T.
    fixed=True: (B, 2h, T) @ (B, T, 1) -> (B, 2h, 1), the shape the seed's comment promises.
    """
    if fixed:
        return torch.bmm(outputs.permute(1, 2, 0), weights).squeeze(2)      # (B, 2h, T) @ (B, T, 1)
    return torch.bmm(outputs.transpose(0, 1), weights).squeeze(2)           # seed 001, as written
