#!/usr/bin/env python3
"""Fails when a file under sim/ includes from a folder above its own.

The layers, lowest first; a file may include from its own folder and from those below it, so
no include runs upward and no two folders include each other.
"""
import pathlib
import re
import sys

LAYERS = ["core", "hw", "net", "workload", "serving", "studies", "cli", "python"]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path: str) -> str:
    return path.split("/", 1)[0]


def main() -> int:
    sim = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent / "sim")
    rank = {name: i for i, name in enumerate(LAYERS)}
    problems = []
    files = sorted(p for p in sim.rglob("*") if p.suffix in (".hpp", ".cpp", ".in"))
    for path in files:
        own = layer_of(path.relative_to(sim).as_posix())
        if own not in rank:
            problems.append(f"{path}: folder '{own}' is not in the layer order {LAYERS}")
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = INCLUDE.match(line)
            if not match or "/" not in match.group(1):
                continue
            target = layer_of(match.group(1))
            if target not in rank:
                problems.append(f"{path}:{number}: includes '{match.group(1)}' from no known layer")
            elif rank[target] > rank[own]:
                problems.append(f"{path}:{number}: '{own}' includes '{match.group(1)}' from the layer above it")
    for problem in problems:
        print(problem)
    print(f"{len(files)} files checked against the layers {' < '.join(LAYERS)}: {len(problems)} upward includes")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
