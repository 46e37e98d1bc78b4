#!/usr/bin/env python3
"""Checks that C++ sources are laid out as the repository's .clang-format says.

Usage: check_format.py ROOT [FILE ...]
Without files, every .cpp and .hpp under ROOT's sim/ and tests/ is checked (tests/data/ aside).
clang-format is the one named by $CLANG_FORMAT, else clang-format-14, else clang-format
(setup.sh installs Debian's; the style's options are those of version 14). Prints each file
that differs with its first differing line, and exits 1; 0 when all are laid out.
"""
import os
import re
import shutil
import subprocess
import sys


def sources(root):
    for top in ("sim", "tests"):
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if not (top == "tests" and d == "data" and folder.endswith("tests")))
            for name in sorted(files):
                if name.endswith((".cpp", ".hpp")):
                    yield os.path.join(folder, name)


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root = sys.argv[1]
    files = sys.argv[2:] or list(sources(root))
    tool = os.environ.get("CLANG_FORMAT") or shutil.which("clang-format-14") or shutil.which("clang-format")
    if not tool:
        print("check_format: clang-format is not installed (Debian: apt-get install clang-format; ./setup.sh installs it)",
              file=sys.stderr)
        return 2
    style = "--style=file:" + os.path.join(root, ".clang-format")
    off = 0
    for start in range(0, len(files), 64):
        batch = files[start:start + 64]
        run = subprocess.run([tool, style, "--dry-run", "--Werror", *batch], capture_output=True, text=True)
        seen = set()
        # clang-format's warnings: "FILE:LINE:COL: error: code should be clang-formatted [-Wclang-format-violations]"
        for m in re.finditer(r"^(.+?):(\d+):\d+: error: code should be clang-formatted", run.stderr, re.M):
            if m.group(1) in seen:
                continue
            seen.add(m.group(1))
            print(f"{os.path.relpath(m.group(1), root)}:{m.group(2)}: not laid out as .clang-format says "
                  f"(clang-format -i {os.path.relpath(m.group(1), root)})")
        if run.returncode != 0 and not seen:
            print(run.stderr.strip() or f"{tool} failed", file=sys.stderr)
            return 2
        off += len(seen)
    if off:
        version = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout.strip()
        print(f"{off} file(s) not laid out as .clang-format says ({version})")
        return 1
    print(f"{len(files)} files laid out as .clang-format says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
