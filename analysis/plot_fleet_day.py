"""A serving fleet over a day: nodes in use and the load against the hour, from the CSV that
`codesim run SCENARIO --series FILE` writes (one row per interval), or the plan's that
`codesim serve-plan SCENARIO --series FILE` writes; given both, the plan's nodes over the run's.

usage: python3 analysis/plot_fleet_day.py SERIES.csv OUT.png [PLAN.csv]"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path}: no intervals")
    return rows


def main(series_path, out_path, plan_path=None):
    rows = read(series_path)
    hour = [(float(r["start_h"]) + float(r["end_h"])) / 2 for r in rows]
    nodes = [float(r["nodes"]) for r in rows]
    # A run's arrivals, or a plan's highest rate in each interval.
    load = [float(r["arrivals_per_s"] if "arrivals_per_s" in r else r["load_per_s"]) for r in rows]
    kept = [r.get("slo_kept", "1") == "1" for r in rows]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    ax.step(hour, nodes, where="mid", color="tab:blue", label="nodes in use" if "slo_kept" in rows[0] else "nodes the plan holds")
    if plan_path:
        plan = read(plan_path)
        ax.step([(float(r["start_h"]) + float(r["end_h"])) / 2 for r in plan], [float(r["nodes"]) for r in plan], where="mid",
                color="tab:green", linestyle="--", label="nodes the plan holds")
    ax.set_xlabel("hour")
    ax.set_ylabel("nodes in use", color="tab:blue")
    ax.set_ylim(bottom=0)
    missed = [h for h, k in zip(hour, kept) if not k]
    if missed:
        ax.plot(missed, [0] * len(missed), "|", color="tab:red", markersize=12, label="SLO missed")
    right = ax.twinx()
    right.plot(hour, load, color="tab:orange", label="requests/s")
    right.set_ylabel("requests/s arriving", color="tab:orange")
    right.set_ylim(bottom=0)
    lines = ax.get_legend_handles_labels()[0] + right.get_legend_handles_labels()[0]
    labels = ax.get_legend_handles_labels()[1] + right.get_legend_handles_labels()[1]
    ax.legend(lines, labels, loc="center left")
    ax.set_xlim(0, max(float(r["end_h"]) for r in rows))
    ax.set_title("Nodes in use and load over the run")
    fig.tight_layout()
    fig.savefig(out_path, dpi=120)
    print(f"wrote {out_path}")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
