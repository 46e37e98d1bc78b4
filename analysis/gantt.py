#!/usr/bin/python3
"""Gantt chart of a pipeline schedule from a codesim Chrome trace.

usage: analysis/gantt.py TRACE_OR_SCENARIO.json OUT.png [--title TEXT] [--codesim PATH]

Given a scenario (e.g. scenarios/figures/dualpipe-figure5.json), runs `codesim run --trace` on
it first; given a trace (from `codesim run SCENARIO --trace FILE`), plots it. One row per rank; forward chunks in one colour per direction, backward and weight passes in
others, overlapped F&B pairs split into their two halves; each box carries its micro-batch.
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from codesim_csv import package  # noqa: E402

COLOURS = {
    ("F", "0"): "#f6c26b", ("F", "1"): "#f4a460", ("F", ""): "#f6c26b",
    ("B", "0"): "#8fd18f", ("B", "1"): "#5fb55f", ("B", ""): "#8fd18f",
    ("W", "0"): "#9ec5ee", ("W", "1"): "#6fa8dc", ("W", ""): "#9ec5ee",
}
TOKEN = re.compile(r"^([FBW])(\d?)(\*?)\.(\d+)$")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("trace")
    p.add_argument("out")
    p.add_argument("--title", default="")
    p.add_argument("--codesim", default=str(pathlib.Path(__file__).resolve().parent.parent / "build" / "codesim"))
    args = p.parse_args()
    document = json.load(open(args.trace))
    if "kind" in document:  # a scenario: simulate it for its trace
        with tempfile.TemporaryDirectory() as tmp:
            trace = pathlib.Path(tmp) / "trace.json"
            codesim = package()
            if codesim is not None:
                codesim.load(args.trace).run(trace=trace, progress=False)
            else:
                subprocess.run([args.codesim, "run", args.trace, "--trace", str(trace)], check=True, stdout=subprocess.DEVNULL)
            document = json.load(open(trace))
    events = [e for e in document["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "compute"]
    if not events:
        sys.exit(f"{args.trace}: no compute events; make it with `codesim run SCENARIO --trace FILE`")
    ranks = sorted({e["pid"] for e in events})
    fig, ax = plt.subplots(figsize=(14, 0.45 * len(ranks) + 1.2))
    for e in events:
        halves = e["name"].split("&")
        width = e["dur"] / 1e6 / len(halves)
        for i, half in enumerate(halves):
            m = TOKEN.match(half)
            if not m:
                continue
            kind, lane, star, mb = m.groups()
            x = e["ts"] / 1e6 + i * width
            ax.barh(e["pid"], width, left=x, height=0.8, color=COLOURS[(kind, lane)], edgecolor="black", linewidth=0.4,
                    hatch="//" if len(halves) == 2 else None)
            ax.text(x + width / 2, e["pid"], mb + star, ha="center", va="center", fontsize=6)
    ax.set_yticks(ranks)
    ax.set_yticklabels([f"rank {r}" for r in ranks])
    ax.invert_yaxis()
    ax.set_xlabel("time [s]")
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS[(k, l)]) for k, l in
               [("F", "0"), ("F", "1"), ("B", "0"), ("B", "1"), ("W", "0"), ("W", "1")]]
    ax.legend(handles, ["F dir 0", "F dir 1", "B dir 0", "B dir 1", "W dir 0", "W dir 1"], ncol=6, loc="upper center",
              bbox_to_anchor=(0.5, -0.25), fontsize=8, frameon=False)
    ax.set_title(args.title or args.trace + "  (hatched: overlapped F&B pair; * : weight pass deferred)")
    fig.tight_layout()
    fig.savefig(args.out, dpi=130)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
