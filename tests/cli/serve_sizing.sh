#!/usr/bin/env bash
# Sizing at a load: serve-search --rate gives each layout's copies, GPUs, headroom and cost at the
# load, ranked by that cost; and its one-unit rate for a layout is serve-plan's for the same one.
set -euo pipefail
codesim=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
base="$PWD/scenarios/serving/llama-3.1-70b-h100-colocated.json"
echo "{\"base\": \"$base\", \"grid\": {\"/deployment/colocated/max_running\": [256, 64]}, \"usd_per_gpu_hour\": 2.0}" > "$dir/search.json"
"$codesim" serve-search "$dir/search.json" --out "$dir/search.jsonl" --rate 50 > "$dir/ranking.md" 2> /dev/null
grep -q "for 50 req/s: copies | GPUs | headroom | USD per million output tokens |" "$dir/ranking.md"
# The first-ranked row: max_running 256, three copies of its one node for 50 req/s.
first=$(sed -n 3p "$dir/ranking.md")
search_rate=$(echo "$first" | awk -F'|' '{gsub(/ /, "", $6); print $6}')
[ "$(echo "$first" | awk -F'|' '{gsub(/ /, "", $4); print $4}')" = 256 ]
[ "$(echo "$first" | awk -F'|' '{gsub(/ /, "", $9); print $9}')" = 3 ]
[ "$(echo "$first" | awk -F'|' '{gsub(/ /, "", $10); print $10}')" = 24 ]
plan_rate=$("$codesim" serve-plan "$base" --rate 50 --format csv | awk -F, '/one unit: requests\/s within the SLO/ {print $(NF-2)}')
[ "$search_rate" = "$plan_rate" ] || { echo "serve-search's one-unit rate $search_rate, serve-plan's $plan_rate"; exit 1; }
set +e
"$codesim" serve-search "$dir/search.json" --out "$dir/search.jsonl" --rate 0 2> "$dir/err"; code=$?
set -e
[ $code = 2 ] && grep -q "^codesim: --rate: 0 is not allowed" "$dir/err"
# Prices a scenario's cost would refuse, and a price for a node no point runs on, are refused.
echo "{\"base\": \"$base\", \"grid\": {\"/cluster/node\": [\"h100\"]}, \"usd_per_gpu_hour\": {\"h100\": 1e308}}" > "$dir/dear.json"
echo "{\"base\": \"$base\", \"grid\": {\"/cluster/node\": [\"h100\"]}, \"usd_per_gpu_hour\": {\"h100\": 2, \"b200\": 3}}" > "$dir/unused.json"
set +e
"$codesim" serve-search "$dir/dear.json" --out "$dir/dear.jsonl" 2> "$dir/dear.err"; dear=$?
"$codesim" serve-search "$dir/unused.json" --out "$dir/unused.jsonl" 2> "$dir/unused.err"; unused=$?
set -e
[ $dear = 2 ] && grep -q "/usd_per_gpu_hour/h100: 1e+308 (a number) is not allowed; a price in USD from 1e-06 to 10000" "$dir/dear.err"
[ $unused = 2 ] && grep -q "/usd_per_gpu_hour/b200: is not allowed; no point runs on node 'b200'" "$dir/unused.err"
echo "sizing at a load: ok ($search_rate req/s a unit)"
