#!/usr/bin/env python3
"""Checks every shipped scenario against scenarios/schema.json, and that the schema rejects
a few malformed ones the loader rejects too."""
import json
import pathlib
import sys

import jsonschema

root = pathlib.Path(__file__).resolve().parent.parent
schema = json.loads((root / "scenarios" / "schema.json").read_text())
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)

failures = 0
files = sorted((root / "scenarios").rglob("*.json"))
files = [f for f in files if f.name != "schema.json"]
for path in files:
    errors = list(validator.iter_errors(json.loads(path.read_text())))
    for e in errors:
        print(f"{path.relative_to(root)}: /{'/'.join(map(str, e.path))}: {e.message}")
    failures += bool(errors)

base = json.loads((root / "scenarios" / "paper" / "tpot-ib.json").read_text())
bad = [
    ("unknown key", {**base, "clusterr": {}}),
    ("zero bandwidth", {**base, "cluster": {**base["cluster"], "scale_out_bandwidth_Bps": 0}}),
    ("unknown node", {**base, "cluster": {**base["cluster"], "node": "h900"}}),
    ("missing decode", {k: v for k, v in base.items() if k != "decode"}),
]
for name, doc in bad:
    if validator.is_valid(doc):
        print(f"schema accepts a bad scenario: {name}")
        failures += 1

print(f"{len(files) + len(bad) - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
