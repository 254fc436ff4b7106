#!/usr/bin/env python3
"""End-to-end benchmarks of `orrery daemon` (docs/benchmarks.md, "Daemon").

Each figure is measured beside a baseline in the same run and reported as a ratio;
each is the median of REPEAT runs (default 3), every run in a fresh data directory.

  dispatch latency  1,000 active loops (every 60 s, slots spread evenly: ~17 due per
                    second); each target is `date +%s%N`, exec'd directly by the
                    supervisor: latency = the nanosecond it prints - the slot; split
                    at the instant the daemon logs the supervisor started.
                    Baseline: the same `date` spawned by Python's subprocess, latency =
                    the time it prints - the instant before the spawn.
  sustained runs    LOOPS loops of `true` every second, `--overlap allow` (more than
                    the target of 20,000 runs/min is offered); runs recorded succeeded
                    per minute over the window, counted in the database.
                    Baseline: `true` fork+exec'd by Python one after another.
  idle daemon       100 loops, none due: the daemon's RSS and CPU over the window,
                    context switches; the RSS of its fork server and prepared
                    supervisor, and the PSS of all three. Baseline: the peak RSS of
                    `orrery status` on the same data directory (the binary with the
                    store open).
  100,000 loops     100,000 loops (1 % due at start, the rest spread over the next
                    hour): the daemon's peak RSS (VmHWM) after the window.
                    Baseline: the peak RSS of `orrery status` on the same database.

Loops beyond the first are copied into the database with sqlite3 (one `add`, then
an INSERT … SELECT with new ids, names and next slots): thousands of `orrery add`
processes would measure `add`, not the daemon.

Usage: bench/daemon_bench.py BUILD/orrery [--quick] [--repeat N] [--out FILE]
  --quick   short windows (15-20 s instead of 60 s), for a trial run.
"""
import argparse
import json
import os
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from bench_common import millis, percentile

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# "TIME run ID of loop NAME started (slot …" in the daemon's log.
STARTED = re.compile(r"^(\S+) run (\w+) of loop .* started \(slot ")


def now_ms():
    return int(time.time() * 1000)


class Home:
    """A fresh data directory and the orrery binary."""

    def __init__(self, binary, tmp):
        self.binary = binary
        self.tmp = tmp
        self.home = os.path.join(tmp, "home")
        self.daemon = None

    def orrery(self, *args):
        result = subprocess.run([self.binary, "--home", self.home, *args],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"orrery {' '.join(args)}: {result.stderr.strip()}")
        return result.stdout

    def add(self, name, *args):
        return json.loads(self.orrery("--json", "add", name, *args))

    # `count` copies of loop `loop_id` (names PREFIX-N, N from 1); copy N's
    # next slot is first_ms + N * step_ms; ids end in the hex of id_base + N.
    def copy_loop(self, loop_id, count, first_ms, step_ms, prefix="bulk", id_base=0):
        db = sqlite3.connect(os.path.join(self.home, "orrery.db"), timeout=30)
        columns = [row[1] for row in db.execute("PRAGMA table_info(loops)")]
        chosen = []
        for column in columns:
            if column == "id":
                chosen.append(f"printf('%s%08x', substr(id, 1, 24), {id_base} + n.i)")
            elif column == "name":
                chosen.append(f"'{prefix}-' || n.i")
            elif column == "next_run_at":
                chosen.append(f"{first_ms} + n.i * {step_ms}")
            else:
                chosen.append(column)
        db.execute(
            f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {count}) "
            f"INSERT INTO loops ({', '.join(columns)}) SELECT {', '.join(chosen)} "
            f"FROM loops, n WHERE loops.id = ?", (loop_id,))
        db.commit()
        db.close()

    def start_daemon(self, *args):
        log = open(os.path.join(self.tmp, "daemon.log"), "ab")
        self.daemon = subprocess.Popen([self.binary, "--home", self.home, "daemon", *args],
                                       stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.daemon.poll() is not None:
                raise RuntimeError(f"the daemon exited {self.daemon.returncode}")
            try:
                state = json.loads(self.orrery("--json", "status"))
                if state["daemon"].get("held") and state["daemon"].get("pid") == self.daemon.pid:
                    return self.daemon.pid
            except (RuntimeError, ValueError, KeyError):
                pass
            time.sleep(0.05)
        raise RuntimeError("the daemon did not take its lease within 60 s")

    def stop_daemon(self):
        self.daemon.send_signal(signal.SIGTERM)
        self.daemon.wait(timeout=60)

    def query(self, sql, *params):
        db = sqlite3.connect(f"file:{os.path.join(self.home, 'orrery.db')}?mode=ro", uri=True,
                             timeout=30)
        rows = db.execute(sql, params).fetchall()
        db.close()
        return rows


def proc_status(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def descendants(pid):
    """Every process below pid (the fork server and its prepared supervisor)."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as children:
            for child in children.read().split():
                found.append(int(child))
                found += descendants(int(child))
    return found


def pss_kib(pid):
    """Proportional set size: shared pages divided among the processes sharing them."""
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        for line in rollup:
            if line.startswith("Pss:"):
                return int(line.split()[1])
    return 0


def context_switches(pid):
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/status") as status:
            for line in status:
                if "ctxt_switches" in line:
                    total += int(line.split()[1])
    return total


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def peak_rss_kib(args):
    """The peak RSS of a command, from wait4."""
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss


def wait_quiet(home, limit=120):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if not home.query("SELECT 1 FROM runs WHERE status = 'running' LIMIT 1"):
            return
        time.sleep(0.2)


# ---------------------------------------------------------------------------

def dispatch_latency(binary, window):
    with tempfile.TemporaryDirectory(prefix="orrery-bench-") as tmp:
        home = Home(binary, tmp)
        # The target is `date +%s%N`, exec'd directly by the supervisor: it
        # prints the nanosecond it started (its output is the run's stdout).
        first = home.add("bulk-0", "--every", "60s", "--", "/bin/date", "+%s%N")
        start = now_ms() + 5000
        # 1,000 loops, slots 60 ms apart: each loop due once a minute.
        home.copy_loop(first["id"], 999, start, 60)
        db = sqlite3.connect(os.path.join(home.home, "orrery.db"))
        db.execute("UPDATE loops SET next_run_at = ? WHERE id = ?", (start, first["id"]))
        db.commit()
        db.close()
        pid = home.start_daemon()
        cpu_before = cpu_seconds(pid)
        time.sleep(max(0, (start - now_ms()) / 1000) + window)
        cpu = cpu_seconds(pid) - cpu_before
        home.stop_daemon()
        wait_quiet(home)
        # The daemon logs the instant it started each run's supervisor.
        spawned = {}
        with open(os.path.join(tmp, "daemon.log")) as log:
            for line in log:
                found = STARTED.match(line)
                if found:
                    spawned[found.group(2)] = millis(found.group(1))
        latencies, to_spawn, spawn_to_exec = [], [], []
        for run_id, slot, stdout in home.query(
                "SELECT id, scheduled_for, stdout FROM runs WHERE status = 'succeeded'"):
            executed = int(stdout.strip()) / 1e6
            latencies.append(executed - slot)
            if run_id in spawned:
                to_spawn.append(spawned[run_id] - slot)
                spawn_to_exec.append(executed - spawned[run_id])
        # Baseline: the same command spawned by Python.
        baseline = []
        for _ in range(200):
            before = time.time_ns()
            out = subprocess.run(["/bin/date", "+%s%N"], capture_output=True, text=True).stdout
            baseline.append((int(out) - before) / 1e6)
    return {
        "runs": len(latencies),
        "p50": statistics.median(latencies),
        "p99": percentile(latencies, 0.99),
        "spawn_p50": statistics.median(to_spawn) if to_spawn else float("nan"),
        "exec_p50": statistics.median(spawn_to_exec) if spawn_to_exec else float("nan"),
        "base_p50": statistics.median(baseline),
        "base_p99": percentile(baseline, 0.99),
        "daemon_cpu": cpu / window,
    }


def sustained_runs(binary, window, loops):
    with tempfile.TemporaryDirectory(prefix="orrery-bench-") as tmp:
        home = Home(binary, tmp)
        first = home.add("bulk-0", "--every", "1s", "--overlap", "allow", "--", "true")
        start = now_ms() + 5000
        home.copy_loop(first["id"], loops - 1, start, 1000 // loops or 1)
        pid = home.start_daemon()
        warmup = 5
        time.sleep(max(0, (start - now_ms()) / 1000) + warmup)
        begin = now_ms()
        cpu_before = cpu_seconds(pid)
        time.sleep(window)
        end = now_ms()
        cpu = cpu_seconds(pid) - cpu_before
        home.stop_daemon()
        done = home.query(
            "SELECT count(*) FROM runs WHERE status = 'succeeded' AND finished_at BETWEEN ? AND ?",
            begin, end)[0][0]
        other = home.query(
            "SELECT status, count(*) FROM runs WHERE created_at BETWEEN ? AND ? "
            "AND status != 'succeeded' GROUP BY status", begin, end)
        wait_quiet(home)
        # Baseline: `true` fork+exec'd one after another for 10 s.
        count, base_begin = 0, time.monotonic()
        while time.monotonic() - base_begin < 10:
            subprocess.run(["true"])
            count += 1
        base_rate = count / (time.monotonic() - base_begin) * 60
    return {
        "per_min": done / ((end - begin) / 60000),
        "offered_per_min": loops * 60,
        "base_per_min": base_rate,
        "other": dict(other),
        "daemon_cpu": cpu / window,
    }


def idle(binary, window):
    with tempfile.TemporaryDirectory(prefix="orrery-bench-") as tmp:
        home = Home(binary, tmp)
        first = home.add("bulk-0", "--every", "1h", "--", "true")
        home.copy_loop(first["id"], 99, now_ms() + 3_600_000, 1000)
        pid = home.start_daemon()
        time.sleep(1)
        cpu_before, switches_before = cpu_seconds(pid), context_switches(pid)
        time.sleep(window)
        cpu = cpu_seconds(pid) - cpu_before
        switches = context_switches(pid) - switches_before
        rss = proc_status(pid, "VmRSS")
        hwm = proc_status(pid, "VmHWM")
        helpers = descendants(pid)
        helpers_rss = sum(proc_status(helper, "VmRSS") for helper in helpers)
        pss = pss_kib(pid) + sum(pss_kib(helper) for helper in helpers)
        home.stop_daemon()
        base = peak_rss_kib([binary, "--home", home.home, "status"])
    return {"rss": rss / 1024, "hwm": hwm / 1024, "cpu": cpu / window, "switches": switches,
            "base_rss": base / 1024, "helpers": len(helpers), "helpers_rss": helpers_rss / 1024,
            "pss_all": pss / 1024}


def many_loops(binary, window, count=100_000):
    with tempfile.TemporaryDirectory(prefix="orrery-bench-") as tmp:
        home = Home(binary, tmp)
        first = home.add("bulk-0", "--every", "1h", "--", "true")
        now = now_ms()
        due = count // 100
        home.copy_loop(first["id"], due - 1, now - 1000, 0)  # 1 % due now
        # The rest spread over the hour after the window.
        home.copy_loop(first["id"], count - due, now + 600_000, 36, "later", 0x10000000)
        db = sqlite3.connect(os.path.join(home.home, "orrery.db"))
        db.execute("UPDATE loops SET next_run_at = ? WHERE id = ?", (now - 1000, first["id"]))
        db.commit()
        total = db.execute("SELECT count(*) FROM loops").fetchone()[0]
        db.close()
        pid = home.start_daemon()
        time.sleep(window)
        rss = proc_status(pid, "VmRSS")
        hwm = proc_status(pid, "VmHWM")
        home.stop_daemon()
        ran = home.query("SELECT count(*) FROM runs")[0][0]
        wait_quiet(home)
        base = peak_rss_kib([binary, "--home", home.home, "status"])
    return {"loops": total, "rss": rss / 1024, "hwm": hwm / 1024, "base_rss": base / 1024,
            "runs": ran}


def median_of(results, key):
    return statistics.median(r[key] for r in results)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--loops", type=int, default=500, help="loops for sustained runs")
    parser.add_argument("--out")
    parser.add_argument("--only", choices=["latency", "sustained", "idle", "many"])
    options = parser.parse_args()
    binary = os.path.abspath(options.binary)
    window = 20 if options.quick else 60
    rows = []

    def measure(name, function, *args):
        if options.only and options.only != name:
            return None
        results = []
        for i in range(options.repeat):
            result = function(binary, *args)
            print(f"{name} #{i + 1}: {result}", file=sys.stderr, flush=True)
            results.append(result)
        return results

    latency = measure("latency", dispatch_latency, window)
    if latency:
        p50, p99 = median_of(latency, "p50"), median_of(latency, "p99")
        b50, b99 = median_of(latency, "base_p50"), median_of(latency, "base_p99")
        rows.append(("dispatch latency p50, 1,000 loops (slot → target start)", f"{p50:.2f} ms",
                     f"{b50:.2f} ms (`date` spawned by Python)", f"{p50 / b50:.2f}", "< 5 ms"))
        rows.append(("… of which slot → supervisor started (p50, daemon log)",
                     f"{median_of(latency, 'spawn_p50'):.2f} ms", "", "", ""))
        rows.append(("… of which supervisor started → target exec (p50)",
                     f"{median_of(latency, 'exec_p50'):.2f} ms", "", "", ""))
        rows.append(("dispatch latency p99, 1,000 loops", f"{p99:.2f} ms", f"{b99:.2f} ms",
                     f"{p99 / b99:.2f}", "< 20 ms"))
    sustained = measure("sustained", sustained_runs, window, options.loops)
    if sustained:
        rate, base = median_of(sustained, "per_min"), median_of(sustained, "base_per_min")
        rows.append((f"sustained `true` runs/min ({options.loops} loops every 1 s, "
                     f"{options.loops * 60:,} offered)", f"{rate:,.0f}",
                     f"{base:,.0f} (`true` fork+exec'd by Python, sequential)",
                     f"{rate / base:.2f}", "≥ 20,000"))
    quiet = measure("idle", idle, 15 if options.quick else 60)
    if quiet:
        rss, base = median_of(quiet, "rss"), median_of(quiet, "base_rss")
        rows.append(("idle daemon RSS, 100 loops", f"{rss:.1f} MiB",
                     f"{base:.1f} MiB (`orrery status`, peak)", f"{rss / base:.2f}", "< 8 MiB"))
        rows.append(("… its fork server and prepared supervisor, RSS (2 processes)",
                     f"{median_of(quiet, 'helpers_rss'):.1f} MiB", "", "", ""))
        rows.append(("… the three processes' PSS (shared pages counted once)",
                     f"{median_of(quiet, 'pss_all'):.1f} MiB", "", "", ""))
        rows.append(("idle daemon CPU", f"{100 * median_of(quiet, 'cpu'):.3f} %", "—", "—",
                     "≈ 0"))
        rows.append(("idle daemon context switches per minute",
                     f"{median_of(quiet, 'switches') * 60 / (15 if options.quick else 60):.0f}",
                     "—", "—", "heartbeats only"))
    many = measure("many", many_loops, 20)
    if many:
        hwm, base = median_of(many, "hwm"), median_of(many, "base_rss")
        rows.append(("daemon peak RSS, 100,000 loops (1 % due at start)", f"{hwm:.1f} MiB",
                     f"{base:.1f} MiB (`orrery status`, peak)", f"{hwm / base:.2f}",
                     "< 64 MiB"))
    table = ["| what | orrery daemon | baseline | ratio | target |",
             "| --- | ---: | --- | ---: | --- |"]
    table += [f"| {' | '.join(row)} |" for row in rows]
    text = "\n".join(table) + "\n"
    print(text)
    if options.out:
        with open(options.out, "w") as out:
            out.write(text)


if __name__ == "__main__":
    main()
