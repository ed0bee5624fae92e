"""What bench/bench_nb{10,11,13,14}_live.py share: each times a notebook's Train button run by run, and stores
the runs with the machine they ran on (cores, load average before and after: wall seconds grow with the load,
CPU seconds are what an idle core would take) in the lesson's live.json, which the notebook prints."""
import json
import os
import platform

import torch


def machine(load_before):
    """The machine a bench ran on; ``load_before`` is os.getloadavg() taken before its first run."""
    return {"cores": os.cpu_count(), "processor": platform.processor() or platform.machine(),
            "load average before (1, 5, 15 min)": [round(x, 2) for x in load_before],
            "load average after": [round(x, 2) for x in os.getloadavg()], "torch": torch.__version__}


def record(path, command, one, items, **fields):
    """Run ``one(item)`` for every item (printing each row as it comes), then write to ``path`` the command,
    ``fields``, the rows under "runs" and the machine, and print what was written."""
    load_before = os.getloadavg()
    rows = []
    for item in items:
        rows.append(one(item))
        print(rows[-1], flush=True)
    live = {"command": command, **fields, "runs": rows, "machine": machine(load_before)}
    path.write_text(json.dumps(live, indent=1) + "\n")
    print(json.dumps(live, indent=1))
    return live
