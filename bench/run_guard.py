#!/usr/bin/env python3
"""The short regression guard of CI (docs/benchmarks.md, "The regression guard").

Three figures of the daemon, each a ratio to a floor measured in the same run, one
round each (about 60 s in all):

  cpu        CPU of one run, all processes (bench/run_cost.py, 100 loops every 1 s
             for 10 s) over `true` posix_spawn'd by this script: lower is better
  dispatch   dispatch latency p50, 1,000 loops for 10 s (bench/daemon_bench.py)
             over `date` spawned by Python: lower is better
  sustained  `true` runs/min, 500 loops every 1 s for 10 s (bench/daemon_bench.py)
             over `true` fork+exec'd by Python one after another: higher is better

Each has a limit 2.5 times worse than what the code measures today on the machines
of docs/benchmarks.md: noise on a shared machine stays inside it, a loss of 5 times
does not. The script prints every figure beside its limit and exits 1 when one is
past it.

Usage: bench/run_guard.py BUILD/orrery
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_bench import dispatch_latency, sustained_runs  # noqa: E402
from run_cost import cpu_round  # noqa: E402

# (name, limit, higher_is_better): today's ratio, 2.5 times worse
# (docs/benchmarks.md, "The regression guard", for today's figures).
LIMITS = {
    "cpu": (40.0, False),
    "dispatch": (15.0, False),
    "sustained": (0.04, True),
}


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    cpu = cpu_round(binary, 100, 10)
    latency = dispatch_latency(binary, 10)
    sustained = sustained_runs(binary, 10, 500)
    figures = {
        "cpu": cpu["per_run_ms"] / cpu["floor_spawn_ms"],
        "dispatch": latency["p50"] / latency["base_p50"],
        "sustained": sustained["per_min"] / sustained["base_per_min"],
    }
    details = {
        "cpu": f"{cpu['per_run_ms']:.2f} ms per run / {cpu['floor_spawn_ms']:.2f} ms",
        "dispatch": f"p50 {latency['p50']:.2f} ms / {latency['base_p50']:.2f} ms",
        "sustained": f"{sustained['per_min']:,.0f} / {sustained['base_per_min']:,.0f} runs/min",
    }
    failed = []
    for name, ratio in figures.items():
        limit, higher_is_better = LIMITS[name]
        ok = ratio >= limit if higher_is_better else ratio <= limit
        bound = "at least" if higher_is_better else "at most"
        print(f"guard {name}: ratio {ratio:.3f} ({details[name]}); {bound} {limit}: "
              f"{'ok' if ok else 'FAILED'}")
        if not ok:
            failed.append(name)
    if failed:
        print(f"guard: {', '.join(failed)} past the limit (docs/benchmarks.md, "
              "\"The regression guard\")")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
