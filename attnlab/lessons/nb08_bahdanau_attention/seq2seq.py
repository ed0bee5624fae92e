"""A GRU encoder-decoder with attention (Bahdanau, seed 001), small enough to train on a CPU in
seconds on the toy date task of ``attnlab.dates``.

Encoder: embedding -> bidirectional GRU -> states h_j (B, Ts, 2·hidden).
Decoder, at each output step i: the query is the decoder state s_{i-1}; the attention over the
h_j gives weights alpha_ij and a context c_i = sum_j alpha_ij h_j; the GRU reads
[embed(y_{i-1}); c_i]; the output layer reads [s_i; c_i].
The scoring is additive (w_v^T tanh(W_q s + W_k h), Bahdanau) or scaled dot product.
"""
import time
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

from ...core import checks
from ...core.attention import AdditiveAttention, DotProductAttention
from ...ui.trainer import one_thread
from . import dates

__all__ = ["CHECKPOINTS", "DateTranslator", "translate", "trace", "train", "train_steps", "accuracy", "pretrained", "greedy_unchecked"]

CHECKPOINTS = Path(__file__).parent / "checkpoints"


class DateTranslator(nn.Module):
    """Bidirectional-GRU encoder, GRU decoder with "additive" or "dot" attention over the encoder states."""

    @checks.arguments(embed=checks.Int(1, 4096), hidden=checks.Int(1, 4096))
    def __init__(self, attention="additive", *, embed=16, hidden=32, seed=0):
        super().__init__()
        checks.choice(attention, "attention", ("additive", "dot"), expected="'additive' or 'dot'")
        # Initial weights from ``seed``, without touching (or depending on) the global RNG.
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(checks.count(seed, "seed", low=0))
            self._build(attention, embed, hidden)

    def _build(self, attention, embed, hidden):
        self.attention_kind = attention
        self.hidden = checks.count(hidden, "hidden", low=1)
        embed = checks.count(embed, "embed", low=1)
        H = 2 * hidden                                              # encoder state size (both directions)
        self.src_embed = nn.Embedding(len(dates.SOURCE_VOCAB), embed, padding_idx=0)
        self.encoder = nn.GRU(embed, hidden, batch_first=True, bidirectional=True)
        self.init_state = nn.Linear(H, H)
        self.tgt_embed = nn.Embedding(len(dates.TARGET_VOCAB), embed)
        self.decoder = nn.GRUCell(embed + H, H)
        self.attention = (AdditiveAttention(key_size=H, query_size=H, num_hiddens=hidden)
                          if attention == "additive" else DotProductAttention())
        self.out = nn.Linear(2 * H, len(dates.TARGET_VOCAB))

    def encode(self, src, valid_lens):
        """src (B, Ts) ids -> encoder states (B, Ts, 2h) and the decoder's first state (B, 2h)."""
        packed = nn.utils.rnn.pack_padded_sequence(self.src_embed(src), valid_lens.cpu(), batch_first=True,
                                                   enforce_sorted=False)
        states, _ = self.encoder(packed)
        states, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True, total_length=src.shape[1])
        mean = states.sum(1) / valid_lens[:, None]                       # (B, 2h): mean of the valid states
        return states, torch.tanh(self.init_state(mean))

    def step(self, y_prev, s, states, valid_lens):
        """One decoder step: -> logits (B, V), new state (B, 2h), weights (B, Ts)."""
        context = self.attention.forward_unchecked(s[:, None], states, states, valid_lens)  # (B, 1, 2h): made here
        weights = self.attention.attention_weights[:, 0]                  # (B, Ts)
        s = self.decoder(torch.cat([self.tgt_embed(y_prev), context[:, 0]], -1), s)
        return self.out(torch.cat([s, context[:, 0]], -1)), s, weights

    def forward(self, src, valid_lens, dec_in):
        """Teacher forcing: dec_in (B, Tt) -> logits (B, Tt, V)."""
        states, s = self.encode(src, valid_lens)
        logits = []
        for i in range(dec_in.shape[1]):
            step_logits, s, _ = self.step(dec_in[:, i], s, states, valid_lens)
            logits.append(step_logits)
        return torch.stack(logits, 1)


@torch.no_grad()
def _greedy(model, texts):
    """Greedy decoding -> (output ids (B, Tt), weights (B, Tt, Ts), queries (B, Tt, 2h), states (B, Ts, 2h))."""
    return greedy_unchecked(model, *dates.encode_sources(texts))


@torch.no_grad()
def greedy_unchecked(model, src, valid_lens):
    """Greedy decoding of sources already encoded (``dates.encode_sources_unchecked``): ids (B, Ts), valid_lens (B,)."""
    model.eval()
    with one_thread():
        states, s = model.encode(src, valid_lens)
        y = torch.full((src.shape[0],), dates.TARGET_VOCAB.index(dates.BOS))
        ids, weights, queries = [], [], []
        for _ in range(dates.TARGET_LEN + 1):
            queries.append(s)                                             # s_{i-1}: the query of step i
            logits, s, w = model.step(y, s, states, valid_lens)
            y = logits.argmax(-1)
            ids.append(y)
            weights.append(w)
    return torch.stack(ids, 1), torch.stack(weights, 1), torch.stack(queries, 1), states


_model = checks.Instance(DateTranslator, "a DateTranslator")


def _texts(x, name):
    if not isinstance(x, str):
        checks.Items(min_len=1)(x, name)


@checks.arguments(model=_model, texts=_texts)
def translate(model, texts):
    """Greedy decoding of date strings -> (outputs list of str, weights (B, TARGET_LEN + 1, MAX_SOURCE_LEN)).

    Row i of the weights is the attention of output step i (the last one writes <eos>) over the
    input characters; columns past an input's length (padding) are 0.
    """
    if isinstance(texts, str):
        texts = [texts]
    ids, weights, _, _ = _greedy(model, texts)
    return dates.decode_targets(ids), weights


@checks.arguments(model=_model, text=checks.Text())
def trace(model, text):
    """Everything one translation computes, for reading the attention by hand.

    Returns a dict: "source" (the checked text), "output" (str), "states" (Ts, 2h) encoder states h_j
    of the valid characters, "queries" (TARGET_LEN + 1, 2h) decoder states s_{i-1} used as the query
    of each step, "weights" (TARGET_LEN + 1, Ts).
    """
    source = dates.check_source(text)
    ids, weights, queries, states = _greedy(model, [source])
    n = len(source)
    return {"source": source, "output": dates.decode_targets(ids)[0], "states": states[0, :n],
            "queries": queries[0], "weights": weights[0, :, :n]}


_STEPS = checks.Int(1, 100_000)


@checks.arguments(model=_model, steps=_STEPS, batch_size=checks.Int(1, 4096), lr=checks.Real(positive=True, high=10),
                   seed=checks.Int(0), callback=checks.Optional(checks.Function()))
def train(model, steps=300, *, batch_size=64, lr=1e-2, seed=0, callback=None):
    """Train with teacher forcing on freshly generated dates; callback(step, loss) after each step.

    Returns the list of losses. Deterministic for a given seed (data and dropout-free model).
    """
    losses = []
    for step, loss in enumerate(train_steps(model, steps, batch_size=batch_size, lr=lr, seed=seed)):
        losses.append(loss)
        if callback is not None:
            callback(step, loss)
    return losses


@checks.arguments(model=_model, steps=_STEPS, batch_size=checks.Int(1, 4096), lr=checks.Real(positive=True, high=10),
                   seed=checks.Int(0))
def train_steps(model, steps=300, *, batch_size=64, lr=1e-2, seed=0):
    """``train`` one step per ``next()``: yields each step's loss (for a live trainer widget)."""
    if steps * batch_size > 1_000_000:
        raise checks.error("steps, batch_size", "at most 1000000 dates in all (steps × batch_size)",
                           f"{steps} × {batch_size} = {steps * batch_size}")
    return _train_steps(model, steps, batch_size, lr, seed)


def _train_steps(model, steps, batch_size, lr, seed):
    pairs = dates.random_dates(steps * batch_size, seed=seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for step in range(steps):
        model.train()
        with one_thread():
            loss = _train_step(model, optimizer, pairs[step * batch_size:(step + 1) * batch_size])
        model.eval()
        yield loss


def _train_step(model, optimizer, batch):
    """One teacher-forced step on a batch of (source, target) pairs; returns the loss."""
    src, valid_lens = dates.encode_sources([p[0] for p in batch])
    dec_in, labels = dates.encode_targets([p[1] for p in batch])
    logits = model(src, valid_lens, dec_in)                              # (B, Tt, V)
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return loss.item()


@checks.arguments(model=_model, n=checks.Int(1, 100_000), seed=checks.Int(0))
def accuracy(model, n=500, *, seed=12345):
    """Fraction of n fresh dates translated exactly right."""
    pairs = dates.random_dates(n, seed=seed)
    outputs, _ = translate(model, [p[0] for p in pairs])
    return sum(o == p[1] for o, p in zip(outputs, pairs)) / n


def pretrained(attention="additive"):
    """The shipped checkpoint (trained by ``python -m attnlab.lessons.nb08_bahdanau_attention.seq2seq``), in eval mode."""
    model = DateTranslator(attention)
    state = torch.load(CHECKPOINTS / f"dates_{attention}.pt", weights_only=True)
    model.load_state_dict(state)
    return model.eval()


def _main():
    """Retrain and save both checkpoints: python -m attnlab.lessons.nb08_bahdanau_attention.seq2seq"""
    CHECKPOINTS.mkdir(exist_ok=True)
    for kind in ("additive", "dot"):
        model = DateTranslator(kind, seed=0)
        t0 = time.perf_counter()
        losses = train(model, steps=300, seed=1)
        acc = accuracy(model)
        torch.save(model.state_dict(), CHECKPOINTS / f"dates_{kind}.pt")
        print(f"{kind}: final loss {losses[-1]:.4f}, exact-match accuracy {acc:.3f}, "
              f"{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    _main()
