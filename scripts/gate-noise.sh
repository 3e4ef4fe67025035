#!/usr/bin/env bash
# False alarms of the regression gate: N back-to-back sweeps of the `ci` suite (half of them
# with a busy-looping process on one core), then `bench compare` on every consecutive pair.
#   scripts/gate-noise.sh [N=11] [STORE=results/gate-noise.sqlite]
# Run it in the project's venv. Prints one line per pair: its verdict counts and the compare exit code (1 = a false alarm).
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-11}
store=${2:-results/gate-noise.sqlite}
ids=()
for i in $(seq 1 "$n"); do
  burner=""
  if [ $((i % 2)) -eq 0 ]; then
    python3 -c "while True: pass" &
    burner=$!
  fi
  id=$(python -m bench run --suite ci --jobs 1 --store "$store" 2>/dev/null | sed -n 's/^run id: //p')
  [ -n "$burner" ] && kill "$burner"
  echo "sweep $i: $id${burner:+ (with a busy loop on one core)}"
  ids+=("$id")
done
alarms=0
for i in $(seq 1 $((n - 1))); do
  python -m bench compare "${ids[$((i - 1))]}" "${ids[$i]}" --store "$store" --format json >/tmp/gate-noise.json
  code=$?
  [ "$code" -ne 0 ] && alarms=$((alarms + 1))
  echo "pair $i ${ids[$((i - 1))]} -> ${ids[$i]}: exit $code $(python3 -c 'import json; print(json.load(open("/tmp/gate-noise.json"))["counts"])')"
done
echo "$((n - 1)) pairs, $alarms flagged a regression"
