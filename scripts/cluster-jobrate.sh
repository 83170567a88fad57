#!/usr/bin/env bash
# cluster-jobrate.sh measures how fast an asynchronous ingest job stores
# documents on a cluster: a real `najdi serve --cluster-url URL` (the binary
# BIN, default bin/najdi) accepts an async CSV upload of N records without
# ids (a text column and an enum-like column, keyword-only collection, as
# TestServeJobsAcrossReplicas), and the script polls the job until it is
# done, then prints records, seconds and documents per second.
#
# Usage: scripts/cluster-jobrate.sh URL [N]   (a node from make cluster-up)
set -euo pipefail
url=${1:?cluster URL}
n=${2:-300}
bin=${BIN:-bin/najdi}
port=${PORT:-18390}
prefix="najdi-jobrate-$$-"
data=$(mktemp -d)
csv=$(mktemp)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; curl -s -X DELETE "$url/$prefix*" >/dev/null || true; rm -rf "$data" "$csv"' EXIT
echo "text,group" >"$csv"
for ((i = 0; i < n; i++)); do echo "record $i about topic$((i % 17)) and word$((i % 101)),g$((i % 5))"; done >>"$csv"
"$bin" serve --addr "127.0.0.1:$port" --data "$data" --cluster-url "$url" --cluster-prefix "$prefix" >"$data/log" 2>&1 &
pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 600); do curl -sf "$base/health" >/dev/null && break; sleep 0.1; done
curl -sf -X PUT "$base/v1/collections/jobs" -H 'Content-Type: application/json' -d '{"embedding_config":{"model":"none"}}' >/dev/null
start=$(date +%s.%N)
job=$(curl -sf -X POST "$base/v1/collections/jobs/documents?async=true" -H 'Content-Type: text/csv' --data-binary @"$csv" | sed 's/.*"job_id":"\([^"]*\)".*/\1/')
while :; do
	st=$(curl -sf "$base/v1/collections/jobs/jobs/$job")
	case "$st" in *'"status":"running"'* | *'"status":"queued"'*) sleep 0.2 ;; *) break ;; esac
done
end=$(date +%s.%N)
echo "$st" | grep -q '"status":"done"' || { echo "job did not finish: $st" >&2; exit 1; }
awk -v n="$n" -v s="$start" -v e="$end" 'BEGIN { printf "%d records in %.1f s: %.1f documents/s\n", n, e - s, n / (e - s) }'
