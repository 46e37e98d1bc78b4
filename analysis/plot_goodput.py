#!/usr/bin/python3
"""ETTR (effective training time ratio) against cluster size, 1K to 200K GPUs, for each recovery
strategy (restart from a checkpoint, per-replica fault tolerance, elastic shrink), with
synchronous checkpoints and no spares, and with asynchronous checkpoints and hot spares.

usage: analysis/plot_goodput.py OUTDIR [--codesim build/codesim]

Runs scenarios/goodput/ettr-vs-size-sync.json and ettr-vs-size-async.json and writes
ettr-vs-size.png (the Monte-Carlo's ETTR, solid; the closed form's, dotted) with the rows as CSV
into OUTDIR.
"""
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from codesim_csv import ROOT, outdir_arguments, run_rows  # noqa: E402

GOODPUT = ROOT / "scenarios" / "goodput"


def main():
    args = outdir_arguments(__doc__)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    titles = {"ettr-vs-size-sync": "synchronous checkpoints, no spares", "ettr-vs-size-async": "asynchronous checkpoints, 32 hot spares"}
    for ax, (name, title) in zip(axes, titles.items()):
        series = defaultdict(lambda: defaultdict(list))
        for row in run_rows(args.codesim, GOODPUT / f"{name}.json", args.outdir / f"{name}.csv"):
            parts = row["id"].split("/")  # fabric / gpus / spares-N / strategy / metric
            if len(parts) == 5 and parts[4] in ("effective", "effective_mc"):
                series[parts[3]][parts[4]].append((int(parts[1]), float(row["ours"])))
        for strategy, by_method in series.items():
            mc = sorted(by_method["effective_mc"])
            line, = ax.plot([g for g, _ in mc], [e for _, e in mc], marker="o", label=f"{strategy} (Monte-Carlo)")
            closed = sorted(by_method["effective"])
            ax.plot([g for g, _ in closed], [e for _, e in closed], ":", color=line.get_color(), label=f"{strategy} (closed form)")
        ax.set_xscale("log")
        ax.set_xlabel("GPUs")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("ETTR (%)")
    axes[0].legend(fontsize=7)
    fig.suptitle("ETTR of a 54-day run against cluster size, by recovery strategy (H100 failure kinds)")
    fig.tight_layout()
    fig.savefig(args.outdir / "ettr-vs-size.png", dpi=120)
    print(args.outdir / "ettr-vs-size.png")


if __name__ == "__main__":
    main()
