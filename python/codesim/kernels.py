"""The kernel models asked directly, as `codesim kernel` asks them: a GEMM through a GEMM
library's model, an attention call through an attention backend's, a memory-bound op, a
collective over a scenario's fabric. Each function takes a DataFrame of cases (one per row, the
columns named as the fields below), keyword fields (scalars apply to every case; lists or arrays
give one case each), or both, and returns a DataFrame: the cases' columns, then the model's
`model, time_s, rate, rate_unit, bound`, its terms, and `reference_s, delta` where a case has a
measured time (`time_s` in the input, renamed `reference_s`).

    import codesim
    codesim.kernels.gemm(m=[64, 128, 4096], n=7168, k=2048, precision="bf16")
    codesim.kernels.attention(heads=32, kv_heads=8, q_len=1, kv_len=4096, head_dim=128, batch=64)
    codesim.kernels.from_file("../shared/measurements/h100-sxm-kernels-2026-11.jsonl", backend="fa3")

Fields (the CLI's flags with '_' for '-'):
  gemm:       m, n, k, precision (fp8, bf16), library, gemm_kind (dense, grouped-contiguous,
              grouped-masked, weight-gradient), groups, gpu, sms
  attention:  batch, heads, kv_heads, q_len, kv_len (or seq for both), head_dim, v_head_dim,
              causal, pass (forward, backward, both), backend (fa3, flashmla, ...), gpu, sms
  memory:     op (rmsnorm, copy, cast, silu-mul, ...), bytes or elements or tokens and hidden, gpu
  collective: collective (all-to-all, all-reduce, all-gather, reduce-scatter), ranks, bytes,
              fabric (a scenario file with a fabric of nodes)

A case the model cannot time raises codesim.InputError naming the row and field (errors="keep"
keeps it, with the reason in the `error` column).
"""
import json
import math
import os

from . import _codesim

__all__ = ["gemm", "attention", "memory", "collective", "from_file", "summary"]


def _pandas():
    import pandas
    return pandas


def _listlike(value):
    return not isinstance(value, (str, bytes, dict)) and hasattr(value, "__len__")


def _plain(value):
    if hasattr(value, "item") and not _listlike(value):
        return value.item()  # NumPy scalars
    return value


def _cases(cases, fields):
    pandas = _pandas()
    for key, value in fields.items():
        for item in (value if _listlike(value) else [value]):
            if isinstance(item, float) and not math.isfinite(item):
                raise _codesim.InputError(f"{key}: {item} is not allowed; a finite number", key)
        if _listlike(value) and len(value) == 0:
            raise _codesim.InputError(f"{key}: an empty list is not allowed; give at least one value", key)
    if cases is None:
        if any(_listlike(v) for v in fields.values()):
            lengths = {k: len(v) for k, v in fields.items() if _listlike(v)}
            if len(set(lengths.values())) > 1:
                listed = ", ".join(f"{k}: {n} values" for k, n in lengths.items())
                first = next(iter(lengths))
                raise _codesim.InputError(f"{first}: lists of different lengths are not allowed ({listed}); give lists of one length, or single values", first)
            frame = pandas.DataFrame({k: v for k, v in fields.items()})
        else:
            frame = pandas.DataFrame([fields])
    else:
        frame = pandas.DataFrame(cases).reset_index(drop=True) if not isinstance(cases, pandas.DataFrame) else cases.reset_index(drop=True)
        frame = frame.copy()
        for key, value in fields.items():
            frame[key] = [value] * len(frame) if not _listlike(value) else list(value)
    records = []
    for row in frame.to_dict(orient="records"):
        records.append({k: _plain(v) for k, v in row.items() if not (v is None or (isinstance(v, float) and v != v))})
    return frame, records


def _frame(frame, rows, errors):
    pandas = _pandas()
    out = frame.copy()
    if "time_s" in out.columns:
        out = out.rename(columns={"time_s": "measured_time_s"})
    terms = [row.get("terms", {}) for row in rows]
    for column in ("model", "time_s", "rate", "rate_unit", "bound"):
        out[column] = [row.get(column) for row in rows]
    for name in dict.fromkeys(t for row in terms for t in row):
        out[name] = [row.get(name) for row in terms]
    out["reference_s"] = [row.get("reference_s") for row in rows]
    out["delta"] = [row.get("delta") for row in rows]
    out["error"] = [row.get("error", "") for row in rows]
    if "measured_time_s" in out.columns:
        out = out.drop(columns=["measured_time_s"])
    if errors == "raise":
        for row in rows:
            if row.get("error"):
                raise _codesim.InputError(row["error"], "")
    return out


def _ask(kind, cases, fields, gpu, library, backend, errors):
    if errors not in ("raise", "keep"):
        raise ValueError(f"errors: {errors!r} is not allowed; 'raise' or 'keep'")
    frame, records = _cases(cases, fields)
    rows = json.loads(_codesim.kernel_cases(json.dumps(records), kind, gpu or "H100", library or "", backend or ""))
    return _frame(frame, rows, errors)


def gemm(cases=None, *, gpu="H100", library=None, errors="raise", **fields):
    """GEMMs through a GEMM library's model (its constants fitted once to its published rows)."""
    return _ask("gemm", cases, fields, gpu, library, None, errors)


def attention(cases=None, *, gpu="H100", backend=None, errors="raise", **fields):
    """Attention calls through an attention backend's model (fa3 unless a case names another)."""
    return _ask("attention", cases, fields, gpu, None, backend, errors)


def memory(cases=None, *, gpu="H100", errors="raise", **fields):
    """Memory-bound ops through the memory-kernel model."""
    return _ask("memory", cases, fields, gpu, None, None, errors)


def collective(cases=None, *, errors="raise", **fields):
    """Collectives over a scenario's fabric, simulated as the collective study runs them."""
    return _ask("collective", cases, fields, None, None, None, errors)


def from_file(path, gpu="H100", library=None, backend=None):
    """A .jsonl file of cases (ours or ../shared/measurements'), each with its kind: one row per
    case, the model's columns beside its family and measured time, as `codesim kernel --in`."""
    pandas = _pandas()
    rows = json.loads(_codesim.kernel_file(os.fspath(path), gpu, library or "", backend or ""))
    frame = pandas.DataFrame.from_records([{k: v for k, v in row.items() if k != "terms"} for row in rows])
    frame["terms"] = [row.get("terms", {}) for row in rows]
    return frame


def summary(frame):
    """Per family: the cases with a measured time, the median delta, the median |delta| and the
    worst delta (model / measured - 1)."""
    pandas = _pandas()
    timed = frame.dropna(subset=["delta"])
    rows = []
    for family, group in timed.groupby("family"):
        worst = group["delta"].loc[group["delta"].abs().idxmax()]
        rows.append({"family": family, "cases": len(group), "median_delta": group["delta"].median(),
                     "median_abs_delta": group["delta"].abs().median(), "worst_delta": worst})
    return pandas.DataFrame(rows, columns=["family", "cases", "median_delta", "median_abs_delta", "worst_delta"])
