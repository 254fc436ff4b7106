#!/usr/bin/env python3
"""End-to-end workflow benchmark (docs/benchmarks.md, "Workflows").

Two workflows of STEPS (100) trivial steps, created in a fresh data directory:
  chain     each step runs `true` and depends on the one before it;
  parallel  the same steps with no dependencies.
Each is timed end to end: the wall clock of `orrery workflow run W --wait
--max-parallel P` (P = 1 for the chain; each of --parallel, default 4 and 16, for
the parallel one), with no daemon running, so that command drives the run itself.

The floor, measured in the same run, interleaved with the workflows: the same
STEPS `true` processes started by a shell, /bin/true exec'd (not the builtin):
  chain     sh -c '/bin/true; /bin/true; …' (one after another);
  parallel  seq STEPS | xargs -P P -n 1 /bin/true.
Per-step overhead = (workflow time - floor time) / STEPS. Every figure is the
median of REPEATS runs (default 5); the ratio is workflow time / floor time.

Also measured, to split the time: a 1-step workflow (the fixed cost of one
`workflow run --wait`: process start, store, run creation, the end); STEPS
sequential `orrery --version` (what exec'ing the binary costs, which every step's
supervisor pays) and `orrery workflow ls` (the same with the store opened and
read); 2 x STEPS files written as a step's supervisor writes its two files
(temporary, fsync, rename, fsync of the directory). After each chain run its journal and step attempts
give where a step's time goes:
  step_started -> attempt reserved     the driver reserving the attempt
  reserved -> attempt finished         the supervisor: forked with its store open,
                                       runs the target, finalizes the attempt
  attempt finished -> step_succeeded   the driver: woken by the supervisor's
                                       exit, reads and settles, commits
  step_succeeded -> next step_started  between steps (the same round)

Usage: bench/workflow_bench.py BUILD/orrery [REPEATS] [--steps N] [--parallel 4,16]
                                [--dir DIR]
"""
import argparse
import json
import os
import platform
import sqlite3
import statistics
import subprocess
import tempfile
import time
from bench_common import millis

TRUE = "/bin/true"


def cpu_model():
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def timed(argv, **kwargs):
    """Seconds of wall clock of one command, which must succeed."""
    start = time.monotonic()
    result = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    elapsed = time.monotonic() - start
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:6])}…: exit {result.returncode}: "
                           f"{result.stderr.strip()[:500]}")
    return elapsed, result.stdout


class Home:
    """A fresh data directory, its workflows and the orrery binary."""

    def __init__(self, binary, tmp, steps):
        self.binary = binary
        self.home = os.path.join(tmp, "home")
        self.tmp = tmp
        self.steps = steps
        self.create("chain", chained=True, count=steps)
        self.create("parallel", chained=False, count=steps)
        self.create("single", chained=False, count=1)

    def orrery(self, *args):
        return timed([self.binary, "--home", self.home, *args])

    def create(self, name, chained, count):
        steps = []
        for i in range(count):
            step = {"id": f"s{i:03d}", "target": {"type": "command", "command": "true"}}
            if chained and i > 0:
                step["depends_on"] = [f"s{i - 1:03d}"]
            steps.append(step)
        path = os.path.join(self.tmp, name + ".json")
        with open(path, "w") as spec:
            json.dump({"name": name, "steps": steps}, spec)
        self.orrery("workflow", "create", path)

    def run(self, name, parallel):
        """The wall clock of one `workflow run --wait` and the run's id."""
        elapsed, out = self.orrery("--json", "workflow", "run", name, "--wait",
                                   "--max-parallel", str(parallel))
        run = json.loads(out)
        if run["status"] != "succeeded":
            raise RuntimeError(f"workflow {name}: run {run['id']} ended {run['status']}")
        return elapsed, run["id"]

    def events(self, run_id):
        _, out = self.orrery("--json", "workflow", "events", run_id)
        return json.loads(out)

    def attempts(self, run_id):
        """{step id: (reserved ms, finished ms)} of the run's first attempts."""
        db = sqlite3.connect(os.path.join(self.home, "orrery.db"), timeout=30)
        try:
            rows = db.execute("SELECT step_id, started_at, finished_at FROM workflow_attempts "
                              "WHERE run_id = ? AND attempt = 1", (run_id,)).fetchall()
        finally:
            db.close()
        return {step: (started, finished) for step, started, finished in rows}


def floor_chain(steps):
    script = "; ".join([TRUE] * steps)
    return timed(["sh", "-c", script])[0]


def floor_parallel(steps, parallel):
    return timed(["sh", "-c", f"seq {steps} | xargs -P {parallel} -n 1 {TRUE}"])[0]


def orrery_execs(binary, steps, *args):
    """Seconds for STEPS sequential `orrery ARGS`."""
    start = time.monotonic()
    for _ in range(steps):
        subprocess.run([binary, *args], capture_output=True, check=True)
    return time.monotonic() - start


def atomic_writes(directory, count):
    """Seconds for COUNT files written as orrery writes a step's files: a
    temporary file, fsync, rename, fsync of the directory (exec/env.cc)."""
    start = time.monotonic()
    for i in range(count):
        path = os.path.join(directory, f"file.{i}")
        temporary = path + ".tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, b"{}")
        os.fsync(fd)
        os.close(fd)
        os.rename(temporary, path)
        dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        os.fsync(dir_fd)
        os.close(dir_fd)
    return time.monotonic() - start


def as_ms(value):
    """An orrery time (text) or a stored time (integer ms) as ms since the epoch."""
    return millis(value) if isinstance(value, str) else float(value)


def chain_breakdown(home, run_id):
    """Per-step gaps (ms lists) of one chain run, from its journal and attempts."""
    events = home.events(run_id)
    attempts = home.attempts(run_id)
    started, succeeded = {}, {}
    for event in events:
        at = millis(event["created_at"])
        if event["event_type"] == "step_started":
            started[event["step_id"]] = at
        elif event["event_type"] == "step_succeeded":
            succeeded[event["step_id"]] = at
    order = sorted(started)
    gaps = {"reserve": [], "supervisor": [], "settle": [], "between": []}
    for i, step in enumerate(order):
        reserved, finished = (as_ms(t) for t in attempts[step])
        gaps["reserve"].append(reserved - started[step])
        gaps["supervisor"].append(finished - reserved)
        gaps["settle"].append(succeeded[step] - finished)
        if i + 1 < len(order):
            gaps["between"].append(started[order[i + 1]] - succeeded[step])
    first = events[0]
    last = events[-1]
    edges = {"created -> first step_started": started[order[0]] - millis(first["created_at"]),
             "last step_succeeded -> " + last["event_type"]:
                 millis(last["created_at"]) - succeeded[order[-1]],
             "created -> " + last["event_type"]:
                 millis(last["created_at"]) - millis(first["created_at"])}
    return gaps, edges


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary")
    parser.add_argument("repeats", nargs="?", type=int, default=5)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--parallel", default="4,16")
    parser.add_argument("--dir", default=None,
                        help="where the fresh data directory is made (default: the system's "
                             "temporary directory); e.g. a tmpfs, to see what fsync costs")
    args = parser.parse_args()
    if not 2 <= args.steps <= 1000 or args.repeats < 1:
        parser.error("--steps must be 2 to 1000 (a spec holds at most 1,000 steps) "
                     "and REPEATS at least 1")
    binary = os.path.abspath(args.binary)
    steps = args.steps
    widths = [int(p) for p in args.parallel.split(",")]

    samples = {}  # name -> list of seconds

    def add(name, seconds):
        samples.setdefault(name, []).append(seconds)

    gaps = {}
    edges = {}
    with tempfile.TemporaryDirectory(prefix="orrery-wfbench-", dir=args.dir) as tmp:
        home = Home(binary, tmp, steps)
        home.run("single", 1)  # warm the page cache and the database file
        for _ in range(args.repeats):
            add("floor chain", floor_chain(steps))
            seconds, run_id = home.run("chain", 1)
            add("chain", seconds)
            run_gaps, run_edges = chain_breakdown(home, run_id)
            for key, values in run_gaps.items():
                gaps.setdefault(key, []).extend(values)
            for key, value in run_edges.items():
                edges.setdefault(key, []).append(value)
            for width in widths:
                add(f"floor parallel {width}", floor_parallel(steps, width))
                add(f"parallel {width}", home.run("parallel", width)[0])
            add("single", home.run("single", 1)[0])
            add("orrery --version", orrery_execs(binary, steps, "--version"))
            add("orrery workflow ls", orrery_execs(binary, steps, "--home", home.home,
                                                   "workflow", "ls"))
            scratch = os.path.join(tmp, "scratch")
            os.makedirs(scratch, exist_ok=True)
            add("atomic writes", atomic_writes(scratch, 2 * steps))

    median = {name: statistics.median(values) for name, values in samples.items()}
    print(f"machine: {os.cpu_count()} cores, {cpu_model()}, {platform.release()}")
    print(f"data directory in {args.dir or tempfile.gettempdir()}")
    print(f"workflows of {steps} steps of `true`; medians of {args.repeats} runs (ms)")
    print()
    print("| workflow | orrery | floor (same run) | ratio | per-step overhead | runs |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    rows = [("chain", "floor chain", "chain, `--max-parallel 1`")]
    rows += [(f"parallel {w}", f"floor parallel {w}",
              f"parallel, `--max-parallel {w}`") for w in widths]
    for name, floor, label in rows:
        ratios = [a / b for a, b in zip(samples[name], samples[floor])]
        overheads = [1000 * (a - b) / steps for a, b in zip(samples[name], samples[floor])]
        runs = ", ".join(f"{1000 * v:.0f}" for v in samples[name])
        print(f"| {label} | {1000 * median[name]:.0f} | {1000 * median[floor]:.1f} | "
              f"{statistics.median(ratios):.1f} | {statistics.median(overheads):.2f} ms | {runs} |")
    print()
    single = 1000 * median["single"]
    marginal = (1000 * median["chain"] - single) / (steps - 1)
    print(f"1-step workflow run --wait: {single:.1f} ms; chain per step beyond the first: "
          f"{marginal:.2f} ms")
    print(f"`orrery --version` exec'd {steps} times: {1000 * median['orrery --version']:.0f} ms "
          f"({1000 * median['orrery --version'] / steps:.2f} ms each)")
    print(f"`orrery --home H workflow ls` (the binary, the store opened, one read) exec'd "
          f"{steps} times: {1000 * median['orrery workflow ls']:.0f} ms "
          f"({1000 * median['orrery workflow ls'] / steps:.2f} ms each)")
    print(f"2 x {steps} files written atomically (temporary, fsync, rename, fsync of the "
          f"directory), as a step's supervisor writes ORRERY_STEPS and ORRERY_OUTPUT: "
          f"{1000 * median['atomic writes']:.0f} ms "
          f"({1000 * median['atomic writes'] / steps:.2f} ms per step)")
    print()
    print(f"chain, per step (medians over {len(gaps['supervisor'])} steps, ms):")
    labels = {"reserve": "step_started -> attempt reserved",
              "supervisor": "attempt reserved -> attempt finished (supervisor)",
              "settle": "attempt finished -> step_succeeded (driver settles)",
              "between": "step_succeeded -> next step_started"}
    for key, label in labels.items():
        values = gaps[key]
        print(f"  {label}: median {statistics.median(values):.1f}, "
              f"mean {statistics.mean(values):.2f}, max {max(values):.0f}")
    for key, values in edges.items():
        print(f"  {key}: median {statistics.median(values):.0f}")


if __name__ == "__main__":
    main()
