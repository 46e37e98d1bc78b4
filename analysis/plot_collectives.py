#!/usr/bin/python3
"""All-to-all MPFT vs MRFT (ISCA'25 Figures 5-6) and all-gather under each routing (Figure 8).

usage: analysis/plot_collectives.py OUTDIR [--codesim build/codesim]

Runs the shipped scenarios over a sweep of sizes (with --set, no edited copies) and writes
alltoall.png, routing.png and their CSVs into OUTDIR.
"""
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from codesim_csv import ROOT, outdir_arguments, scenario_rows  # noqa: E402

SIZES = [2 ** e for e in range(12, 30, 2)]  # 4 KiB .. 256 MiB


def run(codesim, scenario, sizes, sets=None):
    rows = {}
    for row in scenario_rows(codesim, scenario, {"/collective/sizes_bytes": sizes, **(sets or {})}):
        size, metric = row["id"].split("/")
        rows.setdefault(float(size), {})[metric] = float(row["ours"])
    return [rows[s] for s in sorted(rows)]


def main():
    args = outdir_arguments(__doc__)
    out = args.outdir
    paper = ROOT / "scenarios" / "paper"

    fig, (bw_ax, lat_ax) = plt.subplots(1, 2, figsize=(11, 4))
    with open(out / "alltoall.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["fabric", "gpus", "size_bytes", "time_us", "algbw_GBps", "busbw_GBps"])
        for colour, gpus in enumerate((32, 64, 128)):  # ISCA'25 Figures 5-6: 32, 64 and 128 GPUs
            for name, style in (("mpft", "o-"), ("mrft", "s--")):
                rows = run(args.codesim, paper / f"alltoall-{name}-128.json", SIZES, {"/fabric/nodes": gpus // 8})
                for s, r in zip(SIZES, rows):
                    w.writerow([name.upper(), gpus, s, r["time"], r["algbw"], r["busbw"]])
                label = f"{name.upper()} {gpus} GPUs"
                bw_ax.plot(SIZES, [r["busbw"] for r in rows], style, color=f"C{colour}", label=label)
                lat_ax.plot(SIZES, [r["time"] for r in rows], style, color=f"C{colour}", label=label)
    for ax, label in ((bw_ax, "busbw [GB/s]"), (lat_ax, "time [us]")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("size per rank [bytes]")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    lat_ax.set_yscale("log")
    fig.suptitle("All-to-all on 32, 64 and 128 GPUs, PXN: multi-plane vs multi-rail fat tree")
    fig.tight_layout()
    fig.savefig(out / "alltoall.png", dpi=120)

    fig, ax = plt.subplots(figsize=(6, 4))
    with open(out / "routing.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["routing", "size_bytes", "busbw_GBps"])
        for routing, style in (("ecmp", "o-"), ("adaptive", "s--"), ("static", "d-."), ("d-mod-k", "^:")):
            sizes = SIZES[4:]
            rows = run(args.codesim, paper / f"routing-allgather-{routing}.json", sizes)
            for s, r in zip(sizes, rows):
                w.writerow([routing, s, r["busbw"]])
            ax.plot(sizes, [r["busbw"] for r in rows], style, label=routing)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("size [bytes]")
    ax.set_ylabel("busbw [GB/s]")
    ax.set_title("RoCE all-gather, 256 GPUs: ECMP vs adaptive vs static")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "routing.png", dpi=120)
    print(f"wrote {out / 'alltoall.png'} and {out / 'routing.png'}")


if __name__ == "__main__":
    main()
