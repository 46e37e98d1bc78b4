#!/usr/bin/python3
"""Every figure codesim makes, into one folder: DualPipe's Gantt chart (report Figure 5), the
all-to-all and routing curves (ISCA'25 Figures 5-6 and 8), TPOT against EP bandwidth, decode
TPOT against context and batch, FP8 error against K, serving throughput per GPU against
tokens/s per user over batch caps, all-to-all with failed parts, the Table 4 step with a
straggler, goodput against cluster size, ETTR against cluster size by recovery strategy, a shared fabric with and without isolation, the training sweep over PP size x
schedule x network, and step time against the SMs given to communication.

usage: analysis/plot_all.py OUTDIR [--codesim build/codesim]
"""
import json
import subprocess
import sys

from codesim_csv import ROOT, outdir_arguments, package


def main():
    args = outdir_arguments(__doc__)
    out = args.outdir
    here = ROOT / "analysis"
    cs = ["--codesim", args.codesim]
    steps = [
        [here / "gantt.py", ROOT / "scenarios/figures/dualpipe-figure5.json", out / "dualpipe-figure5.png", *cs],
        [here / "plot_collectives.py", out, *cs],
        [here / "plot_tpot_bandwidth.py", out, *cs],
        [here / "plot_inference.py", out, *cs],
        [here / "plot_fp8.py", out, *cs],
        [here / "plot_serving.py", out, *cs],
        [here / "plot_robustness.py", out, *cs],
        [here / "plot_goodput.py", out, *cs],
    ]
    for step in steps:
        print("+", " ".join(str(s) for s in step), flush=True)
        subprocess.run([sys.executable, *map(str, step)], check=True)
    sweeps = [
        ("train-pp-schedule-network", []),
        ("train-communication-sms", ["--x", "/compute/communication_sms", "--series", "/fabric/nic_bandwidth_Bps",
                                     "--panel", "-", "--style", "-"]),
    ]
    codesim = package()
    for name, plot_args in sweeps:
        sweep_csv = out / f"{name}.csv"
        sweep_file = ROOT / "sweeps" / f"{name}.json"
        print(f"+ codesim sweep sweeps/{name}.json", flush=True)
        if codesim is not None:  # in-process workers, the same rows as `codesim sweep --out FILE.csv`
            document = json.loads(sweep_file.read_text())
            base = document["base"]
            if isinstance(base, str):
                base = sweep_file.parent / base
            frame = codesim.sweep(base, grid=document.get("grid"), points=document.get("points"))
            frame.to_csv(sweep_csv, index=False)
        else:
            subprocess.run([args.codesim, "sweep", str(sweep_file), "--out", str(sweep_csv)], check=True)
        subprocess.run([sys.executable, str(here / "plot_sweep.py"), str(sweep_csv), str(out / f"{name}.png"), *plot_args],
                       check=True)


if __name__ == "__main__":
    main()
