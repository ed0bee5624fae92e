"""Attention sinks, formed live (notebook 13): the Bigram-Backcopy task, a one-layer model that grows a sink on
its first token, and StreamingLLM's experiment on it.

The task (Bigram-Backcopy, Guo et al. 2024, "Active-dormant attention heads", section 2, after the triggers
of Bietti et al. 2023, "Birth of a transformer"): a sequence starts with BOS (token 0). Symbols 1 ... SYMBOLS
follow a fixed random bigram table (each symbol has SUCCESSORS possible next symbols, with random weights;
``transitions``), except after the TRIGGERS most frequent symbols (the triggers): the symbol after a trigger
copies the symbol before it ("backcopy"). The first symbol is drawn uniformly among the non-triggers, so no
two triggers are ever next to each other. A model predicts the bigram from the current symbol alone (the
feed-forward layer can), but the backcopy needs attention to the previous position: an attention head is
needed at triggers only. On ordinary (non-trigger) positions the head has nothing to do.

What forms (Guo et al.'s "active-dormant" head): on ordinary positions the head puts its weight on BOS, whose
value vector shrinks towards zero, so attending there adds (almost) nothing: an attention sink.
``sink_scores`` measures it: each head's mean weight on position 0 over ordinary positions (t >= 1).

Our setting differs from theirs (they used tiny Shakespeare's character bigrams, 65 symbols, width 256,
10,000 steps, learned positions): a random table of 128 symbols, width 32, RoPE (attnlab.core.gpt), 1,500
steps. Measured here (bench/exp_nb13_sinks.py): with 32 symbols or width 64 the head spread its weight
evenly over the context instead (an average of values is also nearly harmless) and the sink stayed below
0.3 after 1,000 steps; with 128 symbols in width 32 it passed 0.8 within 1,500 steps for three seeds.

StreamingLLM (Xiao et al. 2023): a sliding window that evicts position 0 takes the sink away; keeping the first
k positions (``sinks``) gives it back. ``window_losses`` measures the loss at each position past the window.
"""
from typing import NamedTuple

import torch
from torch.nn import functional as F

from ...core import checks
from ...core.gpt.model import GPT
from ...ui.trainer import one_thread, run_to_end
from .window import windowed_logits_unchecked

__all__ = ["CONTEXT", "EXAMPLE_SEED", "MODEL", "SUCCESSORS", "SYMBOLS", "TASK_SEED", "TRAIN", "TRIGGERS", "SinkBatch",
           "WindowLosses", "position_losses", "prose_batch", "run", "sink_batch", "sink_batch_unchecked", "sink_scores",
           "sink_scores_unchecked", "train_sink_model", "transitions", "triggers", "window_losses"]

SYMBOLS = 128                 # symbols 1 ... 128; token 0 is BOS
SUCCESSORS = 12               # possible next symbols of each symbol in the bigram table
TRIGGERS = 3                  # the most frequent symbols copy back
TASK_SEED = 0                 # the bigram table: one fixed task
EXAMPLE_SEED = 7              # sink_batch(1, seed=EXAMPLE_SEED): the sequence the figures show (7 triggers)
CONTEXT = 64                  # positions the model reads (a sequence has CONTEXT + 1 tokens: inputs and targets)
MODEL = dict(vocab_size=SYMBOLS + 1, d_model=32, heads=2, layers=1, context=CONTEXT)
TRAIN = dict(steps=1500, batch_size=32, lr=3e-3, weight_decay=0.01, betas=(0.9, 0.99), measure_every=25)
_TASK = {}


def transitions():
    """The bigram table (SYMBOLS, SYMBOLS) float64, rows summing to 1: symbol a (row a - 1) goes to SUCCESSORS
    symbols chosen at random, with weights 0.2 + uniform, normalised (a generator seeded with TASK_SEED)."""
    if "P" not in _TASK:
        g = torch.Generator().manual_seed(TASK_SEED)
        P = torch.zeros(SYMBOLS, SYMBOLS, dtype=torch.float64)
        for a in range(SYMBOLS):
            nxt = torch.randperm(SYMBOLS, generator=g)[:SUCCESSORS]
            w = torch.rand(SUCCESSORS, generator=g, dtype=torch.float64) + 0.2
            P[a, nxt] = w / w.sum()
        _TASK["P"] = P
    return _TASK["P"].clone()


def triggers():
    """The TRIGGERS symbols (token ids, 1 ... SYMBOLS) most frequent in the long run (the bigram chain's
    stationary distribution, by power iteration), most frequent first."""
    if "triggers" not in _TASK:
        P = transitions()
        pi = torch.full((SYMBOLS,), 1.0 / SYMBOLS, dtype=torch.float64)
        for _ in range(500):
            pi = pi @ P
        _TASK["triggers"] = (torch.argsort(pi, descending=True, stable=True)[:TRIGGERS] + 1)
    return _TASK["triggers"].clone()


class SinkBatch(NamedTuple):
    """Sequences for ``sink_scores``: ``tokens`` (n, T + 1) int64, position 0 first; ``trigger`` (n, T + 1) bool,
    True where the token is a trigger (the next token copies the one before it). The model reads tokens[:, :-1]
    and predicts tokens[:, 1:]; ordinary positions are the t >= 1 whose token is no trigger."""
    tokens: torch.Tensor
    trigger: torch.Tensor


def sink_batch_unchecked(n, generator, length=CONTEXT + 1):
    """``n`` Bigram-Backcopy sequences of ``length`` tokens drawn with ``generator``."""
    P, trig = transitions().float(), triggers()
    x = torch.zeros(n, length, dtype=torch.long)
    ordinary = torch.ones(SYMBOLS, dtype=torch.bool)
    ordinary[trig - 1] = False
    first = ordinary.float() / ordinary.sum()
    x[:, 1] = torch.multinomial(first.expand(n, SYMBOLS), 1, generator=generator)[:, 0] + 1
    for t in range(2, length):
        prev = x[:, t - 1]
        drawn = torch.multinomial(P[prev - 1], 1, generator=generator)[:, 0] + 1
        x[:, t] = torch.where(torch.isin(prev, trig), x[:, t - 2], drawn)
    return SinkBatch(x, torch.isin(x, trig))


@checks.arguments(n=checks.Int(1, 100_000), seed=checks.Int(0))
def sink_batch(n, *, seed=0):
    """``n`` sequences of the sink model's task (Bigram-Backcopy, CONTEXT + 1 tokens each, BOS first), drawn
    with a generator seeded with ``seed``: a SinkBatch(tokens, trigger)."""
    return sink_batch_unchecked(n, torch.Generator().manual_seed(seed))


@checks.arguments(n=checks.Int(1, 4096), seed=checks.Int(0))
def prose_batch(n, *, seed=0, length=None):
    """``n`` windows of the course's held-out prose (attnlab.core.gpt.corpus), ``length`` + 1 characters each
    (default the course GPT's context, 256) from random places (a generator seeded with ``seed``): a SinkBatch
    with no triggers, so every position t >= 1 counts as ordinary in ``sink_scores``."""
    from ...core.gpt import corpus
    length = 256 if length is None else checks.count(length, "length", low=1, high=4096)
    ids = torch.tensor(corpus.encode(corpus.text("heldout")), dtype=torch.long)
    starts = torch.randint(0, len(ids) - length - 1, (n,), generator=torch.Generator().manual_seed(seed))
    tokens = torch.stack([ids[s:s + length + 1] for s in starts.tolist()])
    return SinkBatch(tokens, torch.zeros_like(tokens, dtype=torch.bool))


def sink_scores_unchecked(model, b, window=None, sinks=0):
    """``sink_scores`` for checked arguments (``window``: the band to run with; None, the whole context)."""
    x = b.tokens[:, :-1]
    T = x.shape[1]
    with torch.no_grad(), one_thread():
        _, weights = windowed_logits_unchecked(model, x, T if window is None else window, sinks, need_weights=True)
    ordinary = ~b.trigger[:, :-1] & (torch.arange(T) >= 1)                          # (n, T)
    out = torch.stack([w[..., 0].double().transpose(0, 1)[:, ordinary].mean(-1) for w in weights])   # (L, H)
    return out


@checks.arguments(model=checks.Instance(GPT, "a course GPT (the sink model, or notebook 12's)"),
                  b=checks.Instance(SinkBatch, "a SinkBatch (sink_batch(n) or prose_batch(n))"))
def sink_scores(model, b):
    """Each head's mean attention weight on position 0 over the ordinary positions of ``b`` (t >= 1, tokens
    that are no trigger): float64 (layers, heads). A head that parks its weight on the first token scores
    near 1; one that spreads it evenly over t + 1 positions about the mean of 1 / (t + 1)."""
    if b.tokens.shape[1] - 1 > model.config["context"]:
        raise checks.error("b", f"at most context + 1 = {model.config['context'] + 1} tokens per sequence, got "
                         f"{b.tokens.shape[1]}")
    if int(b.tokens.max()) >= model.config["vocab_size"]:
        raise checks.error("b", f"token ids below the model's vocabulary size {model.config['vocab_size']}, got "
                         f"{int(b.tokens.max())}")
    return sink_scores_unchecked(model, b)


@checks.arguments(steps=checks.Int(1, 100_000), seed=checks.Int(0))
def run(steps=TRAIN["steps"], *, seed=0):
    """Train a fresh sink model (MODEL, weights drawn from ``seed``; batches from a generator seeded with
    seed + 1): yield {"loss", "first-token weight", "step", "model"} per step ("first-token weight": the larger
    of the heads' sink scores on 128 fixed sequences, measured every TRAIN["measure_every"] steps and at the
    end, carried between); return the model in eval mode. AdamW, constant learning rate, one thread."""
    model = GPT(**MODEL, seed=seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=TRAIN["lr"], weight_decay=TRAIN["weight_decay"],
                                  betas=TRAIN["betas"])
    generator = torch.Generator().manual_seed(seed + 1)
    probe = sink_batch_unchecked(128, torch.Generator().manual_seed(10_000 + seed))
    sink = 0.0
    for step in range(steps):
        b = sink_batch_unchecked(TRAIN["batch_size"], generator)
        with one_thread():
            model.train()
            logits = model(b.tokens[:, :-1])                                              # (B, T, V)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), b.tokens[:, 1:].reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if (step + 1) % TRAIN["measure_every"] == 0 or step + 1 == steps:
            model.eval()
            sink = float(sink_scores_unchecked(model, probe).max())
        yield {"loss": loss.item(), "first-token weight": sink, "step": step + 1, "model": model}
    return model.eval()


@checks.arguments(steps=checks.Int(1, 100_000), seed=checks.Int(0))
def train_sink_model(steps=TRAIN["steps"], seed=0):
    """Train a fresh sink model for ``steps`` steps (``run``): the model, in eval mode."""
    return run_to_end(run(steps, seed=seed))[0]


class WindowLosses(NamedTuple):
    """``window_losses``: ``full``, ``evicted`` (a window that drops position 0) and ``kept`` {k: a window
    that keeps the first k positions}: each (T,) float64, the mean loss (nats) at each predicting position over
    the ordinary ones of the batch; ``window``."""
    full: torch.Tensor
    evicted: torch.Tensor
    kept: dict
    window: int


def position_losses(model, b, window, sinks):
    """The mean loss (nats, float64 (T,)) at each position over ``b``'s ordinary positions, the model run with a
    sliding ``window`` keeping the first ``sinks`` (unchecked)."""
    x, y = b.tokens[:, :-1], b.tokens[:, 1:]
    with torch.no_grad(), one_thread():
        logits, _ = windowed_logits_unchecked(model, x, window, sinks)
    nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).double(), y.reshape(-1), reduction="none")
    nll = nll.reshape(y.shape)                                                           # (n, T)
    ordinary = ~b.trigger[:, :-1]
    return (nll * ordinary).sum(0) / ordinary.sum(0).clamp_min(1)


@checks.arguments(model=checks.Instance(GPT, "a course GPT (the sink model)"),
                  b=checks.Instance(SinkBatch, "a SinkBatch (sink_batch(n))"), window=checks.Int(2),
                  kept=checks.Items(checks.Int(1), min_len=0))
def window_losses(model, b, *, window, kept=(1, 2, 4)):
    """StreamingLLM's experiment: the loss at each position of ``b``'s ordinary positions with full attention,
    with a sliding window of ``window`` that evicts everything older (position 0 too), and with windows that
    keep the first k positions for each k in ``kept`` (each k < window). A WindowLosses."""
    T = b.tokens.shape[1] - 1
    for k in kept:
        if k >= window:
            raise checks.error("kept", f"sink counts below window={window}, got {k}")
    return WindowLosses(position_losses(model, b, T, 0), position_losses(model, b, window, 0),
                        {k: position_losses(model, b, window, k) for k in kept}, window)

