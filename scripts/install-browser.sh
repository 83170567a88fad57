#!/usr/bin/env bash
# install-browser.sh: what the console's browser tests need (tests/browser).
#
# - Debian's chromium and a CJK font (apt-get), when missing. The
#   tests drive it with executablePath /usr/bin/chromium: Playwright's own
#   browser downloads (`npx playwright install`) are never used.
# - playwright-core, pinned, from the npm registry into
#   $NAJDI_CACHE/node/playwright-core-$VERSION (once; later runs find it).
#
# Idempotent. Prints the node_modules directory to use as NODE_PATH.
set -euo pipefail

CACHE="${NAJDI_CACHE:-$HOME/.cache/najdi}"
VERSION="${PLAYWRIGHT_CORE_VERSION:-1.65.1}"
DIR="$CACHE/node/playwright-core-$VERSION"

# A CJK font (1.6 MB), so that the screenshots show the Chinese names of
# the test data as characters, not boxes.
missing=""
[ -x /usr/bin/chromium ] || missing="chromium"
dpkg -s fonts-wqy-microhei >/dev/null 2>&1 || missing="$missing fonts-wqy-microhei"
if [ -n "$missing" ]; then
	echo "installing$missing (Debian)" >&2
	SUDO=""
	if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
	$SUDO apt-get update -qq >&2
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >&2
fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "installing nodejs and npm (Debian)" >&2
	SUDO=""
	if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
	$SUDO apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >&2
fi

major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 20 ]; then
	echo "install-browser.sh: playwright-core $VERSION needs Node.js 20 or later; this node is $(node --version)" >&2
	exit 1
fi

if [ ! -f "$DIR/node_modules/playwright-core/package.json" ]; then
	echo "installing playwright-core $VERSION into $DIR" >&2
	mkdir -p "$DIR"
	tmp="$(mktemp -d "$DIR.XXXXXX")"
	# No browser download: playwright-core has none, and the tests use
	# Debian's chromium.
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$tmp" --no-save --no-audit --no-fund \
		--loglevel=error "playwright-core@$VERSION" >&2
	rm -rf "$DIR/node_modules"
	mv "$tmp/node_modules" "$DIR/node_modules"
	rm -rf "$tmp"
fi
echo "$DIR/node_modules"
