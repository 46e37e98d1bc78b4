#!/usr/bin/python3
"""TPOT against the EP link bandwidth: the closed-form bound and the SimGrid flow simulation.

Runs a decode-bound scenario once per bandwidth (the link's field set, no edited copy; through
the Python package where it is built, else `codesim run`) and plots both curves.

usage: analysis/plot_tpot_bandwidth.py OUTDIR [--codesim build/codesim] [--scenario scenarios/paper/tpot-ib.json]
"""
import argparse
import csv
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from codesim_csv import scenario_rows  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run(codesim, scenario, pointer, bandwidth):
    return {row["id"]: float(row["ours"]) for row in scenario_rows(codesim, scenario, {pointer: bandwidth})}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("outdir")
    p.add_argument("--codesim", default=str(ROOT / "build" / "codesim"))
    p.add_argument("--scenario", default=str(ROOT / "scenarios" / "paper" / "tpot-ib.json"))
    p.add_argument("--pointer", default="/cluster/scale_out_bandwidth_Bps")
    args = p.parse_args()
    out = pathlib.Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)

    gbps = [25, 50, 100, 200, 400, 900]
    rows = [run(args.codesim, args.scenario, args.pointer, g * 1e9) for g in gbps]
    with open(out / "tpot_bandwidth.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["bandwidth_GBps", "tpot_bound_ms", "tpot_flow_ms"])
        for g, r in zip(gbps, rows):
            w.writerow([g, r["tpot"], r.get("tpot_flow", "")])

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(gbps, [r["tpot"] for r in rows], "o-", label="bound (closed form)")
    if all("tpot_flow" in r for r in rows):
        ax.plot(gbps, [r["tpot_flow"] for r in rows], "s--", label="flow simulation (with latency)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("EP link bandwidth per GPU [GB/s]")
    ax.set_ylabel("TPOT [ms]")
    ax.set_title(pathlib.Path(args.scenario).stem)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "tpot_bandwidth.png", dpi=120)
    print(f"wrote {out / 'tpot_bandwidth.png'} and {out / 'tpot_bandwidth.csv'}")


if __name__ == "__main__":
    sys.exit(main())
