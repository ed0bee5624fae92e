"""Notebook 12's generation, timed: seconds per generated character against length, with and without the
KV cache, and 100 characters generated as one slider move would (the shipped model, prompt of 20
characters, temperature 0.8, top-k 20, top-p 0.9, one CPU thread).

    python bench/bench_nb12_generate.py
    OMP_NUM_THREADS=1 python bench/bench_nb12_generate.py --profile

Prints the machine (cores, load average before and after; wall seconds grow with the load) and the
medians. Issue 36 asks that 100 characters on a slider move stay interactive.

``--profile`` says where one step's time goes (issue 49: notebook 12, section 5, names the costs a
cached step has whatever n). Two measurements, both on one thread:
- torch.profiler over 41 steps: how many calls to torch's operations one step makes, and the share of
  the time inside those operations per kind (matrix products, the attention kernel, LayerNorm, GELU,
  and the small ones: RoPE's sines and cosines, appending to the cache, repeating key/value heads,
  reshapes, masks);
- CPU time (time.process_time, so another program on the machine does not count), median of 31
  samples of 20 calls each, of a whole step and of each of its parts run alone on the same inputs:
  the embedding, the four layers' LayerNorms, attentions (projections, RoPE, the cache, the kernel)
  and feed-forward networks, the output layer (the final LayerNorm and the logits of the 1,151
  characters), then the attention kernel alone and the softmax over the 1,151 logits that generation
  computes after the step (float64, as ``filtered`` does), alone and with top-k and top-p.
"""
import argparse
import collections
import copy
import functools
import os
import platform
import statistics
import time

import torch

from attnlab.core.attention import attend_unchecked
from attnlab.lessons import nb12_gpt as lesson
from attnlab.lessons.nb12_gpt.generation import filtered_unchecked
from attnlab.lessons.nb12_gpt.model import new_caches
from attnlab.lessons.nb12_gpt.timing import step_seconds

LENGTHS = (16, 32, 64, 128, 192, 255)
PROMPT = "The attention weights"[:20]
# torch.profiler's names of the operations, by kind (self time; any other name is a small operation)
KINDS = {"matrix products": ("aten::mm", "aten::addmm", "aten::bmm"),
         "attention kernel": ("aten::_scaled_dot_product_flash_attention_for_cpu",),
         "LayerNorm": ("aten::native_layer_norm",), "GELU": ("aten::gelu",)}
SMALL = "small operations (RoPE, cache append, repeat, reshapes, masks)"


def cpu_ms(call, samples=31, calls=20):
    """Median CPU milliseconds of one ``call()``: ``samples`` samples of ``calls`` calls each."""
    times = []
    for _ in range(samples):
        c0 = time.process_time()
        for _ in range(calls):
            call()
        times.append((time.process_time() - c0) / calls)
    return 1e3 * statistics.median(times)


def _cached(model, tokens, n):
    caches = new_caches(model)
    model(tokens[:, :n], caches)
    return caches


def _fresh(caches):
    """Copies of the caches (the step appends to its copies; the cached tensors themselves are kept)."""
    return [copy.copy(c) for c in caches]


def profiled_calls(model, n, cache, steps=41):
    """(top-level calls to torch's operations per step, {kind: share of the time inside them})."""
    tokens = torch.arange(n + 1)[None] % model.config["vocab_size"]
    caches = _cached(model, tokens, n) if cache else None
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        for _ in range(steps):
            model(tokens[:, n:], _fresh(caches)) if cache else model(tokens)
    kinds = collections.Counter()
    for e in prof.key_averages():
        kinds[next((k for k, names in KINDS.items() if e.key in names), SMALL)] += e.self_cpu_time_total
    total = sum(kinds.values())
    calls = sum(e.cpu_parent is None for e in prof.events())
    return calls / steps, {k: v / total for k, v in kinds.most_common()}


def parts_ms(model, n):
    """CPU ms of a cached step after n positions, and of its parts run alone on the same inputs."""
    tokens = torch.arange(n + 1)[None] % model.config["vocab_size"]
    caches = _cached(model, tokens, n)
    new = tokens[:, n:]
    out = {"whole step (with the cache)": cpu_ms(lambda: model(new, _fresh(caches)))}
    X = model.embed(new)
    parts = collections.Counter()
    parts["embedding"] = cpu_ms(lambda: model.embed(new))
    for block, cache in zip(model.blocks, caches):
        h = block.norm1(X)
        parts["LayerNorms (8 in the layers)"] += cpu_ms(functools.partial(block.norm1, X))
        parts["attention: projections, RoPE, cache, kernel (4 layers)"] += cpu_ms(
            lambda b=block, h=h, c=cache: b.attention(h, copy.copy(c)))
        X = X + block.attention(h, copy.copy(cache))
        h2 = block.norm2(X)
        parts["LayerNorms (8 in the layers)"] += cpu_ms(functools.partial(block.norm2, X))
        parts["feed-forward networks (4 layers)"] += cpu_ms(functools.partial(block.ffn, h2))
        X = X + block.ffn(h2)
    parts["output: final LayerNorm, logits of the 1,151 characters"] = cpu_ms(
        lambda: model.norm(X) @ model.embed.weight.T)
    out.update(parts)
    out["sum of the parts"] = sum(parts.values())
    d = model.config["d_model"] // model.config["heads"]
    q, k = torch.randn(1, 4, 1, d), torch.randn(1, 4, n + 1, d)
    out["of which the attention kernel alone, 4 layers"] = 4 * cpu_ms(lambda: attend_unchecked(q, k, k, None, d ** -0.5,
                                                                                                need_weights=False))
    z = model(new, _fresh(caches))[0, -1]
    out["after the step: softmax over the 1,151 logits (float64)"] = cpu_ms(lambda: filtered_unchecked(z, 0.8, None, None))
    out["after the step: softmax, top-k 20, top-p 0.9"] = cpu_ms(lambda: filtered_unchecked(z, 0.8, 20, 0.9))
    out["without the cache: all n + 1 positions"] = cpu_ms(lambda: model(tokens), samples=11, calls=5)
    return out


def profile():
    torch.set_num_threads(1)
    model = lesson.pretrained().eval()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__}, "
          f"one thread, load average before {os.getloadavg()[0]:.2f}")
    with torch.no_grad():
        for n in (16, 255):
            for cache in (True, False):
                calls, shares = profiled_calls(model, n, cache)
                print(f"n = {n}, {'with' if cache else 'without'} the cache: {calls:.0f} calls to torch operations "
                      f"per step; time inside them: " + ", ".join(f"{k} {v:.0%}" for k, v in shares.items()))
        for n in (16, 255):
            print(f"\nCPU ms (median), one step after n = {n} positions, and its parts alone:")
            for name, ms in parts_ms(model, n).items():
                print(f"  {name:58s} {ms:7.3f}")
    print(f"\nload average after {os.getloadavg()[0]:.2f}")


def main():
    load0 = os.getloadavg()
    model = lesson.pretrained()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__}, "
          f"load average before {load0[0]:.2f}")
    with_cache = step_seconds(model, LENGTHS, cache=True, repeats=7)
    without = step_seconds(model, LENGTHS, cache=False, repeats=7)
    print("length  with cache (ms)  without (ms)  ratio")
    for n, a, b in zip(LENGTHS, with_cache, without):
        print(f"{n:6d}  {1e3 * a:15.2f}  {1e3 * b:12.2f}  {b / a:5.1f}")
    for cache in (True, False):
        walls, cpus = [], []
        for seed in range(7):
            t0, c0 = time.perf_counter(), time.process_time()
            lesson.generate(model, PROMPT, 100, temperature=0.8, top_k=20, top_p=0.9, seed=seed, cache=cache)
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        print(f"100 characters, cache={cache}: median {statistics.median(walls):.3f} s wall, "
              f"{statistics.median(cpus):.3f} s CPU (7 runs)")
    print(f"load average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profile", action="store_true", help="where one step's time goes (see the docstring)")
    (profile if parser.parse_args().profile else main)()
