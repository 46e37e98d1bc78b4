#!/usr/bin/python3
"""Serving: output tokens/s per GPU against tokens/s per user over decode batch caps (the curve
serving comparisons show), for DeepSeek-V3 as DeepSeek deploys it and for the V3 report's
320-GPU decode unit, each point a decode unit kept full with the prefill GPUs that keep up counted.

usage: analysis/plot_serving.py OUTDIR [--codesim build/codesim]

Runs the serving scenarios with their plan (`codesim serve-plan`), through the Python package
where it is built, and writes serving-curve.png and one CSV per scenario into OUTDIR.
"""
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from codesim_csv import ROOT, outdir_arguments, run_rows  # noqa: E402

SCENARIOS = [
    ("deepseek-v3-production", "DeepSeek-V3, EP144 decode units (H800)"),
    ("deepseek-v3-report-320-gpu-decode", "DeepSeek-V3, V3 report's EP320 decode unit (H800)"),
]
POINT = re.compile(r"plan/cap_(\d+)/(\w+)")


def main():
    args = outdir_arguments(__doc__)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, title in SCENARIOS:
        # `codesim serve-plan`, as the scenario's "plan" section.
        rows = run_rows(args.codesim, ROOT / "scenarios" / "serving" / f"{name}.json", args.outdir / f"serving-{name}.csv",
                        sets={"/plan": {}})
        points = {}
        for row in rows:
            m = POINT.fullmatch(row["id"])
            if m:
                points.setdefault(int(m[1]), {})[m[2]] = float(row["ours"])
        caps = sorted(points)
        xs = [points[c]["user_tokens_per_s"] for c in caps]
        ys = [points[c]["output_per_gpu"] for c in caps]
        ax.plot(xs, ys, marker="o", label=title)
        for c, x, y in zip(caps, xs, ys):
            ax.annotate(str(c), (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.set_xlabel("tokens/s per user (p50)")
    ax.set_ylabel("output tokens/s per GPU (prefill GPUs included)")
    ax.set_title("Serving DeepSeek-V3: throughput against speed\n(labels: sequences per DP rank)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.outdir / "serving-curve.png", dpi=120)
    print(args.outdir / "serving-curve.png")


if __name__ == "__main__":
    main()
