#!/usr/bin/env bash
# build-cs-lexicon.sh rebuilds text/diacritics/data/lexicon.gz, the Czech
# lexicon behind diacritics restoration, from registry packages only:
#   - PyPI wordfreq (large_cs word frequencies, CC BY-SA 4.0) via pip download
#   - PyPI msgpack (to read them) via pip install --target
#   - Debian libreoffice-help-cs, gimp-help-cs, fortunes-cs (Czech running
#     text for word-pair counts) via apt-get download
# Idempotent: downloads are cached under ${NAJDI_CACHE:-$HOME/.cache/najdi}.
# The output is committed; run this only to refresh it.
# Usage: scripts/build-cs-lexicon.sh [output-file]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${NAJDI_CACHE:-$HOME/.cache/najdi}/cs-lexicon"
out="${1:-$root/text/diacritics/data/lexicon.gz}"
mkdir -p "$cache/pip" "$cache/pylib" "$cache/deb" "$cache/x"

if ! ls "$cache"/pip/wordfreq-*.whl >/dev/null 2>&1; then
	python3 -m pip download --no-deps -d "$cache/pip" 'wordfreq==3.1.1'
fi
if [ ! -d "$cache/pylib/msgpack" ]; then
	python3 -m pip install --target "$cache/pylib" 'msgpack>=1.0'
fi
debs="libreoffice-help-cs gimp-help-cs fortunes-cs"
# The marker names the package set: a changed set re-extracts.
marker="$cache/x/.done-$(echo $debs | cksum | cut -d' ' -f1)"
if [ ! -f "$marker" ]; then
	rm -rf "$cache/deb" "$cache/x"
	mkdir -p "$cache/deb" "$cache/x"
	(cd "$cache/deb" && apt-get download $debs)
	for f in "$cache"/deb/*.deb; do dpkg-deb -x "$f" "$cache/x"; done
	touch "$marker"
fi
whl="$(ls "$cache"/pip/wordfreq-*.whl | head -n1)"
PYTHONPATH="$cache/pylib" python3 "$root/scripts/build-cs-lexicon.py" \
	--wordfreq "$whl" --corpus "$cache/x/usr/share" --out "$out"
