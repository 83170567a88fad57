#!/usr/bin/env bash
# schemathesis.sh: property-based API testing of najdi against its own
# OpenAPI document (/v1/openapi.json).
#
# Installs schemathesis from PyPI into a venv under $NAJDI_CACHE (once),
# builds najdi, starts it on a free loopback port with the default model and
# a fresh data directory, and runs schemathesis against it, bounded by
# SCHEMATHESIS_MAX_EXAMPLES per operation (default 25) and
# SCHEMATHESIS_TIME_LIMIT seconds overall (default 300). Extra arguments go
# to `schemathesis run`. Exits with schemathesis's status.
#
# Every check runs (--checks all). positive_data_acceptance and
# negative_data_rejection run as data_acceptance and
# upload_negative_rejection of scripts/schemathesis_hooks.py: the
# built-in checks, unchanged, except for five API rules no OpenAPI
# document can state (whether uploaded bytes are a readable document;
# async and format parameters that change how the ingest body is read;
# offset + max_results <= 10000; rerank needs a query; retrievers
# "semantic" needs an embedding model), each explained
# there, and a negative case is judged by the headers it was sent with
# (the Authorization --auth adds; headers the operation does not declare
# are ignored, as HTTP servers do). The hooks also map the
# values whose validity depends on the server's state and its operator's
# configuration (existing collections, documents and their fields for
# search, answer, query and document operations, with valid filters;
# existing models and phrase sets, allowed outbound hosts, declared API
# keys) onto valid ones and serve the fake external endpoints.
set -euo pipefail

cd "$(dirname "$0")/.."
CACHE="${NAJDI_CACHE:-$HOME/.cache/najdi}"
VERSION="${SCHEMATHESIS_VERSION:-4.32.5}"
VENV="$CACHE/schemathesis-$VERSION"
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-25}"
TIME_LIMIT="${SCHEMATHESIS_TIME_LIMIT:-300}"
CHECKS="${SCHEMATHESIS_CHECKS:-all}"
# One request may take this long (an ingest into the collection with the
# embedding model waits for its turn and runs the model: on a shared
# 2-core machine at a load average of 30-40 that passed 30 s once).
REQUEST_TIMEOUT="${SCHEMATHESIS_REQUEST_TIMEOUT:-120}"
# --checks all includes max_response_time, 10 s by default. The first
# request that needs a model loads it (the first Czech intent classifier:
# 8.7 s at a load average of 16.6, then 0.07-0.12 s; 10.3 s answered a
# schemathesis run at a load average of 20-29), so on a shared 2-core
# machine the default flags cold starts under load, not slow code. A
# minute still catches a request that hangs or works without bound.
MAX_RESPONSE_TIME="${SCHEMATHESIS_MAX_RESPONSE_TIME:-60}"

if [ ! -x "$VENV/bin/schemathesis" ]; then
	echo "installing schemathesis $VERSION into $VENV" >&2
	python3 -m venv "$VENV"
	"$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION"
fi

GO="${GO:-go}"
mkdir -p bin
"$GO" build -o bin/najdi ./cmd/najdi

# Authentication on, as in production: the document declares HTTP Basic
# on every operation but /health and /v1/openapi.json.
user=schemathesis
pass="st-$RANDOM$RANDOM"
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
port="$(freeport)"
# The fake embedding endpoint and annotation microservice of
# scripts/schemathesis_hooks.py listen here: the one host the server's
# outbound allow-list admits, and the one API key it declares.
fake_port="$(freeport)"
export NAJDI_ST_SECRET="st-key-$RANDOM"
data="$(mktemp -d)"
log="$data.log"
users="$data.users"
printf '%s:%s:user\n' "$user" "$(printf '%s\n' "$pass" | ./bin/najdi hash-password)" >"$users"
# With the default embedding model (make models), so that a collection
# config with every default is valid. The failed-login limit is raised:
# schemathesis checks that wrong credentials get 401, many times over,
# while the limiter (tested in server/overload_e2e_test.go) would answer
# 429 after ten.
./bin/najdi serve --addr "127.0.0.1:$port" --data "$data" --users "$users" --login-failures-per-minute 1000000 \
	--allow-outbound "127.0.0.1:$fake_port" --secret st=NAJDI_ST_SECRET >"$log" 2>&1 &
pid=$!
cleanup() {
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	rm -rf "$data" "$users" "$data.work"
}
trap cleanup EXIT
base="http://127.0.0.1:$port"
for _ in $(seq 1 300); do
	if curl -fsS "$base/health" >/dev/null 2>&1; then break; fi
	if ! kill -0 "$pid" 2>/dev/null; then cat "$log" >&2; exit 1; fi
	sleep 0.1
done

# A keyword-only collection for the search endpoints to find.
curl -fsS -u "$user:$pass" -X PUT -H 'Content-Type: application/json' -d '{"embedding_config": {"model": "none"}}' "$base/v1/collections/c" >/dev/null

# Values whose validity depends on the server's state and configuration
# (existing models and phrase sets, allowed hosts, declared keys) are
# mapped onto valid ones by the hooks; see scripts/schemathesis_hooks.py.
export SCHEMATHESIS_HOOKS=schemathesis_hooks
root="$PWD"
export PYTHONPATH="$root/scripts${PYTHONPATH:+:$PYTHONPATH}"
export NAJDI_ST_BASE="$base" NAJDI_ST_AUTH="$user:$pass" NAJDI_ST_FAKE_PORT="$fake_port" NAJDI_ST_KEY_NAME=st NAJDI_ST_KEY_ENV=NAJDI_ST_SECRET

set +e
# One worker: with several threads, CPython 3.11 (Debian 12's python3)
# sometimes fails hypothesis's ast.parse with "SystemError: AST constructor
# recursion depth mismatch" (python/cpython#106905), an error of the tool
# that aborts an operation's tests.
# schemathesis keeps a cache in its working directory: not the repository.
work="$data.work"
mkdir -p "$work"
cd "$work"
# --max-time bounds the test phases; the outer timeout only stops a run
# that hangs (loading the document, the hooks' fixtures and the stateful
# phase's last cases come on top: at a load average of 40 a run of
# --max-time 360 was cut at 420 s while its stateful phase finished).
timeout --signal=INT "$((TIME_LIMIT + 300))" "$VENV/bin/schemathesis" run "$base/v1/openapi.json" \
	--url "$base" \
	--auth "$user:$pass" \
	--checks "$CHECKS" \
	--exclude-checks negative_data_rejection,positive_data_acceptance \
	--max-examples "$MAX_EXAMPLES" \
	--max-time "$TIME_LIMIT" \
	--workers 1 \
	--request-timeout "$REQUEST_TIMEOUT" \
	--max-response-time "$MAX_RESPONSE_TIME" \
	--generation-database none \
	--no-color \
	"$@"
status=$?
set -e
if [ "$status" -ne 0 ]; then
	echo "schemathesis: status $status (server log: $log)" >&2
fi
exit "$status"
