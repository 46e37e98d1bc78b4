#!/usr/bin/env python3
"""Derives per-operation rows from Vidur's profiles (../shared/vidur-profiles, microsoft/vidur
data/profiling @7d47513363ec) for data/gemm_libraries/ and data/memory_kernels/: each GEMM's
rate from its median time and its M x N x K, each memory-bound op's bytes (read + write, FP16)
and median time. Prints JSON rows; the data files hold them with this source.

    python3 analysis/derive_vidur_parts.py gemm a100      # rows for a GEMM library
    python3 analysis/derive_vidur_parts.py memory a100    # rows for a memory-kernel model
"""
import csv
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / ".." / "shared" / "vidur-profiles" / "compute"
if not ROOT.is_dir():
    ROOT = Path("/work/shared/vidur-profiles/compute")

# (model folder, tensor-parallel degree): a small dense model whole and a large one split.
GEMM_CASES = [("meta-llama/Llama-2-7b-hf", 1), ("meta-llama/Llama-2-70b-hf", 4)]
GEMM_TOKENS = [16, 256, 1024, 4096]
MEMORY_CASES = [("meta-llama/Llama-2-7b-hf", 1)]
MEMORY_TOKENS = [16, 1024, 4096]
B = 2  # FP16 bytes


def rows_of(gpu, model, tp):
    """The first profile of each token count (the files repeat some)."""
    seen = set()
    path = ROOT / gpu / model / "mlp.csv"
    for r in csv.DictReader(open(path)):
        m = int(r["num_tokens"])
        if int(r["num_tensor_parallel_workers"]) == tp and m not in seen:
            seen.add(m)
            yield r


def shape(r, tp):
    h, f = int(r["n_embd"]), int(r["n_expanded_embd"])
    heads, kv = int(r["n_head"]), int(r["n_kv_head"])
    d = h // heads
    return h, f, heads, kv, d


def gemm_rows(gpu):
    out = []
    for model, tp in GEMM_CASES:
        for r in rows_of(gpu, model, tp):
            m = int(r["num_tokens"])
            if m not in GEMM_TOKENS:
                continue
            h, f, heads, kv, d = shape(r, tp)
            ops = {"attn_pre_proj": ((heads + 2 * kv) * d // tp, h), "attn_post_proj": (h, h // tp),
                   "mlp_up_proj": (2 * f // tp, h), "mlp_down_proj": (h, f // tp)}
            for op, (n, k) in ops.items():
                ms = float(r[f"time_stats.{op}.median"])
                out.append({"kind": "dense", "m": m, "n": n, "k": k, "tflops": round(2 * m * n * k / (ms * 1e-3) / 1e12, 1)})
    return out


def memory_rows(gpu):
    out = []
    for model, tp in MEMORY_CASES:
        for r in rows_of(gpu, model, tp):
            m = int(r["num_tokens"])
            if m not in MEMORY_TOKENS:
                continue
            h, f, heads, kv, d = shape(r, tp)
            name = model.split("/")[1]
            ops = [("input_layernorm", "RMSNorm forward", "row-reduction", 2 * m * h * B, f"{m} x {h} FP16"),
                   ("mlp_act", "SiLU x mul", "elementwise", 3 * m * (f // tp) * B, f"{m} x 2 x {f // tp} FP16"),
                   ("add", "residual add", "elementwise", 3 * m * h * B, f"{m} x {h} FP16"),
                   ("attn_rope", "RoPE forward", "elementwise", 2 * m * (heads + kv) // tp * d * B, f"{m} tokens, {heads // tp} + {kv // tp} heads of {d} FP16")]
            for op, kernel, kind, nbytes, shp in ops:
                ms = float(r[f"time_stats.{op}.median"])
                out.append({"kernel": f"{kernel} (Sarathi-Serve, {name})", "kind": kind, "shape": shp, "bytes": nbytes,
                            "us": round(ms * 1e3, 3)})
    return out


if __name__ == "__main__":
    what, gpu = sys.argv[1], sys.argv[2]
    for row in (gemm_rows if what == "gemm" else memory_rows)(gpu):
        print("    " + json.dumps(row) + ",")


def all_reduce_rows(cluster, targets=(2**18, 2**20, 2**22, 2**24, 2**26)):
    """NCCL all-reduce within one node (devices_per_node = workers): the median time of the
    size nearest each target, per rank count."""
    path = ROOT.parent / "network" / cluster / "all_reduce.csv"
    by = {}
    for r in csv.DictReader(open(path)):
        n, b = int(r["num_workers"]), int(r["size"])
        if int(r["devices_per_node"]) == n:
            by.setdefault((n, b), float(r["time_stats.all_reduce.median"]))
    out = []
    for n in sorted({n for n, _ in by}):
        sizes = sorted(b for m, b in by if m == n)
        for t in targets:
            b = min(sizes, key=lambda s: abs(s - t))
            out.append({"ranks": n, "bytes": b, "us": round(by[(n, b)] * 1e3, 1)})
    return out
