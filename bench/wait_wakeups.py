#!/usr/bin/env python3
"""Wake-ups of a process waiting on a workflow run (docs/benchmarks.md,
"Waiting on a run"): the voluntary context switches per second of
`orrery workflow run W --wait` (which drives the run) and of `orrery workflow
events RUN --follow` (which follows it), while the run's one step sleeps.

Usage: wait_wakeups.py ORRERY [--seconds N] [--runs R]
Prints, for each waiter, the median over R runs of its wake-ups per second
measured over N seconds after a 2 s start.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time


def switches(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("voluntary_ctxt_switches:"):
                return int(line.split()[1])
    raise RuntimeError("no voluntary_ctxt_switches")


def sample(pid, seconds):
    time.sleep(2)  # the start: the store opened, the step started
    before = switches(pid)
    time.sleep(seconds)
    return (switches(pid) - before) / seconds


def one_run(orrery, seconds):
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, ORRERY_HOME=home)
        env.pop("ORRERY_DB", None)
        spec = os.path.join(home, "wait.json")
        with open(spec, "w") as f:
            json.dump({"name": "wait", "steps": [{"id": "long", "target": {
                "type": "command", "command": "sleep", "args": [str(seconds + 10)]}}]}, f)
        subprocess.run([orrery, "workflow", "create", spec], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        driver = subprocess.Popen([orrery, "workflow", "run", "wait", "--wait"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
        runs = json.loads(subprocess.run([orrery, "--json", "workflow", "runs"], env=env,
                                         check=True, capture_output=True).stdout)
        run_id = (runs["runs"] if isinstance(runs, dict) else runs)[0]["id"]
        follower = subprocess.Popen([orrery, "workflow", "events", run_id, "--follow"], env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            driving = sample(driver.pid, seconds)
            following = sample(follower.pid, seconds - 2 if seconds > 4 else seconds)
        finally:
            subprocess.run([orrery, "workflow", "cancel", run_id], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for process in (driver, follower):
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
        return driving, following


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("orrery")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results = [one_run(args.orrery, args.seconds) for _ in range(args.runs)]
    print(f"workflow run --wait (driving):      "
          f"{statistics.median(r[0] for r in results):.1f} wake-ups/s")
    print(f"workflow events --follow (following): "
          f"{statistics.median(r[1] for r in results):.1f} wake-ups/s")


if __name__ == "__main__":
    main()
