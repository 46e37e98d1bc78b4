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

# A log resumed after the base scenario was edited runs the changed points again and says so; the
# rows kept are the new ones.
cp scenarios/paper/pipeline-1-design-point.json "$dir/base.json"
echo '{"base": "base.json", "grid": {"/mode": ["analytical"], "/pipeline/pp": [4, 8]}}' > "$dir/edited.json"
"$codesim" sweep "$dir/edited.json" --out "$dir/edited.jsonl" 2> "$dir/first.err"
! grep -q "resumed" "$dir/first.err"
"$codesim" sweep "$dir/edited.json" --out "$dir/edited.jsonl" 2> "$dir/again.err"
grep -q "resumed 2 of 2 points" "$dir/again.err"
before=$(python3 -c "import json,sys; print([json.loads(l)['metrics']['1f1b/bubble'] for l in open(sys.argv[1])])" "$dir/edited.jsonl")
sed -i 's/"backward_s": 2.0/"backward_s": 3.0/' "$dir/base.json"
"$codesim" sweep "$dir/edited.json" --out "$dir/edited.jsonl" 2> "$dir/edited.err"
grep -q "2 row(s) of .* ran another scenario" "$dir/edited.err"
[ "$(count "$dir/edited.jsonl")" = 2 ]
after=$(python3 -c "import json,sys; print([json.loads(l)['metrics']['1f1b/bubble'] for l in open(sys.argv[1])])" "$dir/edited.jsonl")
[ "$before" != "$after" ]
# One point's value changed: that point alone runs again.
echo '{"base": "base.json", "grid": {"/mode": ["analytical"], "/pipeline/pp": [4, 16]}}' > "$dir/edited.json"
"$codesim" sweep "$dir/edited.json" --out "$dir/edited.jsonl" 2> "$dir/point.err"
grep -q "1 row(s) of .* ran another scenario" "$dir/point.err" && grep -q "resumed 1 of 2 points" "$dir/point.err"

# A log that is not a sweep's is refused, not overwritten.
printf 'not a row\n' > "$dir/other.jsonl"
set +e; "$codesim" sweep "$dir/sweep.json" --out "$dir/other.jsonl" 2> "$dir/other.err"; code=$?; set -e
[ $code = 2 ] && grep -q "line 1 is not a sweep's row" "$dir/other.err" && [ "$(cat "$dir/other.jsonl")" = "not a row" ]

# Merge refuses shards of two sweeps, a file that is not a log and logs with no point.
set +e
"$codesim" merge --out "$dir/mixed.csv" "$dir/shard0.jsonl" "$dir/edited.jsonl" 2> "$dir/mixed.err"; mixed=$?
head -c 300 /dev/urandom > "$dir/binary.jsonl"; printf '\n' >> "$dir/binary.jsonl"
"$codesim" merge --out "$dir/bin.csv" "$dir/binary.jsonl" 2> "$dir/bin.err"; binary=$?
: > "$dir/empty.jsonl"
"$codesim" merge --out "$dir/none.csv" "$dir/empty.jsonl" 2> "$dir/none.err"; empty=$?
set -e
[ $mixed = 2 ] && grep -q "another sweep" "$dir/mixed.err" && [ ! -e "$dir/mixed.csv" ]
[ $binary = 2 ] && grep -q "is not a sweep's row" "$dir/bin.err" && [ ! -e "$dir/bin.csv" ]
[ $empty = 2 ] && grep -q "holds no finished point" "$dir/none.err"
# A row whose fields are not as a sweep writes them: its line named, and what is wrong with it.
head -n 1 "$dir/shard0.jsonl" | sed 's/"point":[0-9]*/"point":1e37/' > "$dir/float-point.jsonl"
head -n 1 "$dir/shard0.jsonl" | sed 's/"units":{/"units":{"x":1,/' > "$dir/bad-units.jsonl"
set +e
"$codesim" merge --out "$dir/float.csv" "$dir/float-point.jsonl" 2> "$dir/float.err"; float=$?
"$codesim" merge --out "$dir/units.csv" "$dir/shard0.jsonl" "$dir/bad-units.jsonl" 2> "$dir/units.err"; units=$?
set -e
[ $float = 2 ] && grep -q "float-point.jsonl line 1: is not a sweep's row (its \"point\" is not a whole number)" "$dir/float.err"
[ $units = 2 ] && grep -q "bad-units.jsonl line 1: is not a sweep's row (its \"units\" is not an object of text)" "$dir/units.err"
[ ! -e "$dir/float.csv" ] && [ ! -e "$dir/units.csv" ]
# A shard named twice merges as once; a point whose results differ between two logs is refused.
"$codesim" merge --out "$dir/twice.csv" "$dir/shard0.jsonl" "$dir/shard0.jsonl" 2> /dev/null
[ "$(cat "$dir/twice.csv")" = "$("$codesim" merge --out "$dir/once.csv" "$dir/shard0.jsonl" 2> /dev/null; cat "$dir/once.csv")" ]
head -n 1 "$dir/shard0.jsonl" | sed 's/"metrics":{"\([^"]*\)":[0-9.e+-]*/"metrics":{"\1":12345/' > "$dir/other-run.jsonl"
! cmp -s <(head -n 1 "$dir/shard0.jsonl") "$dir/other-run.jsonl"
set +e; "$codesim" merge --out "$dir/other.csv" "$dir/shard0.jsonl" "$dir/other-run.jsonl" 2> "$dir/other-run.err"; other=$?; set -e
[ $other = 2 ] && grep -q "other-run.jsonl line 1: gives point [0-9]* other results than an earlier line" "$dir/other-run.err"
[ ! -e "$dir/other.csv" ]
# A grid value given twice, a pointer the base cannot take, a shard with trailing text: refused before any point runs.
echo '{"base": "base.json", "grid": {"/pipeline/pp": [4, 4]}}' > "$dir/twice.json"
echo '{"base": "base.json", "grid": {"/nowhere/x": [1]}}' > "$dir/nowhere.json"
set +e
"$codesim" sweep "$dir/twice.json" --out "$dir/twice.jsonl" 2> "$dir/twice.err"; twice=$?
"$codesim" sweep "$dir/nowhere.json" --out "$dir/nowhere.jsonl" 2> "$dir/nowhere.err"; nowhere=$?
"$codesim" sweep "$dir/sweep.json" --out "$dir/x.jsonl" --shard 1/2x 2> "$dir/shard.err"; shard=$?
set -e
[ $twice = 2 ] && grep -q "/grid//pipeline/pp/1: 4 (a number) is not allowed; it is given twice" "$dir/twice.err" && [ ! -e "$dir/twice.jsonl" ]
[ $nowhere = 2 ] && grep -q "/grid//nowhere/x: '/nowhere' does not exist" "$dir/nowhere.err"
[ $shard = 2 ] && grep -q "^codesim: --shard: '1/2x' is not allowed" "$dir/shard.err"
echo "sweep resume, shards and merge: ok"
