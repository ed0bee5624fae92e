"""The training commands of notebook 13 (each measured on one CPU thread; results in checkpoints/results.json):

    python -m attnlab.lessons.nb13_long_context sinks    the sink model (sinks.run, TRAIN["steps"] steps, seed 0) and
                                                         every sink and window measurement: its scores, StreamingLLM's
                                                         experiment on it, notebook 12's model measured the same way,
                                                         and notebook 12's held-out bits with sliding windows
    python -m attnlab.lessons.nb13_long_context latent   notebook 12's model converted to latent attention for each of
                                                         LATENT_SIZES, its attention fine-tuned (FINE_TUNE), measured
                                                         beside MHA, GQA and MQA, and a control: MHA's attention
                                                         fine-tuned the same way
    python -m attnlab.lessons.nb13_long_context          both

Fine-tuning (``fine_tune``): random windows of context + 1 characters of the training text (a generator seeded
with ``seed``), AdamW on the attention weights only (the rest stays notebook 12's), a warm-up of 10 steps then a
cosine from FINE_TUNE["lr"] to a tenth of it, gradients clipped to norm 1.
"""
import json
import math
import platform
import time

import torch
from torch.nn import functional as F

from ...core.gpt import measure, shipped as course
from ...ui.trainer import one_thread, run_to_end
from . import sinks
from .checkpoints import RESULTS, SINK, latent_path
from .mla import cache_bytes_per_token, convert
from .shipped import LATENT_SIZES, sink_model
from .window import windowed_logits_unchecked

__all__ = ["FINE_TUNE", "FROM", "SINK_MEASURE", "WINDOWS", "fine_tune", "main", "measure_latent", "measure_sinks",
           "windowed_bits"]

FINE_TUNE = dict(steps=200, batch_size=16, lr=1e-3, warmup=10, weight_decay=0.1, betas=(0.9, 0.95))
SINK_MEASURE = dict(sequences=1024, score_seed=1, window_seed=2, window=16, kept=(1, 2, 4), prose=32)
WINDOWS = (16, 32, 64, 128, 256)      # notebook 12's model: held-out bits at positions 128-255 with these windows
FROM = 128                             # ... the positions measured, the same for every window


def fine_tune(model, steps=FINE_TUNE["steps"], *, seed=0):
    """Fine-tune ``model``'s attention weights on the course's training text (see the module docstring):
    yield {"loss", "step", "model"} per step; return the model in eval mode."""
    ids = measure.split_ids("train")
    C = model.config["context"]
    params = [p for name, p in model.named_parameters() if ".attention." in name]
    for name, p in model.named_parameters():
        p.requires_grad_(".attention." in name)
    o = FINE_TUNE
    optimizer = torch.optim.AdamW(params, lr=o["lr"], weight_decay=o["weight_decay"], betas=o["betas"])
    warmup = min(o["warmup"], steps)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: (s + 1) / warmup if s < warmup else
                                                 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * (s - warmup) / max(1, steps - warmup))))
    generator = torch.Generator().manual_seed(seed)
    for step in range(steps):
        starts = torch.randint(0, len(ids) - C - 1, (o["batch_size"],), generator=generator)
        window = torch.stack([ids[s:s + C + 1] for s in starts.tolist()])                # (B, C + 1)
        with one_thread():
            model.train()
            logits = model(window[:, :-1])                                               # (B, C, V)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), window[:, 1:].reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
            schedule.step()
        yield {"loss": loss.item(), "step": step + 1, "model": model}
    for p in model.parameters():
        p.requires_grad_(True)
    return model.eval()


def _bits(model):
    with one_thread():
        return measure.bits_per_char_unchecked(model, "heldout")


def windowed_bits(model, window, sinks_kept=0, start=FROM, batch_size=16):
    """Held-out bits per character of ``model`` with a sliding window (and ``sinks_kept`` first positions), over
    the positions start ... context - 1 of each context-long window of the held-out text (every window of
    measure.bits_per_char's cut that is whole): the same characters, the same positions, for every window."""
    ids = measure.split_ids("heldout")
    C = model.config["context"]
    starts = [s for s in range(0, len(ids) - C - 1, C)]
    total, count = 0.0, 0
    with torch.no_grad(), one_thread():
        for i in range(0, len(starts), batch_size):
            chunk = torch.stack([ids[s:s + C + 1] for s in starts[i:i + batch_size]])      # (B, C + 1)
            logits, _ = windowed_logits_unchecked(model, chunk[:, :-1], window, sinks_kept)
            nll = F.cross_entropy(logits[:, start:].reshape(-1, logits.shape[-1]).double(),
                                  chunk[:, start + 1:].reshape(-1), reduction="sum")
            total += nll.item()
            count += chunk[:, start + 1:].numel()
    return total / count / math.log(2)


def _machine():
    return {"machine": platform.processor() or platform.machine(), "torch": torch.__version__, "threads": 1}


def _write(section, value):
    results = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    results[section] = value
    RESULTS.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


def _round(xs, digits=4):
    return [None if x != x else round(float(x), digits) for x in xs]


def measure_sinks(seed=0):
    """Train the sink model and take every measurement of sections 2 and 3 (see the module docstring); write
    checkpoints/sink.pt and results.json["sinks"]."""
    c0, t0 = time.process_time(), time.perf_counter()
    model, history, seconds = run_to_end(sinks.run(sinks.TRAIN["steps"], seed=seed))
    torch.save({"config": model.config, "state": model.state_dict()}, SINK)
    model = sink_model()                                   # measure what ships
    m = SINK_MEASURE
    scored = sinks.sink_batch(m["sequences"], seed=m["score_seed"])
    scores = sinks.sink_scores(model, scored)
    with torch.no_grad(), one_thread():
        x = scored.tokens[:, :-1]
        _, weights = windowed_logits_unchecked(model, x, x.shape[1], 0, need_weights=True)
        block = model.blocks[0]
        values = block.attention.W_v(block.norm1(model.embed(x)))                         # (n, T, K d)
    w = weights[0]                                                                         # (n, H, T, T)
    trig = scored.trigger[:, :-1]
    previous = w.diagonal(offset=-1, dim1=-2, dim2=-1).transpose(0, 1)                      # (H, n, T - 1)
    on_previous = previous[:, trig[:, 1:]].mean(-1)                                         # (H,) at triggers
    on_bos_at_triggers = w[..., 0].transpose(0, 1)[:, trig].mean(-1)
    norms = values.norm(dim=-1)                                                             # (n, T)
    tested = sinks.sink_batch(m["sequences"], seed=m["window_seed"])
    losses = sinks.window_losses(model, tested, window=m["window"], kept=m["kept"])
    P = sinks.transitions()
    xs, ys = tested.tokens[:, :-1], tested.tokens[:, 1:]
    ordinary = ~tested.trigger[:, :-1]
    best = -torch.log(P[(xs - 1).clamp_min(0), ys - 1])                                     # the task's own loss
    best[:, 0] = math.log(sinks.SYMBOLS - sinks.TRIGGERS)                                   # BOS: a uniform first symbol
    best = torch.where(ordinary, best, 0.0)                                                 # (a copy's pair may be -inf)
    best_by_position = (best.sum(0) / ordinary.sum(0).clamp_min(1)).tolist()
    past = slice(m["window"], None)
    gpt = course.load_unchecked(4)
    prose = sinks.prose_batch(m["prose"], seed=0)
    gpt_scores = sinks.sink_scores(gpt, prose)
    window_bits = {str(wd): windowed_bits(gpt, wd) for wd in WINDOWS}
    out = {
        "command": "python -m attnlab.lessons.nb13_long_context sinks", **_machine(), "seed": seed,
        "task": {"symbols": sinks.SYMBOLS, "successors": sinks.SUCCESSORS, "triggers": sinks.triggers().tolist(),
                 "context": sinks.CONTEXT, "task seed": sinks.TASK_SEED},
        "model": sinks.MODEL, "training": {k: list(v) if isinstance(v, tuple) else v for k, v in sinks.TRAIN.items()},
        "cpu seconds": round(seconds["cpu"], 1), "wall seconds": round(seconds["wall"], 1),
        "loss every 10 steps": _round(history["loss"][9::10]),
        "first-token weight every 25 steps": _round(history["first-token weight"][24::25]),
        "scores": {"sequences": m["sequences"], "seed": m["score_seed"], "first-token weight": scores.tolist(),
                   "previous-token weight at triggers": on_previous.tolist(),
                   "first-token weight at triggers": on_bos_at_triggers.tolist(),
                   "value norm at position 0": norms[:, 0].mean().item(),
                   "value norm elsewhere": norms[:, 1:].mean().item()},
        "streaming": {"sequences": m["sequences"], "seed": m["window_seed"], "window": m["window"],
                      "full": _round(losses.full.tolist()), "evicted": _round(losses.evicted.tolist()),
                      "kept": {str(k): _round(v.tolist()) for k, v in losses.kept.items()},
                      "best": _round(best_by_position),
                      "past the window": {"full": losses.full[past].mean().item(),
                                          "evicted": losses.evicted[past].mean().item(),
                                          **{f"kept {k}": v[past].mean().item() for k, v in losses.kept.items()},
                                          "best": float(torch.tensor(best_by_position[past]).mean())}},
        "course gpt": {"windows of held-out prose": m["prose"], "seed": 0, "context": gpt.config["context"],
                       "first-token weight": gpt_scores.tolist(),
                       "windowed bits": {"from position": FROM, "bits": window_bits,
                                         "window 32, 4 sinks": windowed_bits(gpt, 32, 4)}},
    }
    out["total cpu seconds"] = round(time.process_time() - c0, 1)
    out["total wall seconds"] = round(time.perf_counter() - t0, 1)
    _write("sinks", out)
    return out


def measure_latent(sizes=LATENT_SIZES, steps=FINE_TUNE["steps"], seed=0):
    """Convert notebook 12's model to latent attention for each size, fine-tune its attention, measure; write
    checkpoints/latent_<d_c>.pt and results.json["latent"] (see the module docstring)."""
    c0, t0 = time.process_time(), time.perf_counter()
    out = {"command": "python -m attnlab.lessons.nb13_long_context latent", **_machine(), "seed": seed,
           "fine-tune": {k: list(v) if isinstance(v, tuple) else v for k, v in dict(FINE_TUNE, steps=steps).items()},
           "course models": {}, "latent models": {}}
    for kv in (4, 2, 1):
        m = course.load_unchecked(kv)
        out["course models"][f"kv{kv}"] = {"heldout bits": _bits(m), "cache bytes per token": cache_bytes_per_token(m)}
    for d_c in sizes:
        converted = convert(course.load_unchecked(4), d_c)
        entry = {"converted heldout bits": _bits(converted)}
        tuned, history, seconds = run_to_end(fine_tune(converted, steps, seed=seed + d_c))
        torch.save({"config": tuned.config,
                    "attention": {k: v.half() for k, v in tuned.state_dict().items() if ".attention." in k}},
                   latent_path(d_c))
        entry.update({"loss every 10 steps": _round(history["loss"][9::10]), "cpu seconds": round(seconds["cpu"], 1),
                      "heldout bits": _bits(tuned), "cache bytes per token": cache_bytes_per_token(tuned)})
        out["latent models"][str(d_c)] = entry
        print(d_c, {k: v for k, v in entry.items() if "every" not in k}, flush=True)
        _write("latent", out)
    control, history, seconds = run_to_end(fine_tune(course.load_unchecked(4), steps, seed=seed))
    out["control"] = {"what": "notebook 12's model (MHA), its attention fine-tuned the same way", "heldout bits":
                      _bits(control), "cpu seconds": round(seconds["cpu"], 1)}
    out["total cpu seconds"] = round(time.process_time() - c0, 1)
    out["total wall seconds"] = round(time.perf_counter() - t0, 1)
    _write("latent", out)
    return out


def main(argv):
    """The command line: ``sinks``, ``latent`` or nothing (both)."""
    what = argv[0] if argv else "all"
    if what not in ("sinks", "latent", "all"):
        raise SystemExit(f"usage: python -m attnlab.lessons.nb13_long_context [sinks | latent], got {what!r}")
    if what in ("sinks", "all"):
        r = measure_sinks()
        print(json.dumps({k: r[k] for k in ("cpu seconds", "scores", "total cpu seconds")}), flush=True)
    if what in ("latent", "all"):
        r = measure_latent()
        print(json.dumps({k: r[k] for k in ("control", "total cpu seconds")}), flush=True)
