#!/usr/bin/python3
"""What a cluster that is not perfect costs: all-to-all bus bandwidth with failed parts (MPFT,
MRFT and MPFT with multi-port NICs, 128 and 2,048 GPUs), the Table 4 step with one straggler,
goodput against cluster size (MPFT against MRFT, with and without network failover and spare
nodes), and a training job and a decode unit sharing a fabric with and without isolation.

usage: analysis/plot_robustness.py OUTDIR [--codesim build/codesim]

Runs the faults-alltoall, stragglers, goodput and shared-fabric scenarios of scenarios/paper (the
2,048-GPU fault cases from scenarios/figures) and writes faults-alltoall.png, stragglers.png,
goodput.png and shared-fabric.png (each with its rows as CSV) into OUTDIR.
"""
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from codesim_csv import ROOT, outdir_arguments, run_rows  # noqa: E402

PAPER = ROOT / "scenarios" / "paper"
FIGURES = ROOT / "scenarios" / "figures"


def grouped_bars(ax, values, cases, label=str, **tick_style):
    """values: {series: {case: value}}, one bar per series side by side over each case."""
    width = 0.8 / max(len(values), 1)
    for i, (series, by_case) in enumerate(values.items()):
        ax.bar([k + i * width for k in range(len(cases))], [by_case.get(c, 0) for c in cases], width, label=label(series))
    ax.set_xticks([k + width * (len(values) - 1) / 2 for k in range(len(cases))])
    ax.set_xticklabels(cases, fontsize=8, **tick_style)


def save(fig, args, name):
    fig.tight_layout()
    fig.savefig(args.outdir / f"{name}.png", dpi=120)
    print(args.outdir / f"{name}.png")


def faults(args):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, gpus in zip(axes, (128, 2048)):
        fabrics = ["mpft", "mrft", "mpft-multiport"]
        cases, values = [], defaultdict(dict)
        for fabric in fabrics:
            name = f"faults-alltoall-{gpus}-{fabric}"
            folder = PAPER if gpus == 128 else FIGURES   # the 2,048-GPU cases: a what-if outside the tables
            for row in run_rows(args.codesim, folder / f"{name}.json", args.outdir / f"{name}.csv"):
                if row["id"].endswith("/busbw"):
                    # "MPFT 128 GPUs, 1 NIC down, 64 MiB": the case between the fabric and the size
                    case = ", ".join(row["label"].split(" GPUs, ", 1)[1].split(", ")[:-1])
                    if case not in cases:
                        cases.append(case)
                    values[fabric][case] = float(row["ours"])
        grouped_bars(ax, values, cases, lambda fabric: fabric.upper().replace("-MULTIPORT", ", multi-port NICs"), rotation=30, ha="right")
        ax.set_title(f"{gpus} GPUs")
    axes[0].set_ylabel("all-to-all busbw (GB/s per GPU)")
    axes[0].legend(fontsize=8)
    fig.suptitle("All-to-all with failed parts")
    save(fig, args, "faults-alltoall")


def stragglers(args):
    rows = run_rows(args.codesim, PAPER / "stragglers-table4.json", args.outdir / "stragglers.csv")
    points = [(0.0, 0.0)]
    for row in rows:
        if row["id"].endswith("/slowdown") and row["id"].startswith("case/slow"):
            points.append((float(row["id"].split("/")[1][len("slow"):]), float(row["ours"])))
    points.sort()
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([p for p, _ in points], [s for _, s in points], marker="o", label="Table 4 step, one GPU of a middle rank")
    ax.plot([0, 20], [0, 20], color="grey", linestyle="--", label="the straggler's own slowdown")
    ax.set_xlabel("straggler: compute slower by (%)")
    ax.set_ylabel("step slower by (%)")
    ax.set_title("One straggler in DeepSeek-V3's 2,048-GPU step")
    ax.legend(fontsize=8)
    save(fig, args, "stragglers")


def goodput(args):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name in ("goodput-no-failover", "goodput-failover"):
        series = defaultdict(list)
        for row in run_rows(args.codesim, PAPER / f"{name}.json", args.outdir / f"{name}.csv"):
            parts = row["id"].split("/")
            if len(parts) == 4 and parts[3] == "effective":
                series[(parts[0], parts[2])].append((int(parts[1]), float(row["ours"])))
        for (fabric, spares), points in sorted(series.items()):
            points.sort()
            style = "-" if name == "goodput-failover" else ":"
            label = f"{fabric.upper()}, {spares.replace('spares-', '')} spare nodes, " + ("failover" if style == "-" else "no failover")
            ax.plot([g for g, _ in points], [e for _, e in points], style, marker="o", label=label)
    ax.set_xscale("log")
    ax.set_xlabel("GPUs")
    ax.set_ylabel("effective training time (%)")
    ax.set_title("Goodput of a long run against cluster size (closed form)")
    ax.legend(fontsize=7)
    save(fig, args, "goodput")


def shared(args):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, name in zip(axes, ("shared-fabric-mpft", "shared-fabric-mpft-tapered")):
        rows = run_rows(args.codesim, PAPER / f"{name}.json", args.outdir / f"{name}.csv")
        cases, values = [], defaultdict(dict)
        for row in rows:
            if row["id"].endswith("/slowdown"):
                job = row["id"].split("/")[0]
                case = row["metric"].replace("slowdown, ", "")
                if case not in cases:
                    cases.append(case)
                values[job][case] = float(row["ours"])
        grouped_bars(ax, values, cases)
        ax.set_title(name.replace("shared-fabric-", "").replace("-", ", "), fontsize=9)
    axes[0].set_ylabel("slowdown against running alone (%)")
    axes[0].legend(fontsize=8)
    fig.suptitle("Training and a decode unit on one fabric")
    save(fig, args, "shared-fabric")


def main():
    args = outdir_arguments(__doc__)
    faults(args)
    stragglers(args)
    goodput(args)
    shared(args)


if __name__ == "__main__":
    main()
