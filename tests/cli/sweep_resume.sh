#!/usr/bin/env bash
# A sweep killed mid-way and rerun ends with every point exactly once; a partial last line (a
# write cut short) is dropped; shards merge into the whole; CSV and JSON Lines agree.
set -euo pipefail
codesim=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/sweep.json" <<JSON
{"base": "$PWD/scenarios/paper/pipeline-1-design-point.json",
 "grid": {"/mode": ["analytical"], "/pipeline/schedules": [["1f1b"], ["dualpipe"]], "/pipeline/pp": [4, 8],
          "/pipeline/forward_s": [0.5, 1.0, 1.5, 2.0, 2.5]}}
JSON
count() { python3 -c "import json,sys; p=[json.loads(l)['point'] for l in open(sys.argv[1])]; assert len(p)==len(set(p)), 'duplicates'; print(len(p))" "$1"; }

"$codesim" sweep "$dir/sweep.json" --out "$dir/all.jsonl" -j 2
[ "$(count "$dir/all.jsonl")" = 20 ]

# Keep 7 finished points plus half a line, as a kill during a write would leave.
head -n 7 "$dir/all.jsonl" > "$dir/resumed.jsonl"
sed -n 8p "$dir/all.jsonl" | head -c 40 >> "$dir/resumed.jsonl"
"$codesim" sweep "$dir/sweep.json" --out "$dir/resumed.jsonl" -j 2
[ "$(count "$dir/resumed.jsonl")" = 20 ]
"$codesim" sweep "$dir/sweep.json" --out "$dir/resumed.jsonl"   # nothing left to do
[ "$(count "$dir/resumed.jsonl")" = 20 ]

# Killed for real, then resumed.
"$codesim" sweep "$dir/sweep.json" --out "$dir/killed.jsonl" -j 1 & pid=$!
sleep 0.3; kill -9 $pid 2>/dev/null || true; wait $pid 2>/dev/null || true
"$codesim" sweep "$dir/sweep.json" --out "$dir/killed.jsonl"
[ "$(count "$dir/killed.jsonl")" = 20 ]

# Shards (as CSV, each with its JSON Lines log) and merge. Points differ in their metrics (a
# schedule's rows carry its name), so the CSV columns are the union.
for i in 0 1 2; do "$codesim" sweep "$dir/sweep.json" --out "$dir/shard$i.csv" --shard $i/3 -j 1; done
[ -f "$dir/shard0.jsonl" ] && [ "$(tail -n +2 "$dir/shard0.csv" | wc -l)" = 7 ]
"$codesim" merge --out "$dir/merged.csv" "$dir"/shard{0,1,2}.jsonl
[ "$(tail -n +2 "$dir/merged.csv" | wc -l)" = 20 ]
[ "$(tail -n +2 "$dir/merged.csv" | cut -d, -f1 | tr '\n' ' ')" = "$(seq 0 19 | tr '\n' ' ')" ]
head -n 1 "$dir/merged.csv" | grep -q "1f1b/bubble" && head -n 1 "$dir/merged.csv" | grep -q "dualpipe/bubble"
echo "sweep resume, shards and merge: ok"
