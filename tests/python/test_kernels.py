"""codesim.kernels and codesim.step against the CLI: the same cases, the same numbers; a
DataFrame of cases in, one row per case out."""
import json
import os
import pathlib
import subprocess

import pandas
import pytest

import codesim

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("CODESIM", str(ROOT / "build" / "codesim"))
CASES = ROOT / "tests" / "data" / "kernels" / "cases.jsonl"


def cli_case(*args):
    return json.loads(subprocess.run([CLI, "kernel", *map(str, args), "--format", "json"], check=True, capture_output=True, text=True).stdout)


def test_a_gemm_frame_equals_the_cli():
    frame = codesim.kernels.gemm(pandas.DataFrame({"m": [64, 128, 4096], "n": [7168] * 3}), k=2048, precision="bf16")
    assert list(frame["m"]) == [64, 128, 4096]
    assert (frame["model"] == "cublas-bf16-h100-2026-11").all()
    ours = cli_case("gemm", "--m", 128, "--n", 7168, "--k", 2048, "--precision", "bf16")
    assert frame["time_s"][1] == pytest.approx(ours["time_s"], rel=1e-12)
    assert frame["waves"][2] >= 1 and set(frame["bound"]) <= {"compute", "memory", "launch"}


def test_scalars_and_lists_are_cases_too():
    one = codesim.kernels.attention(batch=64, heads=32, kv_heads=8, q_len=1, kv_len=4096, head_dim=128)
    assert len(one) == 1 and one["bound"][0] == "memory"
    many = codesim.kernels.attention(batch=64, heads=32, kv_heads=[32, 8], q_len=1, kv_len=4096, head_dim=128)
    assert many["time_s"][1] == pytest.approx(many["time_s"][0] / 4, rel=0.02)
    assert many["time_s"][1] == pytest.approx(one["time_s"][0])
    memory = codesim.kernels.memory(op="rmsnorm", tokens=[16, 4096], hidden=7168)
    assert list(memory["rate_unit"]) == ["GB/s", "GB/s"]


def test_measured_times_give_deltas():
    frame = codesim.kernels.gemm(m=4096, n=7168, k=2048, precision="bf16", time_s=1.68e-4)
    assert frame["reference_s"][0] == 1.68e-4
    assert frame["delta"][0] == pytest.approx(frame["time_s"][0] / 1.68e-4 - 1)
    rows = codesim.kernels.from_file(CASES, backend="fa3")
    assert len(rows) == 8 and (rows["error"] == "").all()
    summary = codesim.kernels.summary(rows)
    assert "gemm bf16" in set(summary["family"])


def test_bad_cases_name_their_field():
    with pytest.raises(codesim.InputError, match=r"cases/0/k: 100 is not allowed"):
        codesim.kernels.gemm(m=64, n=7168, k=100)
    with pytest.raises(codesim.InputError, match=r"^backend: attention backend 'fa9' is unknown"):
        codesim.kernels.attention(heads=8, kv_len=64, head_dim=128, backend="fa9")
    kept = codesim.kernels.gemm(m=[64, 64], n=7168, k=[2048, 100], errors="keep")
    assert kept["error"][0] == "" and "100 is not allowed" in kept["error"][1]


def test_a_step_breakdown_without_the_study():
    rows = codesim.step(ROOT / "scenarios" / "inference" / "decode.json")
    step = rows[rows["id"] == "step/step"]["ours"].iloc[0]
    parts = rows[rows["id"].isin(["step/attention", "step/routed_experts", "step/shared_expert", "step/gate", "step/dense_ffn",
                                  "step/head", "step/exposed_comm"])]["ours"].sum()
    assert step == pytest.approx(parts, rel=1e-6)
    training = codesim.step(ROOT / "scenarios" / "training" / "mixtral-8x7b-h100.json", sets={"/mode": "analytical"})
    assert list(training["id"])[:2] == ["step", "forward"]
    with pytest.raises(codesim.InputError, match="times no single step"):
        codesim.step(ROOT / "scenarios" / "paper" / "kv-cache.json")


def test_collectives_over_a_scenarios_fabric():
    fabric = ROOT / "scenarios" / "paper" / "alltoall-mpft-128.json"
    frame = codesim.kernels.collective(collective="all-to-all", ranks=128, bytes=[1 << 20, 8 << 20], fabric=str(fabric))
    assert frame["time_s"][1] > frame["time_s"][0]
    ours = cli_case("collective", "--kind", "all-to-all", "--ranks", 128, "--bytes", 8 << 20, "--fabric", fabric)
    assert frame["time_s"][1] == pytest.approx(ours["time_s"], rel=1e-12)
    assert frame["busbw_GBps"][1] == pytest.approx(ours["terms"]["busbw_GBps"])
