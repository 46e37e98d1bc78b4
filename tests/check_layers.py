#!/usr/bin/env python3
"""Fails when a file under sim/ includes from a folder above its own, or from a sibling.

The layers, lowest first. A level is one folder, or several sibling folders that build on the
levels below but not on each other. A file may include from its own folder and from the levels
below its own, so no include runs upward and no two folders include each other.
"""
import pathlib
import re
import sys

LEVELS = [
    "core",
    "hw",
    "net",
    # net/scale/: the topologies at full size, their traffic by classes of flows
    "net/scale",
    # workload/: what a model, a pipeline, a parallel layout and a trace are; then MoE on them
    {"workload/model", "workload/pipeline", "workload/profile", "workload/goodput"},
    "workload/parallel",
    "workload/moe",
    {"workload/training", "workload/inference"},
    # requests/: what arrives (drawn, listed, closed-loop clients, load profiles); serving/: serving it
    "requests",
    "serving",
    # studies/: what a study reports, the scenario readers, the study kinds, running them
    "studies/report",
    "studies/config",
    {"studies/kernels", "studies/network", "studies/training", "studies/inference", "studies/serving"},
    "studies/run",
    # the two front ends, neither including the other
    {"cli", "python"},
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folders():
    for level, entry in enumerate(LEVELS):
        for name in sorted(entry) if isinstance(entry, set) else [entry]:
            yield name, level


def folder_of(path: str, rank: dict) -> str | None:
    """The longest known folder that holds `path` (a path relative to sim/)."""
    parts = path.split("/")[:-1]
    for n in range(len(parts), 0, -1):
        if "/".join(parts[:n]) in rank:
            return "/".join(parts[:n])
    return None


def main() -> int:
    sim = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent / "sim")
    rank = dict(folders())
    order = " < ".join("{" + ", ".join(sorted(e)) + "}" if isinstance(e, set) else e for e in LEVELS)
    problems = []
    files = sorted(p for p in sim.rglob("*") if p.suffix in (".hpp", ".cpp", ".in"))
    for path in files:
        own = folder_of(path.relative_to(sim).as_posix(), rank)
        if own is None:
            problems.append(f"{path}: its folder is not in the layer order")
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = INCLUDE.match(line)
            if not match or "/" not in match.group(1):
                continue
            target = folder_of(match.group(1), rank)
            if target is None:
                problems.append(f"{path}:{number}: includes '{match.group(1)}' from no known folder")
            elif target != own and rank[target] >= rank[own]:
                where = "a sibling" if rank[target] == rank[own] else "the layer above it"
                problems.append(f"{path}:{number}: '{own}' includes '{match.group(1)}' from {where}")
    # No folder grows past what a reader takes in at once (a source with its header counts once).
    # Every folder counts, those of a layer and the folders inside them.
    for folder in sorted({p.parent for p in files}):
        concepts = {p.stem for p in folder.glob("*") if p.suffix in (".hpp", ".cpp")}
        if len(concepts) > 18:
            problems.append(f"{folder}: {len(concepts)} concepts, more than 18; split it by concept")
    for problem in problems:
        print(problem)
    print(f"{len(files)} files checked against the layers {order}: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
