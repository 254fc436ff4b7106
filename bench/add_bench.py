#!/usr/bin/env python3
"""The cost of one `orrery add` against its floor (docs/benchmarks.md, "Adding loops").

Each command is run CALLS times one after another (default 50), every call a new
process, in a fresh data directory; the figure is the median wall time per call,
and the ratio is to a floor measured in the same run:

  floor      the sqlite3 shell opening a WAL database and inserting one row
             (`sqlite3 DB "INSERT …"`): a process that opens the database, writes a
             row and closes it (its checkpoint and fsyncs included), as `add` does
  start      `orrery --version`: the binary's process start alone
  add        `orrery add NAME --every 1h -- true`, a new NAME each call
  ls         `orrery ls` on the database the adds left (CALLS loops)
  ls_json    `orrery ls --json`, the same
  trigger    `orrery trigger noop` of a loop of `true` that allows overlaps: the
             manual slot claimed and its supervisor started, not waited for
  runs_json  `orrery runs --json` on the CALLS runs the triggers left

Usage: bench/add_bench.py BUILD/orrery [--calls N] [--out FILE]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def timed(argv, env=None):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                   check=True)
    return time.perf_counter() - start


def median_ms(samples):
    return round(statistics.median(samples) * 1000, 2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--out")
    args = parser.parse_args()
    orrery = os.path.abspath(args.binary)
    with tempfile.TemporaryDirectory() as tmp:
        home = os.path.join(tmp, "home")
        floor_db = os.path.join(tmp, "floor.db")
        subprocess.run(["sqlite3", floor_db, "PRAGMA journal_mode=WAL; "
                        "CREATE TABLE t (id TEXT PRIMARY KEY, spec TEXT)"],
                       stdout=subprocess.DEVNULL, check=True)
        env = dict(os.environ, ORRERY_HOME=home)
        timed([orrery, "ls"], env)  # creates and migrates the database
        floor, start, add, ls, ls_json, trigger, runs_json = [], [], [], [], [], [], []
        for i in range(args.calls):
            floor.append(timed(["sqlite3", floor_db,
                                f"INSERT INTO t VALUES ('row{i}', 'every 1h -- true')"]))
            start.append(timed([orrery, "--version"]))
            add.append(timed([orrery, "add", f"loop{i}", "--every", "1h", "--", "true"], env))
        for _ in range(args.calls):
            ls.append(timed([orrery, "ls"], env))
            ls_json.append(timed([orrery, "ls", "--json"], env))
        subprocess.run([orrery, "add", "noop", "--every", "1h", "--overlap", "allow", "--",
                        "true"], env=env, stdout=subprocess.DEVNULL, check=True)
        for _ in range(args.calls):
            trigger.append(timed([orrery, "trigger", "noop"], env))
        for _ in range(args.calls):
            runs_json.append(timed([orrery, "runs", "--json"], env))
    figures = {
        "calls": args.calls,
        "floor_ms": median_ms(floor),
        "start_ms": median_ms(start),
        "add_ms": median_ms(add),
        "ls_ms": median_ms(ls),
        "ls_json_ms": median_ms(ls_json),
        "trigger_ms": median_ms(trigger),
        "runs_json_ms": median_ms(runs_json),
    }
    figures["add_over_floor"] = round(figures["add_ms"] / figures["floor_ms"], 2)
    figures["start_over_floor"] = round(figures["start_ms"] / figures["floor_ms"], 2)
    for name in ("ls", "ls_json", "trigger", "runs_json"):
        figures[f"{name}_over_floor"] = round(figures[f"{name}_ms"] / figures["floor_ms"], 2)
    text = json.dumps(figures, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as out:
            out.write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
