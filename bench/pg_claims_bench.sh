#!/usr/bin/env bash
# Runs bench/pg_claims_bench.cc against a throwaway durable PostgreSQL cluster
# (docs/benchmarks.md, "Claims on PostgreSQL"):
#
#   bench/pg_claims_bench.sh BINARY [--statements] [BENCH OPTIONS...]
#
# starts a cluster with scripts/pg-cluster start DIR --durable (fsync,
# synchronous_commit and full_page_writes as a default server has them) in a
# new temporary directory, runs BINARY --url URL [BENCH OPTIONS...], and stops
# the cluster and removes the directory whatever happens (success, failure,
# Ctrl-C, SIGTERM). --statements also loads pg_stat_statements (a restart of
# the cluster) and passes --statements on, so that every measurement prints
# the statements it ran: for finding where the time goes, not for the figures.
# Exits with the bench's status.
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: bench/pg_claims_bench.sh BINARY [--statements] [BENCH OPTIONS...]" >&2
  exit 2
fi
binary=$1
shift
statements=no
for arg in "$@"; do
  [[ $arg == --statements ]] && statements=yes
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pg_cluster=$root/scripts/pg-cluster
cluster_dir=$(mktemp -d -t orrery-pgbench.XXXXXX)

stop_cluster() {
  trap '' INT TERM HUP
  if [[ -f $cluster_dir/.pg-cluster ]]; then
    "$pg_cluster" stop "$cluster_dir" || true
  else
    rmdir "$cluster_dir" 2>/dev/null || true
  fi
}
trap stop_cluster EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

url=$("$pg_cluster" start "$cluster_dir" --durable)

# pg_stat_statements must be preloaded: add it and restart the server as the
# user that owns its data directory (scripts/pg-cluster made it).
if [[ $statements == yes ]]; then
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  [[ -x $bindir/pg_ctl ]] || bindir=$(pg_config --bindir)
  echo "shared_preload_libraries = 'pg_stat_statements'" >>"$cluster_dir/data/postgresql.conf"
  owner=$(stat -c %U "$cluster_dir/data")
  restart=("$bindir/pg_ctl" restart -D "$cluster_dir/data" -l "$cluster_dir/server.log" -w -s -m fast)
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u "$owner" -- "${restart[@]}" >/dev/null
  else
    "${restart[@]}" >/dev/null
  fi
fi

"$binary" --url "$url" "$@"
