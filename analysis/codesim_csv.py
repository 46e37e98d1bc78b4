"""Shared by the plot scripts: the OUTDIR/--codesim command line, and running a scenario into
rows (kept beside the plot as CSV). Scenarios run in-process through the Python package where it
is built (build/python); otherwise through the CLI."""
import argparse
import csv
import io
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def outdir_arguments(doc):
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("outdir", type=pathlib.Path)
    parser.add_argument("--codesim", default=str(ROOT / "build" / "codesim"))
    args = parser.parse_args()
    args.outdir.mkdir(parents=True, exist_ok=True)
    return args


def package():
    """The codesim package, from the environment or the build tree; None where it is not built."""
    try:
        import codesim
    except ImportError:
        sys.path.insert(0, str(ROOT / "build" / "python"))
        try:
            import codesim
        except ImportError:
            return None
    # A build tree configured without pybind11 holds the package's Python files but not its
    # extension: a package without load() is not built.
    return codesim if hasattr(codesim, "load") else None


def scenario_rows(codesim_cli, scenario, sets=None, csv_path=None):
    """Runs a scenario with `sets` ({JSON pointer: value}) and returns its rows as
    `codesim run --format csv` gives them (every field a string); written to csv_path if given."""
    codesim = package()
    if codesim is not None:
        rows = codesim.load(scenario, sets=sets or {}).run(progress=False).rows
        if csv_path is not None:
            rows.to_csv(csv_path, index=False)
        return [{k: "" if v is None or v != v else str(v) for k, v in row.items()} for row in rows.to_dict("records")]
    overrides = [a for pointer, value in (sets or {}).items() for a in ("--set", f"{pointer}={json.dumps(value)}")]
    out = subprocess.run([codesim_cli, "run", str(scenario), "--format", "csv", *overrides], check=True, capture_output=True,
                         text=True).stdout
    if csv_path is not None:
        pathlib.Path(csv_path).write_text(out)
    return list(csv.DictReader(io.StringIO(out)))


def run_rows(codesim_cli, scenario, csv_path, sets=None):
    """scenario_rows, kept beside the plot as csv_path."""
    return scenario_rows(codesim_cli, scenario, sets, csv_path)
