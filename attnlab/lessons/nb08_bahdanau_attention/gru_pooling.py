"""Seed 001's ``GRUAttention``, as written and fixed: attention pooling (注意力汇聚) with one
learned vector, which is not Bahdanau attention.

The seed scores each GRU output h_j with a single linear layer, e_j = w·h_j. No decoder state
enters the score, so the model has ONE set of weights per sequence (not one per output step):
w acts as a fixed, learned query. And its weighted sum
``torch.bmm(outputs.transpose(0, 1), weights)`` multiplies (B, n, 2h) by (B, n, 1), which fails
unless 2h == n, and then silently mixes features with time steps.
"""
import torch
from torch import nn
from torch.nn import functional as F

from ...core import checks

__all__ = ["SeedGRUAttention", "pool"]


class SeedGRUAttention(nn.Module):
    """Seed 001's module. ``fixed=False`` keeps its bmm line; ``fixed=True`` uses the corrected one.

    forward(input (n, B, input_dim), sequence first like nn.GRU's default) -> (output (B, output_dim),
    weights (B, n, 1)). The weights are returned too (the seed drops them) so they can be looked at.
    """

    @checks.arguments(input_dim=checks.Int(1, 4096), hidden_dim=checks.Int(1, 4096), output_dim=checks.Int(1, 4096),
                       fixed=checks.Flag())
    def __init__(self, input_dim, hidden_dim, output_dim, *, fixed=False):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.fixed = fixed
        self.gru = nn.GRU(input_dim, hidden_dim, bidirectional=True)
        self.attention = nn.Linear(hidden_dim * 2, 1, bias=False)   # the learned vector w (2h,)
        self.output = nn.Linear(hidden_dim * 2, output_dim)

    def forward(self, input):
        outputs, hidden = self.gru(input)                          # (n, B, 2h)
        weights = self.attention(outputs.transpose(0, 1))          # (B, n, 1): e_j = w·h_j, no query
        weights = F.softmax(weights, dim=1)                        # (B, n, 1), softmax over n
        context = pool(outputs, weights, fixed=self.fixed)         # (B, 2h)
        return self.output(context), weights


@checks.arguments(outputs=checks.Tensor(3), weights=checks.Tensor(3), fixed=checks.Flag())
def pool(outputs, weights, *, fixed=True):
    """The weighted sum of the GRU outputs (n, B, 2h) with weights (B, n, 1) -> context (B, 2h).

    fixed=False is the seed's line: (B, n, 2h) @ (B, n, 1), a shape error unless 2h == n.
    fixed=True: (B, 2h, n) @ (B, n, 1) -> (B, 2h, 1), the shape the seed's comment promises.
    """
    checks.same_kind(outputs, "outputs", weights, "weights")
    if fixed:
        return torch.bmm(outputs.permute(1, 2, 0), weights).squeeze(2)      # (B, 2h, n) @ (B, n, 1)
    return torch.bmm(outputs.transpose(0, 1), weights).squeeze(2)           # seed 001, as written
