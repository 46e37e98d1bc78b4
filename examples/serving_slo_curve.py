#!/usr/bin/python3
"""A serving SLO curve from Python: LLaMA-3.1-70B on one 8 x H100 node (TP8, chunked prefill),
what one node serves within its SLO and how many a load needs, and output tokens/s per GPU against
tokens/s per user over batch caps, the curve serving comparisons plot.

usage: examples/serving_slo_curve.py [OUTDIR]   (PYTHONPATH=build/python from a checkout)
"""
import pathlib
import re
import sys

import codesim

ROOT = pathlib.Path(__file__).resolve().parent.parent
CAP = re.compile(r"plan/cap_(\d+)/(\w+)")


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    caps = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    scenario = codesim.load(ROOT / "scenarios" / "serving" / "llama-3.1-70b-h100-colocated.json",
                            sets={"/plan": {"rate_per_s": 40, "batch_caps": caps}})
    rows = scenario.run().rows
    plan = rows[rows["id"].str.startswith("plan/") & ~rows["id"].str.startswith("plan/cap_")]
    print(plan[["metric", "unit", "ours"]].to_string(index=False))
    curve = {}
    for row in rows.itertuples():
        m = CAP.fullmatch(row.id)
        if m:
            curve.setdefault(int(m[1]), {})[m[2]] = row.ours

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    xs = [curve[c]["user_tokens_per_s"] for c in caps]
    ys = [curve[c]["output_per_gpu"] for c in caps]
    ax.plot(xs, ys, marker="o")
    for c, x, y in zip(caps, xs, ys):
        ax.annotate(str(c), (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.set_xlabel("tokens/s per user (p50)")
    ax.set_ylabel("output tokens/s per GPU")
    ax.set_title("LLaMA-3.1-70B, TP8 on 8 x H100 (labels: batch cap)")
    fig.tight_layout()
    fig.savefig(out / "serving-slo-curve.png", dpi=120)
    print(out / "serving-slo-curve.png")


if __name__ == "__main__":
    main()
