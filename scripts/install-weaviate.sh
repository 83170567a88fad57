#!/usr/bin/env bash
# install-weaviate.sh builds the Weaviate server from the Go module proxy for
# the peer benchmark (bench/peers, `make bench-peers`) and prints the path of
# the binary as its last line. Nothing is downloaded outside the Go proxy:
# `go install github.com/weaviate/weaviate/cmd/weaviate-server@VERSION` with
# GOBIN in the cache. The build takes several minutes and ~170 MB; it runs
# with nice and is skipped when the binary of that version is already cached.
#
# Usage: scripts/install-weaviate.sh
#
# Environment:
#   NAJDI_CACHE        cache root (default $HOME/.cache/najdi); the binary is
#                      $NAJDI_CACHE/weaviate/VERSION/weaviate-server
#   WEAVIATE_VERSION   module version (default below)
set -euo pipefail

VERSION="${WEAVIATE_VERSION:-v1.35.2}"
CACHE="${NAJDI_CACHE:-$HOME/.cache/najdi}"
DIR="$CACHE/weaviate/$VERSION"
BIN="$DIR/weaviate-server"
GO="${GO:-go}"

if [[ -x "$BIN" && -f "$DIR/STAMP" && "$(cat "$DIR/STAMP")" == "$VERSION" ]]; then
	echo "$BIN"
	exit 0
fi
command -v "$GO" >/dev/null 2>&1 || { echo "install-weaviate: the go command is needed" >&2; exit 1; }
mkdir -p "$DIR"
echo "install-weaviate: building weaviate-server $VERSION from the Go module proxy (minutes)" >&2
# GOFLAGS=-mod=mod: the module's own go.mod decides its dependencies.
if ! GOBIN="$DIR" GOFLAGS=-mod=mod CGO_ENABLED=0 nice -n 10 "$GO" install \
	"github.com/weaviate/weaviate/cmd/weaviate-server@$VERSION" >&2; then
	echo "install-weaviate: go install of weaviate-server $VERSION failed" >&2
	exit 1
fi
[[ -x "$BIN" ]] || { echo "install-weaviate: $BIN missing after go install" >&2; exit 1; }
echo "$VERSION" >"$DIR/STAMP"
echo "$BIN"
