"""A Transformer made of attention alone: token embedding, layers of causal multi-head attention added to
the residual stream, an unembedding. No MLP, no LayerNorm, so every path from input to logits is a
product of matrices that can be read (Elhage et al. 2021, "A Mathematical Framework for Transformer
Circuits").

Positions: ``"learned"`` adds a learned position vector to the input of each layer's queries and keys
only, never to the residual stream (the "shortformer" placement, Press et al. 2021, which ARENA's
attention-only models use): what a head copies is then tokens, not positions. ``"rope"`` rotates
queries and keys by their position instead: ``attnlab.core.positional.rope``, notebook 06's rotation (Su et
al. 2021), in the one sign convention notebooks 06 and 12 use too.
"""
import copy
import math

import torch
from torch import nn

from ...core import checks
from ...core.positional import rope_unchecked
from .data import BATCH, CONTEXT, VOCAB

__all__ = ["POSITIONS", "ROPE_BASE", "AttentionOnly", "ablate", "ablate_unchecked", "accuracy", "accuracy_unchecked",
           "hand_built", "layer_attention", "run_unchecked"]

POSITIONS = ("learned", "rope")
ROPE_BASE = 10000.0


class AttentionOnly(nn.Module):
    """``layers`` layers of ``heads`` causal attention heads of size ``head_size`` on a residual stream of
    ``width``. ``model(tokens)`` -> logits (n, T, vocab); ``model.attention(tokens)`` -> a list, one per
    layer, of weights (n, heads, T, T). ``keep`` (layers, heads) scales each head's output (1: kept,
    0: ablated)."""

    @checks.arguments(layers=checks.Int(1, 8), width=checks.Int(1, 4096), heads=checks.Int(1, 64),
                      head_size=checks.Optional(checks.Int(1, 4096)), positions=checks.Choice(POSITIONS),
                      seed=checks.Int(0))
    def __init__(self, *, layers=2, width=64, heads=4, head_size=None, positions="learned", seed=0):
        super().__init__()
        head_size = head_size or width // heads
        if positions == "rope" and head_size % 2:
            raise checks.error("head_size", "an even size for rope", head_size)
        self.config = dict(layers=layers, width=width, heads=heads, head_size=head_size, positions=positions)
        generator = torch.Generator().manual_seed(seed)

        def init(*shape, fan_in):
            return nn.Parameter(torch.randn(*shape, generator=generator) / math.sqrt(fan_in))
        self.embed = init(VOCAB, width, fan_in=1)
        self.position = init(CONTEXT, width, fan_in=1) if positions == "learned" else None
        # per layer, per head: W_Q, W_K, W_V map the stream (width) to head_size; W_O maps back
        self.W_Q = init(layers, heads, head_size, width, fan_in=width)
        self.W_K = init(layers, heads, head_size, width, fan_in=width)
        self.W_V = init(layers, heads, head_size, width, fan_in=width)
        self.W_O = init(layers, heads, width, head_size, fan_in=head_size * heads)
        self.unembed = init(VOCAB, width, fan_in=width)
        self.register_buffer("keep", torch.ones(layers, heads))

    def forward(self, tokens):
        return run_unchecked(self, _tokens(tokens, "tokens"), need_weights=False)[0]

    def attention(self, tokens):
        """One tensor per layer: each head's weights (n, heads, T, T) on ``tokens`` (n, T)."""
        with torch.no_grad():
            return run_unchecked(self, _tokens(tokens, "tokens"), need_weights=True)[1]


def _tokens(tokens, name):
    checks.tensor(tokens, name, min_dim=2, floating=False)
    if tokens.dtype in (torch.bool,) or tokens.is_floating_point() or tokens.is_complex():
        raise checks.error(name, "an integer tensor of token ids", f"dtype {tokens.dtype}", kind=TypeError)
    if tokens.dim() != 2:
        raise checks.error(name, "shape (n, T)", tuple(tokens.shape))
    if not 1 <= tokens.shape[1] <= CONTEXT:
        raise checks.error(name, f"1 to {CONTEXT} positions", tokens.shape[1])
    if tokens.numel() and (tokens.min() < 0 or tokens.max() >= VOCAB):
        bad = tokens[(tokens < 0) | (tokens >= VOCAB)][0].item()
        raise checks.error(name, f"token ids in 0..{VOCAB - 1}", bad)
    return tokens.long()


def layer_attention(model, layer, stream, need_weights=True):
    """One layer's heads on the residual stream (n, T, width): (what they add to the stream, weights
    (n, heads, T, T) or None). Unchecked: the model's own path."""
    T = stream.shape[1]
    qk_in = stream if model.position is None else stream + model.position[:T]
    q = torch.einsum("hdw,ntw->nhtd", model.W_Q[layer], qk_in)
    k = torch.einsum("hdw,ntw->nhtd", model.W_K[layer], qk_in)
    v = torch.einsum("hdw,ntw->nhtd", model.W_V[layer], stream)
    if model.config["positions"] == "rope":                             # the core's RoPE, as notebooks 06 and 12 use it
        where = torch.arange(T, dtype=torch.float64)
        q, k = rope_unchecked(q, where, ROPE_BASE), rope_unchecked(k, where, ROPE_BASE)
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    weights = scores.masked_fill(~causal, float("-inf")).softmax(-1)
    z = weights @ v                                                     # (n, h, T, head_size)
    out = torch.einsum("hwd,nhtd,h->ntw", model.W_O[layer], z, model.keep[layer])
    return out, (weights if need_weights else None)


def run_unchecked(model, tokens, need_weights):
    """The model on ``tokens`` (n, T), unchecked (training and the panels): (logits (n, T, VOCAB), a list per
    layer of weights (n, heads, T, T), or of None when not ``need_weights``)."""
    stream = model.embed[tokens]
    patterns = []
    for layer in range(model.config["layers"]):
        out, weights = layer_attention(model, layer, stream, need_weights)
        stream = stream + out
        patterns.append(weights)
    return stream @ model.unembed.T, patterns


@checks.arguments(model=checks.Instance(AttentionOnly, "an AttentionOnly model (e.g. pretrained())"), batch=BATCH)
def accuracy(model, batch):
    """The fraction of ``batch``'s predictable positions whose next token the model's argmax gets right."""
    return accuracy_unchecked(model, batch)


def accuracy_unchecked(model, batch):
    """``accuracy`` without its checks (the panels, on a model and batch they made)."""
    with torch.no_grad():
        logits = run_unchecked(model, batch.tokens, need_weights=False)[0]
    guess = logits[:, :-1].argmax(-1)
    right = (guess == batch.tokens[:, 1:]) & batch.predictable[:, :-1]
    return right.sum().item() / batch.predictable[:, :-1].sum().item()


def hand_built(*, sharpness=20.0, layers=2):
    """The induction circuit written by hand, no training: width 3 VOCAB + CONTEXT with four subspaces,
    the current token (TOK), the previous token (PREV), the answer (OUT) and the position (POS, seen by
    queries and keys only), one head per layer of size VOCAB.

    Layer 1, the previous-token head: the query at t looks for position t-1 (its key is the position
    shifted by one) and copies that token into PREV. Layer 2, the induction head: the query is the
    current token (TOK), the keys are PREV (the token before each position), so it attends to where
    the current token came before, one place later, and copies the token found there into OUT; the
    unembedding reads OUT. ``layers=1`` keeps the induction head alone: without PREV, its keys see
    nothing, and it cannot find where to copy from. ``sharpness``: the logit of a match."""
    sharpness = checks.real(sharpness, "sharpness", positive=True)
    layers = checks.choice(layers, "layers", (1, 2))
    V, C = VOCAB, CONTEXT
    TOK, PREV, OUT, POS = 0, V, 2 * V, 3 * V
    model = AttentionOnly(layers=layers, width=3 * V + C, heads=1, head_size=V, positions="learned")
    scale = math.sqrt(V)                                   # undo the 1/sqrt(head_size) of the scores
    eye = torch.eye(V)
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        model.embed[:, TOK:TOK + V] = eye
        model.position[:, POS:POS + C] = torch.eye(C)
        induction = layers - 1
        if layers == 2:
            model.W_Q[0, 0, :C, POS:POS + C] = sharpness * scale * torch.eye(C)      # q_t = e_t
            model.W_K[0, 0, 1:C, POS:POS + C - 1] = torch.eye(C - 1)                 # k_s = e_(s+1)
            model.W_V[0, 0, :, TOK:TOK + V] = eye
            model.W_O[0, :, PREV:PREV + V, :] = eye
        model.W_Q[induction, 0, :, TOK:TOK + V] = sharpness * scale * eye            # the current token
        model.W_K[induction, 0, :, PREV:PREV + V] = eye                              # the token before s
        model.W_V[induction, 0, :, TOK:TOK + V] = eye
        model.W_O[induction, :, OUT:OUT + V, :] = eye
        model.unembed[:, OUT:OUT + V] = sharpness * eye
    return model.eval()


def ablate(model, layer, head):
    """A copy of ``model`` without head ``head`` of layer ``layer`` (its output multiplied by 0)."""
    checks.instance(model, "model", AttentionOnly, "an AttentionOnly model (e.g. pretrained())")
    layer = checks.count(layer, "layer")
    head = checks.count(head, "head")
    if layer >= model.config["layers"]:
        raise checks.error("layer", f"0..{model.config['layers'] - 1}", layer)
    if head >= model.config["heads"]:
        raise checks.error("head", f"0..{model.config['heads'] - 1}", head)
    return ablate_unchecked(model, layer, head)


def ablate_unchecked(model, layer, head):
    """``ablate`` without its checks (the circuit panel, on a layer and head its menu offers)."""
    out = copy.deepcopy(model)
    out.keep[layer, head] = 0.0
    return out
