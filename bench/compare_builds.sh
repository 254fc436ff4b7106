#!/usr/bin/env bash
# The benchmarks of docs/benchmarks.md for two release builds, side by side in
# one run (docs/benchmarks.md, "Comparing two builds"): BEFORE and AFTER are
# build directories (each with orrery and bench/*_bench). Each measure runs
# for BEFORE, then AFTER, then BEFORE and AFTER again, so that a drift of the
# machine's speed falls on both; the reports go to OUT_DIR, one file per
# measure, build and round.
#
# Usage: bench/compare_builds.sh BEFORE AFTER OUT_DIR [--quick]
#   --quick   the daemon's short windows and one round of everything
set -euo pipefail
before=$1
after=$2
out=$3
quick=${4:-}
rounds=2
daemon_flags=()
if [[ $quick == --quick ]]; then
  rounds=1
  daemon_flags=(--quick)
fi
mkdir -p "$out"
flags=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_min_time=0.5)
store_filter='ClaimFinalize|ClaimBatch|CreateLoop|DueQuery'

measure() {  # name, build, round, command...
  local name=$1 build=$2 round=$3
  shift 3
  echo "== $name, $build, round $round" >&2
  "$@" >"$out/$name.$build.$round.txt" 2>&1
}

for round in $(seq "$rounds"); do
  for side in before after; do
    dir=$before
    [[ $side == after ]] && dir=$after
    measure cron "$side" "$round" taskset -c 0 "$dir/bench/cron_bench" "${flags[@]}"
    measure store "$side" "$round" taskset -c 0 "$dir/bench/store_bench" "${flags[@]}" \
      --benchmark_filter="$store_filter"
    measure workflow "$side" "$round" python3 bench/workflow_bench.py "$dir/orrery" 5
    measure daemon "$side" "$round" python3 bench/daemon_bench.py "$dir/orrery" \
      "${daemon_flags[@]}"
    measure wakeups "$side" "$round" python3 bench/wait_wakeups.py "$dir/orrery"
  done
done
echo "reports in $out" >&2
