#!/usr/bin/env python3
"""Derives data/expert_popularity/deepseek-v3.json from SGLang's per-expert counts of
DeepSeek-V3-0324 (../shared/expert-load/sglang-dsv3-0324/): per MoE layer, each expert's load over
the layer's mean at a few ranks, hottest first (the counts themselves are not shipped). Prints the
figures the data's README gives to check a reader against.

    python3 analysis/expert_popularity_summary.py [../shared/expert-load/sglang-dsv3-0324]
"""
import json
import os
import statistics
import sys

RANKS = [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 224, 256]
FILES = {"decode": "decode_in1000out1000.json", "prefill": "prefill_in1000out1000.json"}


def moe_layers(path):
    with open(path) as f:
        rows = json.load(f)["logical_count"]
    return [row for row in rows if sum(row) > 0]


def gini(row):
    x = sorted(row)
    n = len(x)
    return sum((2 * (i + 1) - n - 1) * v for i, v in enumerate(x)) / (n * sum(x))


def summary(rows):
    out = []
    for row in rows:
        mean = sum(row) / len(row)
        ranked = sorted(row, reverse=True)
        out.append([float(f"{ranked[r - 1] / mean:.4g}") for r in RANKS])
    return out


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "../shared/expert-load/sglang-dsv3-0324"
    doc = {
        "model": "deepseek-v3",
        "description": "DeepSeek-V3-0324 served by SGLang (PD disaggregation, EP): each MoE layer's expert loads over the layer's mean at the ranks below, hottest first, whole-run counts of top-8 selections; linear between the ranks. The experts' identities are not kept.",
        "ranks": RANKS,
        "sources": {
            "decode": "../shared/expert-load/sglang-dsv3-0324/" + FILES["decode"] + " (SGLang's attachment_ep_statistics.zip, sgl-project/sglang#6017): the decode instance of a 1000-in/1000-out benchmark run; derived by analysis/expert_popularity_summary.py",
            "prefill": "../shared/expert-load/sglang-dsv3-0324/" + FILES["prefill"] + " (the same attachment): the prefill instance of the same run; derived by analysis/expert_popularity_summary.py",
        },
    }
    for phase, name in FILES.items():
        rows = moe_layers(os.path.join(folder, name))
        hottest = [max(r) / (sum(r) / len(r)) for r in rows]
        print(f"{name}: {len(rows)} MoE layers, {sum(rows[0]) / 8 / 1e6:.1f}M tokens; hottest over the mean median "
              f"{statistics.median(hottest):.2f} [{min(hottest):.2f}..{max(hottest):.2f}], Gini median {statistics.median(gini(r) for r in rows):.2f}")
        doc[phase] = {"load_over_mean": summary(rows)}
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "expert_popularity", "deepseek-v3.json")
    text = json.dumps(doc, indent=1)
    # One line a rank list and a layer.
    import re
    text = re.sub(r"\[\s+([^\[\]]*?)\s+\]", lambda m: "[" + ", ".join(v.strip() for v in m.group(1).split(",")) + "]", text)
    with open(out, "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
