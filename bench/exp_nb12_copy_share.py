"""Experiment (notebook 12, section 4): does mixing made-up words repeated in the same window into the
training batches give the small GPT induction heads within the shipped budget?

    nice -n 5 python bench/exp_nb12_copy_share.py SHARE [STEPS] [WORDS] [SAVE_PATH]

Trains GPT(SHIPPED, seed=0) on one thread as the shipped command does, with ``copy_share=SHARE``, and every
200 steps prints: the best induction score (nb11's definition, induction.induction_scores on 32 probes,
seed 1), the copy accuracy of the second copy (induction.copying) with all heads, without the two heads of
highest score and without the two of lowest, and at the end held-out bits per char; with SAVE_PATH the
model's state at each report is saved there.
"""
import json
import sys
import time

import torch

from attnlab.lessons.nb12_gpt import induction, training
from attnlab.lessons.nb12_gpt.measure import bits_per_char_unchecked
from attnlab.lessons.nb12_gpt.model import ablate


def main():
    share = float(sys.argv[1])
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else training.SHIPPED_STEPS
    words = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    items = induction.probes(32, seed=1)
    c0 = time.process_time()
    for row in training.run(steps, seed=0, copy_share=share, words=words):
        if row["step"] % 200 == 0 or row["step"] == steps:
            m = row["model"]
            prev, ind = induction.induction_scores(m, items)
            best = int(ind.argmax())
            ranked = ind.flatten().argsort(descending=True).tolist()

            def without(heads, m=m):
                cut = m
                for j in heads:
                    cut = ablate(cut, *divmod(j, 4))
                return round(induction.copying(cut, items)["accuracy"], 3)
            out = {"share": share, "words": words, "step": row["step"], "loss": round(row["loss"], 3),
                   "best induction": round(ind.max().item(), 3), "head": divmod(best, 4),
                   "top 4 scores": [round(ind.flatten()[j].item(), 3) for j in ranked[:4]],
                   "copy accuracy": round(induction.copying(m, items)["accuracy"], 3),
                   "without top 2": without(ranked[:2]), "without weakest 2": without(ranked[-2:]),
                   "cpu s": round(time.process_time() - c0, 1)}
            if row["step"] == steps:
                out["heldout bits"] = round(bits_per_char_unchecked(m, "heldout"), 3)
                out["induction"] = [[round(x, 2) for x in r] for r in ind.tolist()]
            print(json.dumps(out), flush=True)
            if len(sys.argv) > 4:
                torch.save(m.state_dict(), sys.argv[4])


if __name__ == "__main__":
    main()
