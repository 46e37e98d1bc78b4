"""The `codesim` command of an installed package: the codesim program installed beside the
module (codesim/bin/codesim), run with the same arguments."""
import os
import pathlib
import sys


def main():
    program = pathlib.Path(__file__).resolve().parent / "bin" / "codesim"
    if not program.exists():
        sys.exit(f"codesim: {program} is missing; reinstall the package (pip install .)")
    os.execv(program, [str(program), *sys.argv[1:]])
