"""Shared by the plot scripts: the OUTDIR/--codesim command line, and running a scenario into
CSV rows (kept beside the plot)."""
import argparse
import csv
import io
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent


def outdir_arguments(doc):
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("outdir", type=pathlib.Path)
    parser.add_argument("--codesim", default=str(ROOT / "build" / "codesim"))
    args = parser.parse_args()
    args.outdir.mkdir(parents=True, exist_ok=True)
    return args


def run_rows(codesim, scenario, csv_path, *extra):
    """Runs `codesim run SCENARIO --format csv`, writes the CSV to csv_path, returns its rows."""
    out = subprocess.run([codesim, "run", str(scenario), "--format", "csv", *extra], check=True, capture_output=True,
                         text=True).stdout
    pathlib.Path(csv_path).write_text(out)
    return list(csv.DictReader(io.StringIO(out)))
