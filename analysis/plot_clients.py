#!/usr/bin/python3
"""Benchmark clients: output tokens/s per GPU against tokens/s per user over a concurrency sweep
(each point a number of closed-loop clients), as `vllm bench serve --max-concurrency N` runs
plot it, and TTFT and TPOT against the clients.

usage: analysis/plot_clients.py OUTDIR [--codesim build/codesim] [--scenario FILE.json]

Runs the scenario (by default LLaMA-3.3-70B FP8 TP2 x 4 on an H100 node, 1 to 256 clients) and
writes clients-curve.png and the scenario's CSV into OUTDIR.
"""
import argparse
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from codesim_csv import ROOT, run_rows  # noqa: E402

POINT = re.compile(r"clients_(\d+)/(\w+)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--codesim", default=str(ROOT / "build" / "codesim"))
    parser.add_argument("--scenario", type=Path, default=ROOT / "scenarios" / "serving" / "llama-3.3-70b-fp8-tp2-h100-concurrency.json")
    args = parser.parse_args()
    args.outdir.mkdir(parents=True, exist_ok=True)
    rows = run_rows(args.codesim, args.scenario, args.outdir / f"clients-{args.scenario.stem}.csv")
    points = {}
    label = args.scenario.stem
    for row in rows:
        m = POINT.fullmatch(row["id"])
        if m:
            points.setdefault(int(m[1]), {})[m[2]] = float(row["ours"])
            label = row["label"]
    if not points:
        raise SystemExit(f"{args.scenario}: no clients_N/ rows (give workload.clients as a list)")
    levels = sorted(points)
    fig, (curve, latency) = plt.subplots(1, 2, figsize=(11, 4.5))
    xs = [points[n]["user_tokens_per_s"] for n in levels]
    ys = [points[n]["output_per_gpu"] for n in levels]
    curve.plot(xs, ys, marker="o")
    for n, x, y in zip(levels, xs, ys):
        curve.annotate(str(n), (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
    curve.set_xlabel("tokens/s per user (mean)")
    curve.set_ylabel("output tokens/s per GPU")
    curve.set_title(f"{label}\nthroughput against speed (labels: clients)", fontsize=9)
    latency.plot(levels, [points[n]["ttft_mean"] for n in levels], marker="o", label="TTFT mean")
    latency.plot(levels, [points[n]["ttft_p99"] for n in levels], marker=".", linestyle=":", label="TTFT p99")
    latency.plot(levels, [points[n]["tpot_mean"] for n in levels], marker="s", label="TPOT mean")
    latency.set_xscale("log", base=2)
    latency.set_yscale("log")
    latency.set_xlabel("concurrent clients")
    latency.set_ylabel("ms")
    latency.set_title("latency as the clients see it", fontsize=9)
    latency.legend(fontsize=7)
    fig.tight_layout()
    path = args.outdir / "clients-curve.png"
    fig.savefig(path, dpi=120)
    print(path)


if __name__ == "__main__":
    main()
