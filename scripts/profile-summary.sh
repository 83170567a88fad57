#!/bin/sh
# profile-summary.sh BINARY PROFILE_DIR TITLE > out.md
# Writes, for each cpu-<kind>-<shape>.pprof that `najdi-bench querypath
# -profile PROFILE_DIR` wrote, the top functions by cumulative and by flat
# CPU time (go tool pprof -top), as markdown.
set -eu
bin=$1 dir=$2 title=$3
echo "# $title"
echo
echo "Profiles of \`najdi-bench querypath -profile\` (binary \`$(basename "$bin")\`): one CPU profile per series, over every request of the series."
for f in "$dir"/cpu-*.pprof; do
	name=$(basename "$f" .pprof | sed 's/^cpu-//')
	echo
	echo "## $name"
	echo
	echo "Cumulative, request path (focus \`engine\\.\\(\\*Engine\\)\\.Search|server\\.\\(\\*Server\\)\\.search\`, top 30):"
	echo
	echo '```'
	go tool pprof -top -cum -nodecount 30 -focus 'engine\.\(\*Engine\)\.Search|server\.\(\*Server\)\.search' "$bin" "$f" 2>/dev/null | sed -n '/^Showing nodes/,$p' | grep -v 'fasthttp\|runtime\.goexit'
	echo '```'
	echo
	echo "Cumulative, request path without the query's model run (\`-ignore EmbedQueries\`, top 30):"
	echo
	echo '```'
	go tool pprof -top -cum -nodecount 30 -nodefraction 0.001 -ignore 'EmbedQueries' -focus 'engine\.\(\*Engine\)\.Search|server\.\(\*Server\)\.search' "$bin" "$f" 2>/dev/null | sed -n '/^Showing nodes/,$p' | grep -v 'fasthttp\|runtime\.goexit'
	echo '```'
	echo
	echo "Flat, request path (top 20):"
	echo
	echo '```'
	go tool pprof -top -nodecount 20 -focus 'engine\.\(\*Engine\)\.Search|server\.\(\*Server\)\.search' "$bin" "$f" 2>/dev/null | sed -n '/^Showing nodes/,$p'
	echo '```'
done
