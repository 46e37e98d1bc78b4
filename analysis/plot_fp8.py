#!/usr/bin/python3
"""FP8 GEMM accumulation error against K, with and without promotion to FP32 every 128
elements (DeepSeek-V3 report §3.3.2).

usage: analysis/plot_fp8.py OUTDIR [--codesim build/codesim]

Runs scenarios/paper/fp8-1-gemm-accumulation.json and writes fp8.png and fp8.csv into OUTDIR.
"""
import re
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from codesim_csv import ROOT, outdir_arguments, run_rows  # noqa: E402

SCENARIO = ROOT / "scenarios" / "paper" / "fp8-1-gemm-accumulation.json"


def main():
    args = outdir_arguments(__doc__)
    rows = run_rows(args.codesim, SCENARIO, args.outdir / "fp8.csv")
    series = defaultdict(list)
    for row in rows:
        m = re.fullmatch(r"k(\d+)/(\w+)", row["id"])
        if m:
            series[m[2]].append((int(m[1]), float(row["ours"])))
    fig, ax = plt.subplots(figsize=(6, 4))
    names = {"no_promotion": "FP22 accumulator only", "promoted": "promoted to FP32 every 128"}
    for key, points in series.items():
        points.sort()
        ax.plot([k for k, _ in points], [e for _, e in points], marker="o", label=names.get(key, key))
    ax.axhline(2.0, color="grey", linestyle="--", label="report: 'nearly 2%' at K = 4096")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("K (inner dimension)")
    ax.set_ylabel("max error / output RMS (%)")
    ax.set_title("FP8 GEMM accumulation error (E4M3, Hopper-like)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.outdir / "fp8.png", dpi=120)
    print(args.outdir / "fp8.png")


if __name__ == "__main__":
    main()
