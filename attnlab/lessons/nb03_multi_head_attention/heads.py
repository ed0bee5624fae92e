"""Hand-built attention heads (not trained): a toy multi-head attention whose heads do
recognisably different jobs, for notebook 03.

Each token's input vector is [one-hot position (8) | one-hot word (6) | 1]. The projections are
set by hand so that, with scaled dot-product scores,

    head "previous": query i scores key i-1   (the previous word)
    head "self":     query i scores key i     (the word itself)
    head "word":     every query scores the key holding one chosen word ("cat")
    head "next":     query i scores key i+1   (the next word)

with a logit of ``strength`` on the target and 0 elsewhere (at temperature 1). Each head's value
is the one-hot word of the key, so a head's slice of the output says which word it read.

Shape legend: B batch, H heads, n tokens, D = H * HEAD_SIZE.
"""
import math

import torch

from ...core import checks
from ...core.multihead import MultiHeadAttention
from ...i18n import N_, gettext as _
from ...ui import text

__all__ = [
    "VOCAB", "MAX_LEN", "HEAD_SIZE", "INPUT_SIZE", "HEAD_KINDS", "HEAD_TITLES", "SENTENCES", "embed",
    "head_projections", "toy_multihead", "head_titles", "titles_of", "head_names", "names_of", "head_readout", "readout_table"
]

VOCAB = ("<pad>", "the", "cat", "sat", "on", "mat")
MAX_LEN = 8                                   # positions the one-hot position code can hold
HEAD_SIZE = 8                                 # d_k = d_v of every toy head (>= MAX_LEN, >= len(VOCAB))
INPUT_SIZE = MAX_LEN + len(VOCAB) + 1         # position | word | constant 1
HEAD_KINDS = ("previous", "self", "word", "next")
HEAD_TITLES = {"previous": N_("previous word"), "self": N_("same word"), "word": N_("the word '{target}'"),
               "next": N_("next word")}                # looked up with _() where shown
SENTENCES = ("the cat sat on the mat", "the cat sat")


@checks.arguments(sentences=checks.Items(checks.Text()))
def embed(sentences=SENTENCES, *, length=None, dtype=torch.float64):
    """Token vectors for a batch of sentences, padded with "<pad>" to a common length.

    Args:
        sentences: strings of words from VOCAB, separated by spaces.
        length: n, the padded length (default: the longest sentence); at most MAX_LEN.
    Returns:
        (X (B, n, INPUT_SIZE), valid_lens (B,) int64, tokens: B tuples of n words).
    """
    if isinstance(sentences, str) or not len(sentences):
        raise checks.error("sentences", "a non-empty list of strings", repr(sentences))
    words = [s.split() for s in sentences]
    for s, w in zip(sentences, words):
        unknown = [x for x in w if x not in VOCAB]
        if unknown or not w:
            raise checks.error("sentences", f"words from {VOCAB}", repr(s))
    T = max(len(w) for w in words) if length is None else checks.count(length, "length", low=1)
    if T > MAX_LEN or T < max(len(w) for w in words):
        raise checks.error("length", f"between the longest sentence and {MAX_LEN}", T)
    tokens = [tuple(w + ["<pad>"] * (T - len(w))) for w in words]
    X = torch.zeros(len(words), T, INPUT_SIZE, dtype=dtype)                    # (B, T, INPUT_SIZE)
    for b, toks in enumerate(tokens):
        for t, word in enumerate(toks):
            X[b, t, t] = 1.0                                                   # position t
            X[b, t, MAX_LEN + VOCAB.index(word)] = 1.0                         # word identity
            X[b, t, -1] = 1.0                                                  # constant
    valid_lens = torch.tensor([len(w) for w in words])
    return X, valid_lens, tokens


def head_projections(kind, *, target="cat", strength=4.0):
    """W_q, W_k, W_v (INPUT_SIZE, HEAD_SIZE) of one toy head, so that x W_q · x' W_k / sqrt(d_k)
    is ``strength`` when x' is the head's target for x, and 0 otherwise."""
    checks.choice(kind, "kind", HEAD_KINDS, expected=f"one of {HEAD_KINDS}")
    checks.choice(target, "target", VOCAB, expected=f"a word from {VOCAB}")
    c = checks.real(strength, "strength") * math.sqrt(HEAD_SIZE)              # undo the ÷ sqrt(d_k)
    W_q = torch.zeros(INPUT_SIZE, HEAD_SIZE, dtype=torch.float64)
    W_k = torch.zeros_like(W_q)
    if kind == "word":
        W_q[-1, 0] = c                                                         # every query asks "target?"
        W_k[MAX_LEN + VOCAB.index(target), 0] = 1.0                            # only the target answers
    else:
        shift = {"previous": 1, "self": 0, "next": -1}[kind]                   # key j presents j + shift
        for i in range(MAX_LEN):
            W_q[i, i] = c                                                      # query i asks for slot i
            if 0 <= i + shift < HEAD_SIZE:
                W_k[i, i + shift] = 1.0
    W_v = torch.zeros_like(W_q)
    for w in range(len(VOCAB)):
        W_v[MAX_LEN + w, w] = 1.0                                              # value = the key's word
    return W_q, W_k, W_v


def toy_multihead(num_heads=4, *, target="cat", strength=4.0, dtype=torch.float64):
    """An ``attnlab.MultiHeadAttention`` whose first ``num_heads`` heads are HEAD_KINDS, built by hand.

    D = num_heads * HEAD_SIZE; W_o is the identity, so the output is the heads' outputs side by side.
    """
    H = checks.count(num_heads, "num_heads", low=1)
    if H > len(HEAD_KINDS):
        raise checks.error("num_heads", f"at most {len(HEAD_KINDS)} (one per toy head)", H)
    D = H * HEAD_SIZE
    with torch.device("meta"):                       # no random init: the global RNG is left untouched
        mha = MultiHeadAttention(INPUT_SIZE, INPUT_SIZE, INPUT_SIZE, D, H)
    mha = mha.to_empty(device="cpu").to(dtype)       # every weight is set below
    parts = [head_projections(k, target=target, strength=strength) for k in HEAD_KINDS[:H]]
    with torch.no_grad():
        for i, layer in enumerate((mha.W_q, mha.W_k, mha.W_v)):
            W = torch.cat([p[i] for p in parts], dim=1)                        # (INPUT_SIZE, D): head h = cols h*8..
            layer.weight.copy_(W.T)                                            # nn.Linear stores (out, in)
        mha.W_o.weight.copy_(torch.eye(D))
    mha.requires_grad_(False)                                                  # hand-built: nothing to train
    mha.eval()
    return mha


@checks.arguments(num_heads=checks.Int(1, len(HEAD_KINDS), why="one per toy head"), target=checks.Choice(VOCAB))
def head_titles(num_heads, target="cat"):
    """Short names of the first ``num_heads`` toy heads, e.g. "head 1: previous word"."""
    return titles_of(num_heads, target)


def titles_of(num_heads, target="cat"):
    """``head_titles`` without its checks: the Play panel's path."""
    return [_("head {h}: {title}").format(h=h + 1, title=name) for h, name in enumerate(names_of(num_heads, target))]


@checks.arguments(num_heads=checks.Int(1, len(HEAD_KINDS), why="one per toy head"), target=checks.Choice(VOCAB))
def head_names(num_heads, target="cat"):
    """What each of the first ``num_heads`` toy heads looks at, e.g. "previous word" (``head_titles``
    without "head 1: ")."""
    return names_of(num_heads, target)


def names_of(num_heads, target="cat"):
    """``head_names`` without its checks: the Play panel's path."""
    return [_(HEAD_TITLES[k]).format(target=target) for k in HEAD_KINDS[:num_heads]]


@checks.arguments(num_heads=checks.Int(1, len(HEAD_KINDS), why="one per toy head"))
def head_readout(output, num_heads):
    """(B, n, D) output of ``toy_multihead`` -> (B, n, H, len(VOCAB)): how much of each word head h read."""
    checks.tensor(output, "output", min_dim=3)
    B, T, D = output.shape
    if D != num_heads * HEAD_SIZE:
        raise checks.error("output", f"last dim {num_heads * HEAD_SIZE} (num_heads * {HEAD_SIZE})", D)
    return output.detach().reshape(B, T, num_heads, HEAD_SIZE)[..., :len(VOCAB)]  # (B, T, H, V)


@checks.arguments(readout=checks.Tensor(3), tokens=checks.Items(checks.Text()), titles=checks.Items(checks.Text()))
def readout_table(readout, tokens, titles):
    """Text table for one batch row, readout (n, H, V): per query token and head, the word read most."""
    if len(tokens) != readout.shape[0] or len(titles) != readout.shape[1]:
        raise checks.error("tokens, titles",
                           f"{readout.shape[0]} tokens and {readout.shape[1]} titles for readout of shape "
                           f"{tuple(readout.shape)}", f"{len(tokens)} and {len(titles)}")
    V = readout[0, 0, 0].numel()
    named = {title: name for target in VOCAB                     # "head 1: previous word" -> "previous word"
             for title, name in zip(head_titles(len(HEAD_KINDS), target), head_names(len(HEAD_KINDS), target))}
    names = [named.get(t, t) for t in titles]                    # any other title as given
    rows = [[_("query"), *names]]
    for t, tok in enumerate(tokens):
        cells = []
        for h in range(len(titles)):
            amounts = readout[t, h]
            w = int(torch.argmax(amounts)) if V else 0
            cells.append(f"{VOCAB[w]} {float(amounts[w]):.2f}")
        rows.append([tok, *cells])
    return text.table(rows, align="<" + ">" * len(titles), gap=" | ")     # columns line up in both languages
