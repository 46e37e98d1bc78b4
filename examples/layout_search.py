#!/usr/bin/python3
"""A layout search from Python: every TP x CP x PP x DP x EP layout, schedule, recomputation and
ZeRO stage of Mixtral 8x7B on two DGX H100 nodes, as `codesim plan` runs them; the five fastest
that fit in memory.

usage: examples/layout_search.py   (PYTHONPATH=build/python from a checkout)
"""
import pathlib

import codesim

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main():
    layouts = codesim.plan(ROOT / "scenarios" / "training" / "mixtral-8x7b-h100.json", sets={"/fabric/nodes": 2})
    fit = layouts[layouts["fits"]]
    print(f"{len(layouts)} layouts, {len(fit)} fit in memory; the fastest:")
    columns = ["/parallel/tp", "/parallel/pp", "/parallel/dp", "/parallel/ep", "/parallel/schedule", "/parallel/recompute",
               "/parallel/zero", "tokens_per_s_M", "mfu_causal_pct", "memory_total_GB"]
    print(fit[columns].head(5).to_string(index=False))


if __name__ == "__main__":
    main()
