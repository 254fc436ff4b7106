"""Helpers shared by the benchmark scripts in bench/."""
from datetime import datetime, timezone


def millis(iso):
    """Milliseconds since the epoch of an orrery time (2026-11-30T10:00:00.000Z)."""
    return datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=timezone.utc).timestamp() * 1000


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]
