#!/usr/bin/env python3
"""End-to-end run benchmark: `orrery trigger --wait` of trivial targets.

Measures, over N sequential runs in a fresh data directory:
  - claim -> exec latency: from the run's started_at (the claim) to the moment the
    target (`date +%s%3N`, exec'd directly by the supervisor) reads the clock;
  - runs per second of `true` through `trigger --wait` (each run: claim, start the
    supervisor, spawn, capture, finalize, read back).
Usage: bench/trigger_bench.py BUILD/orrery [N]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from bench_common import millis, percentile


def orrery(binary, home, *args):
    return subprocess.run([binary, "--home", home, *args], capture_output=True, text=True)


def main():
    binary = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    with tempfile.TemporaryDirectory() as home:
        orrery(binary, home, "add", "clock", "--every", "1h", "--", "date", "+%s%3N")
        orrery(binary, home, "add", "noop", "--every", "1h", "--", "true")
        latencies = []
        for _ in range(runs):
            run = json.loads(orrery(binary, home, "--json", "trigger", "clock", "--wait").stdout)
            latencies.append(int(run["stdout"].strip()) - millis(run["started_at"]))
        start = time.monotonic()
        for _ in range(runs):
            orrery(binary, home, "trigger", "noop", "--wait")
        elapsed = time.monotonic() - start
    print(f"claim->exec latency over {runs} runs: median {statistics.median(latencies):.1f} ms, "
          f"p99 {percentile(latencies, 0.99):.1f} ms")
    print(f"trigger --wait of true: {runs / elapsed:.1f} runs/s ({1000 * elapsed / runs:.1f} ms per run)")


if __name__ == "__main__":
    main()
