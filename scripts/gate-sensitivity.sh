#!/usr/bin/env bash
# The smallest build slowdown the gate catches: bool-z3's build made F times slower
# (tests/stubs/regressions.py spins on the CPU; the solver's work is unchanged), swept on the
# `ci` suite's bool-z3 cases with 3 repeats and compared with each of 4 unchanged sweeps.
#   scripts/gate-sensitivity.sh [STORE=results/gate-sensitivity.sqlite]
set -uo pipefail
cd "$(dirname "$0")/.."
store=${1:-results/gate-sensitivity.sqlite}
sweep() { python -m bench run --suite ci --jobs 1 --encoding bool-z3 --store "$store" 2>/dev/null | sed -n 's/^run id: //p'; }
bases=()
for i in 1 2 3 4; do bases+=("$(sweep)"); done
for factor in 1.1 1.2 1.3 1.5 2 3; do
  id=$(PUZZLE_BENCH_PLUGINS=tests.stubs.regressions BENCH_STUB_REGRESSION=slow-build:$factor sweep)
  caught=0
  for base in "${bases[@]}"; do
    python -m bench compare "$base" "$id" --store "$store" >/dev/null && continue
    caught=$((caught + 1))
  done
  echo "build x$factor ($id): flagged against $caught of ${#bases[@]} baselines (${bases[*]})"
done
