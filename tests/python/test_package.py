"""The Python package against the CLI: the same tables number for number, the same errors with
their paths, wrong Python types refused. Run by ctest with the build's package on PYTHONPATH and
the CLI in $CODESIM."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

import codesim

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("CODESIM", str(ROOT / "build" / "codesim"))
TPOT = ROOT / "scenarios" / "paper" / "tpot-ib.json"
LLAMA = ROOT / "scenarios" / "serving" / "llama-3.1-70b-h100-colocated.json"


def cli_json(*args):
    return json.loads(subprocess.run([CLI, *map(str, args), "--format", "json"], check=True, capture_output=True, text=True).stdout)


def test_a_run_equals_the_cli():
    report = codesim.load(TPOT).run()
    assert json.loads(report.to_json())["tables"] == cli_json("run", TPOT)["tables"]
    table = report.tables["tpot-bound"]
    assert list(table.columns) == ["table", "id", "label", "metric", "unit", "paper", "ours", "delta_rel", "basis"]
    assert len(report.rows) == len(table)
    assert report.notes


def test_sets_and_dicts_as_the_cli_takes_them():
    sets = {"/workload/duration_s": 40, "/workload/arrivals/rate_per_s": 6}
    ours = codesim.load(LLAMA, sets=sets).run()
    theirs = cli_json("run", LLAMA, "--set", "/workload/duration_s=40", "--set", "/workload/arrivals/rate_per_s=6")
    assert json.loads(ours.to_json())["tables"] == theirs["tables"]
    document = json.loads(LLAMA.read_text())
    document["workload"]["duration_s"] = 40
    document["workload"]["arrivals"]["rate_per_s"] = 6
    assert codesim.load(document).run().rows["ours"].tolist() == ours.rows["ours"].tolist()


def test_paper_tables_equal_the_cli():
    ours = codesim.tables(only="kv-cache")
    theirs = cli_json("tables", "--only", "kv-cache")["tables"][0]
    assert ours["kv-cache"]["ours"].tolist() == [row["ours"] for row in theirs["rows"]]
    frames, lines, failures = codesim.tables(only="kv-cache", check=True)
    assert failures == 0 and lines


def test_bad_input_names_its_path():
    with pytest.raises(codesim.InputError) as error:
        codesim.load(LLAMA, sets={"/workload/arrivals/rate_per_s": 0})
    assert error.value.path == "/workload/arrivals/rate_per_s"
    assert str(error.value).startswith("/workload/arrivals/rate_per_s: 0 (a number) is not allowed")
    with pytest.raises(codesim.InputError) as error:
        codesim.load(ROOT / "no-such-scenario.json")
    assert "no-such-scenario.json" in error.value.path
    with pytest.raises(codesim.InputError) as error:
        codesim.tables(only="no-such-table")
    assert error.value.path == "only"
    with pytest.raises(codesim.InputError):
        codesim.load(TPOT).run(engine="quantum")


def test_absurd_sizes_are_input_errors_before_anything_is_allocated():
    with pytest.raises(codesim.InputError) as error:
        codesim.load(LLAMA, sets={"/workload/arrivals/rate_per_s": 1e12})
    assert error.value.path == "/workload/arrivals/rate_per_s"
    assert "1.2e+14 requests" in str(error.value)


def test_wrong_python_types_are_type_errors():
    with pytest.raises(TypeError, match="source"):
        codesim.load(42)
    with pytest.raises(TypeError, match="sets"):
        codesim.load(TPOT, sets=[("/a", 1)])
    with pytest.raises(TypeError, match="JSON pointer"):
        codesim.load(TPOT, sets={"workload": 1})
    with pytest.raises(TypeError, match="only"):
        codesim.tables(only=3)


def test_the_catalogue():
    assert "deepseek-v3" in codesim.models()["name"].tolist()
    gpus = codesim.gpus()
    assert "sources" in gpus.columns and len(gpus) >= 5
    assert "h800" in codesim.nodes()["name"].tolist()


def test_a_sweep_resumed_loses_and_repeats_nothing(tmp_path):
    grid = {"/mode": ["analytical"], "/moe/simulated_tokens_per_gpu": [256], "/compute/communication_sms": [8, 16, 24, 32]}
    base = ROOT / "scenarios" / "training" / "baseline-dualpipe.json"
    whole = codesim.sweep(base, grid=grid, jobs=2, log=tmp_path / "whole.jsonl")
    assert len(whole) == 4 and whole["error"].isna().all()
    # As if stopped after two points, in the middle of writing the third.
    lines = (tmp_path / "whole.jsonl").read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(sorted(lines, key=lambda l: json.loads(l)["point"])[:2]) + '{"point": 2, "inp')
    resumed = codesim.sweep(base, grid=grid, jobs=2, log=cut)
    assert resumed.sort_values("point").reset_index(drop=True).equals(whole.sort_values("point").reset_index(drop=True))
    points = [json.loads(l)["point"] for l in cut.read_text().splitlines()]
    assert sorted(points) == [0, 1, 2, 3]
    with pytest.raises(TypeError, match="grid"):
        codesim.sweep(base, grid={"/mode": "analytical"})
    # A point the scenario refuses is a row with its error, as in `codesim sweep`.
    refused = codesim.sweep(base, grid={"/parallel/pp": [7]}, log=tmp_path / "bad.jsonl")
    assert "/parallel/pp" in refused["error"][0]
    with pytest.raises(codesim.InputError) as error:
        codesim.sweep(base, grid={"/mode": ["analytical"]}, log=tmp_path / "bad.txt")
    assert error.value.path == "log"


def test_a_resumed_sweep_reruns_what_its_base_changed(tmp_path):
    base = json.loads((ROOT / "scenarios" / "paper" / "pipeline-1-design-point.json").read_text())
    base["mode"] = "analytical"
    grid = {"/pipeline/pp": [4, 8]}
    log = tmp_path / "log.jsonl"
    first = codesim.sweep(base, grid=grid, jobs=1, log=log)
    base["pipeline"]["backward_s"] = 3.0
    again = codesim.sweep(base, grid=grid, jobs=1, log=log)
    column = "1f1b/bubble_s" if "1f1b/bubble_s" in first.columns else "1f1b/bubble"
    assert (again[column] != first[column]).all()
    assert len(log.read_text().splitlines()) == 2


def test_numbers_json_cannot_hold_are_input_errors(tmp_path):
    with pytest.raises(codesim.InputError, match=r"^/decode/sequences/1: a number that is not finite") as error:
        codesim.load(ROOT / "scenarios" / "inference" / "decode.json", sets={"/decode/sequences": [640, float("nan")]})
    assert error.value.path == "/decode/sequences/1"
    with pytest.raises(codesim.InputError, match=r"^/grid//pipeline/pp/0: a number that is not finite"):
        codesim.sweep(ROOT / "scenarios" / "paper" / "pipeline-1-design-point.json", grid={"/pipeline/pp": [float("nan")]}, log=tmp_path / "nan.jsonl")
    with pytest.raises(codesim.InputError, match=r"^m: lists of different lengths are not allowed \(m: 2 values, k: 3 values\)"):
        codesim.kernels.gemm(m=[64, 128], n=7168, k=[2048, 4096, 7168])


def test_ctrl_c_stops_a_sweep_keeps_its_points_and_leaves_python_usable(tmp_path):
    import signal
    import threading
    import time

    base = ROOT / "scenarios" / "training" / "baseline-dualpipe.json"
    grid = {"/mode": ["analytical"], "/compute/communication_sms": list(range(4, 40))}
    log = tmp_path / "sweep.jsonl"

    def interrupt_after_the_first_point():
        deadline = time.time() + 60
        while time.time() < deadline and not (log.exists() and log.read_text().count("\n") >= 1):
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt_after_the_first_point, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        codesim.sweep(base, grid=grid, jobs=1, log=log)
    kept = log.read_text().count("\n")
    assert 1 <= kept < 36
    assert len(codesim.load(TPOT).run().rows) > 0  # the interpreter goes on
    done = codesim.sweep(base, grid=grid, jobs=1, log=log)
    assert sorted(done["point"]) == list(range(36))
    assert sorted(json.loads(line)["point"] for line in log.read_text().splitlines()) == list(range(36))


def test_progress_reaches_the_callback_and_its_exception_stops_the_run():
    production = ROOT / "scenarios" / "serving" / "deepseek-v3-production.json"
    sets = {"/workload/duration_s": 30, "/workload/warmup_s": 5}
    heard = []
    codesim.load(production, sets=sets).run(progress=lambda what, share: heard.append((what, share)))
    assert heard and all(what == "serving" and 0 <= share <= 1 for what, share in heard)

    class Enough(Exception):
        pass

    def stop(what, share):
        raise Enough()

    with pytest.raises(Enough):
        codesim.load(production, sets=sets).run(progress=stop)
    assert len(codesim.load(TPOT).run(progress=False).rows) > 0
    with pytest.raises(TypeError, match="progress"):
        codesim.load(TPOT).run(progress=3)


def test_fp8_casts_equal_the_cli_bit_for_bit():
    import numpy

    values = [0.0, -0.0, 1.0, 0.1, -3.14159, 448.0, 500.0, 1e-9, 2.0**-9, 65504.0, 1e6]
    for to in ("e4m3", "e5m2", "bf16", "ue8m0"):
        codes, decoded = codesim.fp8.cast(numpy.array(values), to, saturate=False)
        out = subprocess.run([CLI, "fp8", "cast", "--to", to, *map(repr, values)], check=True, capture_output=True, text=True).stdout
        cli_codes = [int(line.split()[1], 16) for line in out.splitlines()]
        assert codes.tolist() == cli_codes, to
        assert decoded.shape == (len(values),)
    with pytest.raises(codesim.InputError) as error:
        codesim.fp8.cast([1.0], "e3m4")
    assert error.value.path == "to"


def test_fp8_quantize_and_gemm_on_numpy():
    import numpy

    rng = numpy.random.default_rng(1)
    a, b = rng.standard_normal((4, 4096)), rng.standard_normal((8, 4096))
    values, scales = codesim.fp8.quantize(a, "e4m3", (1, 128))
    assert values.shape == a.shape and scales.shape == (4, 32)
    assert numpy.allclose(values * numpy.repeat(scales, 128, axis=1), a, rtol=0.07, atol=1e-3)
    # Against the exact product of the quantised operands, the accumulation's own error: FP32
    # promotion every 128 elements of K keeps it far below the tensor cores' FP22 alone.
    b_values, b_scales = codesim.fp8.quantize(b, "e4m3", (128, 128))
    b_dequantized = b_values * numpy.repeat(numpy.repeat(b_scales, 128, axis=0)[: b.shape[0]], 128, axis=1)
    reference = (values * numpy.repeat(scales, 128, axis=1)) @ b_dequantized.T
    rms = numpy.sqrt(numpy.mean(reference**2))
    promoted = numpy.abs(codesim.fp8.gemm(a, b) - reference).max() / rms
    fast = numpy.abs(codesim.fp8.gemm(a, b, promote_every=0) - reference).max() / rms
    assert promoted < 1e-3 < fast
    with pytest.raises(codesim.InputError):
        codesim.fp8.gemm(a, b[:, :100])
    with pytest.raises(TypeError, match="tile"):
        codesim.fp8.quantize(a, tile=(1, 2, 3))
    with pytest.raises(TypeError, match="group"):
        codesim.fp8.gemm(a, b, group="32")
    with pytest.raises(TypeError, match="2-D"):
        codesim.fp8.quantize([1.0, 2.0])
    with pytest.raises(TypeError):
        codesim.load(TPOT, colour="red")  # an unknown keyword
    with pytest.raises(codesim.InputError) as error:
        codesim.load(LLAMA, sets={"/workload/duration_s": "an hour"})
    assert error.value.path == "/workload/duration_s"


def test_schedules_equal_the_cli():
    ours = codesim.schedule("dualpipe", 4, 10)
    theirs = cli_json("schedule", "--kind", "dualpipe", "--pp", 4, "--microbatches", 10)
    assert ours["ranks"] == theirs["ranks"]
    with pytest.raises(codesim.InputError):
        codesim.schedule("2f2b", 4, 8)
    with pytest.raises(TypeError):
        codesim.schedule("1f1b", 4.5, 8)


PROFILE = ROOT.parent / "shared" / "profile-data" / "train.json"


@pytest.mark.skipif(not PROFILE.exists(), reason="DeepSeek's profile is not beside this checkout")
def test_calibrate_reads_a_profile_as_the_cli_does(tmp_path):
    ops, calibration = codesim.calibrate(PROFILE, out=tmp_path / "calibration.json")
    attn = ops.set_index("op").loc["attn(F)"]
    assert attn["instances"] == 4 and round(attn["busy_ms"], 3) == 4.363
    assert json.loads((tmp_path / "calibration.json").read_text()) == calibration


def test_calibrate_and_plan_refuse_bad_input():
    with pytest.raises(codesim.InputError) as error:
        codesim.calibrate(ROOT / "tests" / "data" / "traces" / "truncated.json")
    assert "truncated.json" in error.value.path
    with pytest.raises(codesim.InputError) as error:
        codesim.plan(TPOT)
    assert "/kind" in str(error.value)


def test_plan_ranks_layouts_as_the_cli_does(tmp_path):
    mixtral = ROOT / "scenarios" / "training" / "mixtral-8x7b-h100.json"
    layouts = codesim.plan(mixtral, sets={"/fabric/nodes": 2}, jobs=2, log=tmp_path / "plan.jsonl")
    assert layouts["fits"].iloc[0] and layouts["fits"].any()
    fit = layouts[layouts["fits"]]
    assert fit["tokens_per_s_M"].is_monotonic_decreasing  # the unit in the name: millions of tokens a second
    assert layouts.attrs["units"]["tokens_per_s_M"] == "M" and "tokens_per_s" not in layouts.columns
    out = subprocess.run([CLI, "plan", mixtral, "--set", "/fabric/nodes=2", "--top", "1", "-j", "2"], check=True, capture_output=True,
                         text=True).stdout
    best = [line for line in out.splitlines() if line.startswith("| 1 |")][0].split("|")
    assert float(best[-5]) == pytest.approx(fit["tokens_per_s_M"].iloc[0], rel=1e-5)  # ..., tokens/s, TFLOPS, MFU, memory, ""


def test_every_paper_table_equals_the_cli():
    ours = codesim.tables()
    theirs = cli_json("tables")["tables"]
    assert list(ours) == [t["id"] for t in theirs]
    for table in theirs:
        frame = ours[table["id"]]
        assert frame["id"].tolist() == [row["id"] for row in table["rows"]], table["id"]
        assert frame["ours"].tolist() == [row["ours"] for row in table["rows"]], table["id"]


def test_numpy_scalars_and_arrays_are_taken_as_python_values(tmp_path):
    numpy = pytest.importorskip("numpy")
    sets = {"/workload/duration_s": numpy.int64(40), "/workload/arrivals/rate_per_s": numpy.float64(6), "/workload/seed": numpy.int32(1)}
    assert codesim.load(LLAMA, sets=sets).kind == "serving"
    base = ROOT / "scenarios" / "training" / "baseline-dualpipe.json"
    grid = {"/mode": ["analytical"], "/moe/simulated_tokens_per_gpu": [256], "/compute/communication_sms": numpy.array([8, 16])}
    frame = codesim.sweep(base, grid=grid, jobs=1, log=tmp_path / "numpy.jsonl")
    assert sorted(frame["/compute/communication_sms"].tolist()) == [8, 16] and frame["error"].isna().all()
    with pytest.raises(TypeError, match="grid"):
        codesim.sweep(base, grid={"/compute/communication_sms": numpy.array([[8, 16]])[0][0]})
    with pytest.raises(TypeError, match="sets: /workload/seed: object is not allowed"):
        codesim.load(LLAMA, sets={"/workload/seed": object()})


def test_sweep_columns_carry_their_units(tmp_path):
    base = ROOT / "scenarios" / "training" / "baseline-dualpipe.json"
    frame = codesim.sweep(base, points=[{"/mode": "analytical", "/moe/simulated_tokens_per_gpu": 256}], jobs=1, log=tmp_path / "u.jsonl")
    assert "tokens_per_s_M" in frame.columns and "step_s" in frame.columns and "memory_total_GB" in frame.columns
    assert frame.attrs["units"]["step_s"] == "s"


def test_version_is_the_projects():
    cmake = (ROOT / "CMakeLists.txt").read_text()
    assert f"project(codesim VERSION {codesim.__version__} " in cmake


def test_without_pandas_a_frame_says_what_to_install():
    code = ("import sys; sys.modules['pandas'] = None; import codesim\n"
            "report = codesim.load(sys.argv[1]).run()\n"
            "try:\n    report.tables\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code, str(TPOT)], check=True, capture_output=True, text=True).stdout
    assert "install pandas (python3-pandas)" in out


def test_kernel_fields_json_cannot_hold_are_named():
    with pytest.raises(codesim.InputError, match=r"^m: nan is not allowed; a finite number"):
        codesim.kernels.gemm(m=float("nan"), n=4096, k=128)
    with pytest.raises(codesim.InputError, match=r"^bytes: inf is not allowed; a finite number"):
        codesim.kernels.memory(op="copy", bytes=float("inf"))
    with pytest.raises(codesim.InputError, match=r"^m: an empty list is not allowed"):
        codesim.kernels.gemm(m=[], n=4096, k=128)
