#!/usr/bin/env bash
# claims_pgbench.sh compares BenchmarkClaimMintLink on PostgreSQL with the
# floor the database sets: pgbench, 16 clients, each transaction the one
# conditional UPDATE ... RETURNING that hands out a link, committed.
#
# Each run loads a fresh copy of the bot's schema (every migration in
# migrations/postgres, so mint_links has all its indexes, checks and
# foreign keys) into a schema of its own, with one drop of links and as
# many members, runs pgbench on it, then runs the Go benchmark right after
# with the same number of claims, and prints both rates and their ratio.
# docs/benchmarks.md has the figures.
#
# Usage, from anywhere in the module:
#
#	TEST_DATABASE_URL='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' \
#	  storage/claims_pgbench.sh
#
# Environment: TEST_DATABASE_URL (required), CLAIMS per run, for pgbench
# and the benchmark both (default 20000), RUNS (default 3). Needs psql,
# pgbench and go on PATH.
set -euo pipefail

url=${TEST_DATABASE_URL:?set TEST_DATABASE_URL to a PostgreSQL URL}
claims=${CLAIMS:-20000}
runs=${RUNS:-3}
clients=16 # benchClaimers in claims_bench_test.go
threads=2
per_client=$(((claims + clients - 1) / clients))
members=$((clients * (per_client + 1)))

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
schema=claims_pgbench_$$
trap 'inschema psql -X -q "$url" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

# Every client takes its own members, one per transaction: client c takes
# members c+1, c+1+16, c+1+32, ... (ids count from 1 in a fresh schema).
cat >"$tmp/claim.sql" <<EOF
\set uid 1 + :client_id + $clients * :n
\set n :n + 1
UPDATE mint_links
SET state = 'handed_out', user_id = :uid, wallet = NULL, claimed_at = now(), updated_at = now()
WHERE id = (
	SELECT id FROM mint_links
	WHERE drop_id = 1 AND state = 'available'
	ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
AND state = 'available'
RETURNING id, drop_id, qr_hash, state, user_id, wallet, transaction_id, claimed_at, updated_at;
EOF

# inschema runs psql or pgbench in the schema (not exported: the Go benchmark
# makes schemas of its own).
inschema() { PGOPTIONS="-c search_path=$schema -c client_min_messages=warning" "$@"; }

# load creates the schema and one drop with $members links and members.
# No ANALYZE, as in the Go benchmark's fresh schema; autovacuum is off for
# the copy so that an analyze in mid-run cannot change pgbench's plan
# (with statistics saying every link is available, PostgreSQL scans the
# primary key instead of mint_links_available, and each claim then reads
# past every link taken before it).
load() {
	{
		echo "SET client_min_messages = warning; DROP SCHEMA IF EXISTS $schema CASCADE; CREATE SCHEMA $schema;"
		cat "$root"/migrations/postgres/*.sql
		cat <<EOF
ALTER TABLE mint_links SET (autovacuum_enabled = false);
ALTER TABLE users SET (autovacuum_enabled = false);
INSERT INTO tenants (platform, external_id) VALUES ('discord', 'bench');
INSERT INTO drops (tenant_id, event_id, edit_code, delivery) VALUES (1, 1, '\x00', 'link');
INSERT INTO users (platform, external_id)
	SELECT 'discord', 'bench-' || i FROM generate_series(1, $members) i;
INSERT INTO mint_links (drop_id, qr_hash)
	SELECT 1, 'bench-' || i FROM generate_series(1, $members) i;
EOF
	} | inschema psql -X -q -v ON_ERROR_STOP=1 "$url" >/dev/null
}

# percentiles prints the 50th and 99th percentiles, in ms, of the
# latencies (µs, third field) in pgbench's per-transaction logs.
percentiles() {
	cat "$@" | awk '{print $3}' | sort -n | awk '
		{ v[NR] = $1 }
		END {
			p50 = v[int(NR * 0.50 + 0.999999)]; p99 = v[int(NR * 0.99 + 0.999999)]
			printf "%.1f %.1f\n", p50 / 1000, p99 / 1000
		}'
}

# The benchmark is built once, so that no compiler runs beside a
# measurement.
(cd "$root" && go test -c -o "$tmp/storage.test" ./storage/)

printf '%-4s %10s %7s %7s %10s %7s %7s %6s\n' run 'pgbench/s' p50-ms p99-ms 'claims/s' p50-ms p99-ms ratio
for run in $(seq "$runs"); do
	load
	rm -f "$tmp"/log*
	out=$(cd "$tmp" && inschema pgbench -n -M prepared -c "$clients" -j "$threads" -t "$per_client" -D n=0 \
		-l --log-prefix=log -f claim.sql "$url" 2>&1) || { echo "$out" >&2; exit 1; }
	tps=$(awk '/^tps = / {print $3}' <<<"$out")
	done_=$(awk -F'[:/ ]+' '/transactions actually processed/ {print $6}' <<<"$out")
	handed=$(inschema psql -X -q -t -A "$url" -c "SELECT count(*) FROM mint_links WHERE state = 'handed_out'")
	if [ "$handed" != "$done_" ]; then
		echo "pgbench: $done_ transactions handed out $handed links, want one each" >&2
		exit 1
	fi
	read -r pg50 pg99 < <(percentiles "$tmp"/log*) || { echo "pgbench: no latencies logged" >&2; exit 1; }
	inschema psql -X -q "$url" -c "DROP SCHEMA $schema CASCADE" >/dev/null

	bench=$(cd "$root/storage" && "$tmp/storage.test" -test.run '^$' -test.bench 'ClaimMintLink/postgres' \
		-test.benchtime="$((per_client * clients))x" 2>&1) || { echo "$bench" >&2; exit 1; }
	read -r rate p50 p99 < <(awk '/^BenchmarkClaimMintLink\/postgres/ {
		for (i = 1; i < NF; i++) {
			if ($(i + 1) == "claims/s") r = $i
			if ($(i + 1) == "p50-ms") a = $i
			if ($(i + 1) == "p99-ms") b = $i
		}
		print r, a, b }' <<<"$bench") || { echo "$bench" >&2; exit 1; }
	printf '%-4s %10.0f %7s %7s %10.0f %7.1f %7.1f %5.1f%%\n' "$run" "$tps" "$pg50" "$pg99" \
		"$rate" "$p50" "$p99" "$(awk -v a="$rate" -v b="$tps" 'BEGIN {print 100 * a / b}')"
done
