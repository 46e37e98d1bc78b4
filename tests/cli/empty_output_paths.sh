#!/usr/bin/env bash
# An output flag given an empty path is refused (exit 2, one line), not taken as "no output".
set -euo pipefail
codesim=$1
scenario=scenarios/serving/llama-3.1-70b-h100-colocated.json
for flag in --requests-out --series --trace --out; do
  set +e
  err=$("$codesim" run "$scenario" "$flag" "" 2>&1 >/dev/null); code=$?
  set -e
  [ "$code" = 2 ] || { echo "$flag '': exit $code"; exit 1; }
  [ "$err" = "codesim: $flag: '' is not allowed; give a path" ] || { echo "$flag '': $err"; exit 1; }
done
echo "empty output paths: ok"
