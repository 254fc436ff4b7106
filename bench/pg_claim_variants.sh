#!/usr/bin/env bash
# What changes to claim_pending's SQL would buy (docs/benchmarks.md, "Claims on
# PostgreSQL"): pgbench drives variants of the claim statement, 4 clients
# each, on copies of pg_claims_bench's databases, on a throwaway durable
# cluster; 3 interleaved rounds, medians printed.
#
#   bench/pg_claim_variants.sh build/release/bench/pg_claims_bench [ROUNDS]
#
# The variants copy the statement of src/store/sql/sql_pending.cc as it was
# when written (2026-12-01: a materialized CTE picks and locks, the UPDATE
# takes): they are an experiment, not a test of the store.
#   floor100      the floor's claim of 100 (1d's first statement)
#   orrery100     claim_pending's statement, LIMIT 100 (custom plans, as the store)
#   generic100    the same with plan_cache_mode = force_generic_plan
#   lockfirst100  its CTE on runs alone (no loop join: lock, then nothing)
#   lockfirst100-3idx  and runs_created, runs_loop_created, runs_status_lease dropped
#   minimal100-3idx    and only status, claimant, token, lease, times set; RETURNING id
#   orrery1, generic1, lockfirst1: claims of 1 (1,000 per client)
# Rates are statements per second x LIMIT: slots (or claims) per second.
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: bench/pg_claim_variants.sh PG_CLAIMS_BENCH [ROUNDS]" >&2
  exit 2
fi
bench=$1
rounds=${2:-3}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pg_cluster=$root/scripts/pg-cluster
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[[ -x $bindir/pgbench ]] || bindir=$(pg_config --bindir)
work=$(mktemp -d -t orrery-variants.XXXXXX)
cluster=$(mktemp -d -t orrery-variants-pg.XXXXXX)

cleanup() {
  trap '' INT TERM HUP
  if [[ -f $cluster/.pg-cluster ]]; then
    "$pg_cluster" stop "$cluster" || true
  else
    rmdir "$cluster" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

url=$("$pg_cluster" start "$cluster" --durable)
"$bench" --url "$url" --jobs 20000 --only 1c,2 --setup-only >/dev/null
psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$cluster" -U orrery)

columns=$("${psql[@]}" -d pg_claims_bench_pending -Atc "SELECT string_agg(column_name, ', ' \
  ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = 'runs' \
  AND column_name NOT IN ('stdout', 'stderr')")
labels="host=$(hostname),pool=bench"
now=$(date +%s%3N)
set_running="UPDATE runs SET status = 'running', started_at = $now, claimed_by = 'd' || :client_id, \
claim_generation = claim_generation + 1, claim_token = 'g' || (claim_generation + 1) || '-abc', \
host = 'h', cancel_requested = 0, updated_at = $now, lease_expires_at = $now + (SELECT CASE \
WHEN l.lease_ms < 60000 THEN 60000 WHEN l.lease_ms > 86400000 THEN 86400000 ELSE l.lease_ms END \
FROM loops l WHERE l.id = runs.loop_id) WHERE status = 'pending' AND id IN (SELECT id FROM picked)"
join_pick="WITH picked AS MATERIALIZED (SELECT r.id FROM runs r JOIN loops l ON l.id = r.loop_id \
WHERE r.status = 'pending' AND l.status = 'active' AND l.archived = 0 AND \
(l.expires_at IS NULL OR l.expires_at > $now) AND \
(l.machine_json = '[]' OR orrery_labels_within(l.machine_json, '$labels')) \
ORDER BY r.scheduled_for, r.id LIMIT :lim FOR UPDATE OF r SKIP LOCKED)"
runs_pick="WITH picked AS MATERIALIZED (SELECT r.id FROM runs r WHERE r.status = 'pending' \
ORDER BY r.scheduled_for, r.id LIMIT :lim FOR UPDATE OF r SKIP LOCKED)"

script() {  # NAME LIMIT SQL
  printf '\\set lim %s\n%s;\n' "$2" "$3" >"$work/$1.sql"
}
script floor100 100 "UPDATE jobs SET status = 'running', locked_by = 'c' || :client_id, \
locked_at = now() WHERE id IN (SELECT id FROM jobs WHERE status = 'pending' ORDER BY id \
LIMIT :lim FOR UPDATE SKIP LOCKED) RETURNING id, payload"
script orrery100 100 "$join_pick $set_running RETURNING $columns"
script lockfirst100 100 "$runs_pick $set_running RETURNING $columns"
script minimal100 100 "$runs_pick UPDATE runs SET status = 'running', started_at = $now, \
claimed_by = 'd' || :client_id, claim_token = 'abc', lease_expires_at = $now + 600000, \
updated_at = $now WHERE status = 'pending' AND id IN (SELECT id FROM picked) RETURNING id"
script orrery1 1 "$join_pick $set_running RETURNING $columns"
script lockfirst1 1 "$runs_pick $set_running RETURNING $columns"
drop3="DROP INDEX runs_created; DROP INDEX runs_loop_created; DROP INDEX runs_status_lease"

# NAME SCRIPT TEMPLATE TRANSACTIONS-PER-CLIENT LIMIT [PGOPTIONS] [SQL BEFORE]
variant() {
  local name=$1 file=$2 template=$3 transactions=$4 limit=$5 options=${6:-} before=${7:-}
  "${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS variant" \
    -c "CREATE DATABASE variant TEMPLATE $template" 2>/dev/null
  [[ -z $before ]] || "${psql[@]}" -d variant -c "$before"
  "${psql[@]}" -d postgres -c "CHECKPOINT"
  local tps
  tps=$(PGOPTIONS=$options "$bindir/pgbench" -n -h "$cluster" -U orrery -c 4 -j 4 \
    -t "$transactions" -M prepared -f "$work/$file.sql" variant 2>&1 | awk '/^tps/ {print $3}')
  echo "$name $(awk -v t="$tps" -v l="$limit" 'BEGIN {printf "%.0f", t * l}')" >>"$work/rates"
  echo "  $name: $(awk -v t="$tps" -v l="$limit" 'BEGIN {printf "%.0f", t * l}')/s" >&2
}

generic="-c plan_cache_mode=force_generic_plan"
for ((round = 1; round <= rounds; round++)); do
  echo "round $round of $rounds" >&2
  variant floor100 floor100 pg_claims_bench_jobs 50 100
  variant orrery100 orrery100 pg_claims_bench_pending 50 100
  variant generic100 orrery100 pg_claims_bench_pending 50 100 "$generic"
  variant lockfirst100 lockfirst100 pg_claims_bench_pending 50 100
  variant lockfirst100-3idx lockfirst100 pg_claims_bench_pending 50 100 "" "$drop3"
  variant minimal100-3idx minimal100 pg_claims_bench_pending 50 100 "" "$drop3"
  variant orrery1 orrery1 pg_claims_bench_pending 1000 1
  variant generic1 orrery1 pg_claims_bench_pending 1000 1 "$generic"
  variant lockfirst1 lockfirst1 pg_claims_bench_pending 1000 1
done

echo "| variant | per second, median of $rounds (the rounds' figures, sorted) |"
echo "| --- | ---: |"
for name in floor100 orrery100 generic100 lockfirst100 lockfirst100-3idx minimal100-3idx \
  orrery1 generic1 lockfirst1; do
  awk -v n="$name" '$1 == n {print $2}' "$work/rates" | sort -n | awk -v n="$name" '
    {v[NR] = $1; all = all (NR > 1 ? ", " : "") $1}
    END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
         printf "| %s | %.0f (%s) |\n", n, m, all}'
done
