"""The Python package against the CLI: the same tables number for number, the same errors with
their paths, wrong Python types refused. Run by ctest with the build's package on PYTHONPATH and
the CLI in $CODESIM."""
import json
import os
import pathlib
import subprocess

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
