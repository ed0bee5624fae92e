"""attnlab.core.transformer: the encoder and decoder layers equal torch's (copied weights), and the KV
cache gives what recomputing every position gives."""
import pytest
import torch

import attnlab as al
from attnlab.core import transformer as tr

CASES = [(norm_first, dtype) for norm_first in (True, False) for dtype in (torch.float32, torch.float64)]
TOL = {torch.float32: dict(atol=1e-5, rtol=1e-4), torch.float64: dict(atol=1e-12, rtol=1e-10)}


def _inputs(dtype, B=3, T=5, S=7, D=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    Y = torch.randn(B, T, D, generator=g, dtype=dtype)
    memory = torch.randn(B, S, D, generator=g, dtype=dtype)
    valid = torch.tensor([7, 4, 1])[:B]
    return Y, memory, valid


@pytest.mark.parametrize("norm_first,dtype", CASES)
def test_encoder_layer_equals_torch(norm_first, dtype):
    layer = tr.EncoderLayer(16, 4, 24, norm_first=norm_first).to(dtype).eval()
    _, X, valid = _inputs(dtype)
    ref = tr.torch_encoder_layer(layer)
    pad = ~al.sequence_mask(valid, X.shape[1])[:, 0]                               # torch: True = padding
    with torch.no_grad():
        torch.testing.assert_close(layer(X, valid), ref(X, src_key_padding_mask=pad), **TOL[dtype])
        torch.testing.assert_close(layer(X), ref(X), **TOL[dtype])


@pytest.mark.parametrize("norm_first,dtype", CASES)
def test_decoder_layer_equals_torch(norm_first, dtype):
    layer = tr.DecoderLayer(16, 4, 24, norm_first=norm_first).to(dtype).eval()
    Y, memory, valid = _inputs(dtype)
    ref = tr.torch_decoder_layer(layer)
    T, S = Y.shape[1], memory.shape[1]
    causal = ~al.causal_mask(T, T)                                                 # torch: True = masked
    pad = ~al.sequence_mask(valid, S)[:, 0]
    with torch.no_grad():
        torch.testing.assert_close(layer(Y, memory, valid),
                                   ref(Y, memory, tgt_mask=causal, memory_key_padding_mask=pad), **TOL[dtype])
        torch.testing.assert_close(layer(Y, memory), ref(Y, memory, tgt_mask=causal), **TOL[dtype])


@pytest.mark.parametrize("norm_first,dtype", CASES)
def test_cached_steps_equal_full_forward(norm_first, dtype):
    layer = tr.DecoderLayer(16, 4, 24, norm_first=norm_first).to(dtype).eval()
    Y, memory, valid = _inputs(dtype)
    cache = tr.KVCache()
    with torch.no_grad():
        full = layer(Y, memory, valid)
        steps = [layer.step(Y[:, t:t + 1], memory, cache, valid) for t in range(Y.shape[1])]
    assert len(cache) == Y.shape[1]
    torch.testing.assert_close(torch.cat(steps, dim=1), full, **TOL[dtype])


def test_bad_arguments_are_named():
    layer = tr.DecoderLayer(8, 2, 8)
    Y, memory, _ = _inputs(torch.float32, D=8)
    with pytest.raises(ValueError, match="^y:"):
        layer.step(Y, memory, tr.KVCache())
    with pytest.raises(TypeError, match="^cache:"):
        layer.step(Y[:, :1], memory, {})
    with pytest.raises(ValueError, match="^memory:"):
        layer(Y, memory[..., :4])
    with pytest.raises(ValueError, match="^layer:"):
        tr.torch_decoder_layer(tr.DecoderLayer(8, 2, 8, bias=False))
    with pytest.raises(ValueError, match="^layer:"):
        tr.torch_encoder_layer(tr.EncoderLayer(8, 2, 8, ffn=False))
