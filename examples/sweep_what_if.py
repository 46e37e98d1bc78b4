#!/usr/bin/python3
"""A what-if sweep from Python: Mixtral 8x7B's training step on 64 H100s over the global batch,
the pipeline depth, the schedule and the SMs communication holds (10,000 analytical steps in
worker processes, no process per point), plotted as tokens/s against the batch.

usage: examples/sweep_what_if.py [OUTDIR]   (PYTHONPATH=build/python from a checkout)
"""
import pathlib
import sys
import time

import codesim

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    # Every TP x PP that leaves 8 or more data-parallel replicas for EP 8 to span (64 GPUs), two
    # schedules, 25 SM budgets for communication and 20 global batches: 10,000 points.
    layouts = [(tp, pp) for tp in (1, 2, 4, 8) for pp in (1, 2, 4, 8) if 64 // (tp * pp) % 8 == 0]
    points = [{"/parallel/tp": tp, "/parallel/pp": pp, "/parallel/schedule": schedule, "/compute/communication_sms": sms,
               "/batch/global_sequences": 128 * k}
              for tp, pp in layouts for schedule in ("1f1b", "zb1p") for sms in range(0, 50, 2) for k in range(1, 21)]
    start = time.perf_counter()
    # (log="sweep.jsonl" would keep every finished point there, and a rerun would resume.)
    frame = codesim.sweep(ROOT / "scenarios" / "training" / "mixtral-8x7b-h100.json", points=points)
    wall = time.perf_counter() - start
    ran = frame[frame["error"].isna()]
    print(f"{len(points)} points ({len(ran)} ran, {len(frame) - len(ran)} refused) in {wall:.1f} s: {1e3 * wall / len(points):.2f} ms a point")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    pick = ran[(ran["/compute/communication_sms"] == 0) & (ran["/parallel/schedule"] == "zb1p")]
    for (tp, pp), group in pick.groupby(["/parallel/tp", "/parallel/pp"]):
        group = group.set_index("/batch/global_sequences")["tokens_per_s_M"].sort_index()
        ax.plot(group.index, group.values, marker=".", label=f"TP {tp}, PP {pp} (ZB1P)")
    ax.set_xlabel("global batch (sequences of 4,096 tokens)")
    ax.set_ylabel("tokens/s (millions)")
    ax.set_title("Mixtral 8x7B on 64 H100s: what the batch and the layout buy")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "sweep-what-if.png", dpi=120)
    print(out / "sweep-what-if.png")


if __name__ == "__main__":
    main()
