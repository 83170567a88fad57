#!/usr/bin/env bash
# install-dictionaries.sh installs the Czech Hunspell dictionary (Debian
# package hunspell-cs, GPL-2) that diacritics restoration reads at run time
# to know Czech word forms missing from the built-in lexicon. The dictionary
# is data read from disk, never embedded in the najdi binary.
#
# Layout (NAJDI_CACHE defaults to $HOME/.cache/najdi):
#   $NAJDI_CACHE/hunspell/cs_CZ.aff, cs_CZ.dic, copyright
#
# A dictionary already installed by the system (/usr/share/hunspell) is
# copied instead of downloading. Idempotent; exits non-zero with a message on
# failure.
set -euo pipefail

CACHE="${NAJDI_CACHE:-$HOME/.cache/najdi}"
DEST="$CACHE/hunspell"

die() {
	echo "install-dictionaries: $*" >&2
	exit 1
}

if [[ -s "$DEST/cs_CZ.aff" && -s "$DEST/cs_CZ.dic" ]]; then
	echo "hunspell-cs: $DEST (cached)"
	exit 0
fi
mkdir -p "$DEST"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

src=/usr/share/hunspell
if [[ ! -s "$src/cs_CZ.dic" ]]; then
	command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install Debian's hunspell-cs or put cs_CZ.aff/.dic in $DEST"
	command -v dpkg-deb >/dev/null 2>&1 || die "dpkg-deb not found"
	# apt-get download needs package lists; refresh them once if they lack it.
	if ! apt-cache show hunspell-cs >/dev/null 2>&1; then
		if [[ $(id -u) -eq 0 ]]; then
			apt-get update -q >/dev/null 2>&1 || die "apt-get update failed"
		else
			die "apt lists do not know hunspell-cs: run 'sudo apt-get update' first"
		fi
	fi
	(cd "$tmp" && apt-get download -q hunspell-cs >/dev/null 2>&1) || die "apt-get download hunspell-cs failed"
	dpkg-deb -x "$tmp"/hunspell-cs_*.deb "$tmp/x" || die "cannot unpack hunspell-cs"
	src="$tmp/x/usr/share/hunspell"
	cp "$tmp/x/usr/share/doc/hunspell-cs/copyright" "$DEST/copyright" 2>/dev/null || true
fi
[[ -s "$src/cs_CZ.aff" && -s "$src/cs_CZ.dic" ]] || die "cs_CZ.aff/.dic missing in $src"
# Copy under temporary names first: a reader never sees half a dictionary.
cp "$src/cs_CZ.aff" "$DEST/.cs_CZ.aff.tmp"
cp "$src/cs_CZ.dic" "$DEST/.cs_CZ.dic.tmp"
mv "$DEST/.cs_CZ.aff.tmp" "$DEST/cs_CZ.aff"
mv "$DEST/.cs_CZ.dic.tmp" "$DEST/cs_CZ.dic"
echo "hunspell-cs: $DEST"
