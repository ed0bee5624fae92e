"""Notebook 10's Transformer against notebook 08's Bahdanau GRU, both as shipped, on 08's format.

    python bench/bench_nb10_vs_nb08.py      # writes "bahdanau" into nb10's checkpoints/results.json

Measured here (a tool may import two lessons; a lesson or a notebook may not): exact match on the
held-out dates of 08's format ("7 mar 1994"), parameters, and the seconds (CPU, one thread) to
translate them. Training steps are the shipped ones (08: 300 on its one format; 10: results.json).
"""
import json
import time

import torch

from attnlab.lessons import nb08_bahdanau_attention as nb08
from attnlab.lessons import nb10_encoder_decoder as nb10


def main():
    pairs = [p for p in nb10.test_dates() if nb10.format_of(p[0]) == "d mon yyyy"]
    sources = [s for s, _t in pairs]
    torch.set_num_threads(1)
    rows = {}
    gru = nb08.pretrained("additive")
    c0 = time.process_time()
    outputs, _w = nb08.translate(gru, sources)
    rows["Bahdanau GRU (08)"] = {"exact match": sum(o == t for o, (_s, t) in zip(outputs, pairs)) / len(pairs),
                                 "parameters": sum(p.numel() for p in gru.parameters()), "training steps": 300,
                                 "formats trained on": 1, "translate cpu seconds": round(time.process_time() - c0, 2)}
    model = nb10.pretrained()
    c0 = time.process_time()
    outputs = nb10.translate(model, sources)
    rows["Transformer (10)"] = {"exact match": sum(o == t for o, (_s, t) in zip(outputs, pairs)) / len(pairs),
                                "parameters": nb10.parameters(model), "training steps": nb10.measured()["steps"],
                                "formats trained on": len(nb10.FORMATS),
                                "translate cpu seconds": round(time.process_time() - c0, 2)}
    results = json.loads(nb10.RESULTS.read_text())
    results["bahdanau"] = {"dates": len(pairs), "command": "python bench/bench_nb10_vs_nb08.py", "models": rows}
    nb10.RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results["bahdanau"], indent=1))


if __name__ == "__main__":
    main()
