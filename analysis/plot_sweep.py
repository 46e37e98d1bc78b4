#!/usr/bin/python3
"""One metric of a sweep against one input, a line per value of a second input, a panel per
value of a third (and a line style per value of a fourth).

usage: analysis/plot_sweep.py SWEEP.csv OUT.png [--x /parallel/pp] [--y step] [--series /parallel/schedule]
                              [--panel /fabric/kind] [--style /fabric/nic_bandwidth_Bps]

The defaults fit sweeps/train-pp-schedule-network.json: step time against PP size for each
schedule, MPFT and MRFT side by side, one line style per NIC bandwidth.
"""
import argparse
import csv
import pathlib
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def number(text):
    try:
        return float(text)
    except ValueError:
        return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", type=pathlib.Path)
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--x", default="/parallel/pp")
    parser.add_argument("--y", default="step_s")
    parser.add_argument("--series", default="/parallel/schedule")
    parser.add_argument("--panel", default="/fabric/kind")
    parser.add_argument("--style", default="/fabric/nic_bandwidth_Bps")
    args = parser.parse_args()
    rows = [r for r in csv.DictReader(args.csv.open()) if not r.get("error") and r.get(args.y)]
    if not rows:
        raise SystemExit(f"{args.csv}: no finished rows with a '{args.y}' column")
    column = lambda name: name if name in rows[0] else None  # noqa: E731
    panel, style = column(args.panel), column(args.style)
    panels = sorted({r[panel] for r in rows}) if panel else [None]
    styles = sorted({number(r[style]) for r in rows}) if style else [None]
    dashes = ["-", "--", ":", "-."]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.2), squeeze=False, sharey=True)
    for ax, p in zip(axes[0], panels):
        lines = defaultdict(list)
        for r in rows:
            if panel and r[panel] != p:
                continue
            lines[(r[args.series], number(r[style]) if style else None)].append((number(r[args.x]), float(r[args.y])))
        colours = {s: f"C{i}" for i, s in enumerate(sorted({k[0] for k in lines}))}
        for (s, st), points in sorted(lines.items()):
            points.sort()
            name = f"{number(s):g}" if isinstance(number(s), float) else s
            label = name if st is None else f"{name}, {args.style.rsplit('/', 1)[-1]} {st:g}"
            ax.plot([x for x, _ in points], [y for _, y in points], marker="o", color=colours[s],
                    linestyle=dashes[styles.index(st) % len(dashes)] if st is not None else "-", label=label)
        ax.set_xlabel(args.x)
        ax.set_title(f"{args.panel} = {p}" if panel else args.y)
        ax.legend(fontsize=6)
    axes[0][0].set_ylabel(args.y)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(args.out)


if __name__ == "__main__":
    main()
