#!/usr/bin/python3
"""DeepSeek-V3 decode on the 320-GPU unit: TPOT against context length for each batch, and
tokens/s per GPU against tokens/s per user (the serving trade-off), with the ISCA'25 §2.3.2
bound for reference.

usage: analysis/plot_inference.py OUTDIR [--codesim build/codesim]

Runs scenarios/inference/decode-sweep.json and writes decode.png and decode.csv into OUTDIR.
"""
import re
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from codesim_csv import ROOT, outdir_arguments, run_rows  # noqa: E402

SCENARIO = ROOT / "scenarios" / "inference" / "decode-sweep.json"
POINT = re.compile(r"b(\d+)_ctx(\d+)/(\w+)")


def main():
    args = outdir_arguments(__doc__)
    rows = run_rows(args.codesim, SCENARIO, args.outdir / "decode.csv")
    # metric -> batch -> [(context, value)]
    series = defaultdict(lambda: defaultdict(list))
    for row in rows:
        m = POINT.fullmatch(row["id"])
        if m:
            batch, context, metric = int(m[1]), int(m[2]), m[3]
            series[metric][batch].append((context, float(row["ours"])))

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for batch, points in sorted(series["tpot"].items()):
        points.sort()
        left.plot([c for c, _ in points], [t for _, t in points], marker="o", label=f"{batch} sequences")
    left.axhline(14.76, color="grey", linestyle="--", label="ISCA'25 comm bound at 20,480 sequences (14.76 ms)")
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel("context length (tokens)")
    left.set_ylabel("TPOT (ms)")
    left.set_title("Decode TPOT, 320 H800s (TP4 attention, EP320)")
    left.legend(fontsize=7)
    for context in sorted({c for pts in series["tpot"].values() for c, _ in pts}):
        user = [(b, v) for b, pts in series["user_tokens_per_s"].items() for c, v in pts if c == context]
        gpu = dict((b, v) for b, pts in series["gpu_tokens_per_s"].items() for c, v in pts if c == context)
        user.sort()
        right.plot([v for _, v in user], [gpu[b] for b, _ in user], marker="o", label=f"context {context}")
    right.set_xlabel("tokens/s per user")
    right.set_ylabel("tokens/s per GPU")
    right.set_title("Throughput against speed (batch grows right to left)")
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.outdir / "decode.png", dpi=120)
    print(args.outdir / "decode.png")


if __name__ == "__main__":
    main()
