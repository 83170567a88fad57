package embed

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Pooling names how token vectors become one sentence vector.
type Pooling string

// Pooling methods.
const (
	// PoolingCLS takes the vector of the first ([CLS]) token.
	PoolingCLS Pooling = "cls"
	// PoolingMean averages the vectors of the non-padding tokens.
	PoolingMean Pooling = "mean"
)

// Manifest describes a model directory. It is stored as manifest.json next to
// the ONNX file and the tokenizer, so any BERT-family ONNX model can be
// dropped in with a manifest of its own.
type Manifest struct {
	// Name is the model name; it defaults to the directory name.
	Name string `json:"name"`
	// Model is the ONNX file name inside the directory (default "model.onnx").
	Model string `json:"model"`
	// Tokenizer is the vocabulary file: a Hugging Face tokenizer.json with a
	// WordPiece model, a BERT vocab.txt, or a SentencePiece-Unigram
	// unigram.json (LoadUnigram; any name ending in unigram.json)
	// (default: tokenizer.json if present, else vocab.txt).
	Tokenizer string `json:"tokenizer"`
	// Dims is the embedding length.
	Dims int `json:"dims"`
	// Pooling is "cls" or "mean".
	Pooling Pooling `json:"pooling"`
	// Normalize asks for L2-normalized vectors. Vectors are always normalized
	// by this package; the field documents the model's own convention.
	Normalize bool `json:"normalize"`
	// MaxTokens is the longest input including [CLS] and [SEP].
	MaxTokens int `json:"max_tokens"`
	// DoLowerCase lowercases and strips accents before WordPiece. When a
	// tokenizer.json is used, its normalizer settings take precedence.
	DoLowerCase *bool `json:"do_lower_case,omitempty"`
	// QueryPrefix is prepended to queries, e.g. "query: ".
	QueryPrefix string `json:"query_prefix"`
	// PassagePrefix is prepended to passages, e.g. "passage: ".
	PassagePrefix string `json:"passage_prefix"`
}

// ReadManifest reads dir/manifest.json and fills defaults.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	if err := DecodeManifest(dir, "model", &m, ErrNotInstalled, ErrBadModel); err != nil {
		return m, err
	}
	m.Name = cmp.Or(m.Name, filepath.Base(dir))
	m.Model = cmp.Or(m.Model, "model.onnx")
	if m.Tokenizer == "" {
		m.Tokenizer = "tokenizer.json"
		if _, err := os.Stat(filepath.Join(dir, m.Tokenizer)); err != nil {
			m.Tokenizer = "vocab.txt"
		}
	}
	m.Pooling = cmp.Or(m.Pooling, PoolingMean)
	m.MaxTokens = cmp.Or(m.MaxTokens, 512)
	return m, m.Validate()
}

// DecodeManifest decodes dir/manifest.json into v (a pointer to a manifest
// struct), for every kind of model directory (this package's embedding
// models, package rerank's cross-encoders). A missing file is reported as
// notInstalled, a file that is not the manifest's JSON as bad; kind names
// the model in the messages ("model", "reranker").
func DecodeManifest(dir, kind string, v any, notInstalled, bad error) error {
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s %s: %w", kind, dir, notInstalled)
	}
	if err != nil {
		return fmt.Errorf("read %s manifest: %w", kind, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s manifest %s: %w: %w", kind, dir, bad, err)
	}
	return nil
}

// Validate reports whether the manifest is usable.
func (m Manifest) Validate() error {
	switch {
	case m.Dims <= 0:
		return fmt.Errorf("manifest %s: dims %d: %w", m.Name, m.Dims, ErrBadModel)
	case m.Pooling != PoolingCLS && m.Pooling != PoolingMean:
		return fmt.Errorf("manifest %s: pooling %q: %w", m.Name, m.Pooling, ErrBadModel)
	case m.MaxTokens < 3:
		return fmt.Errorf("manifest %s: max_tokens %d: %w", m.Name, m.MaxTokens, ErrBadModel)
	}
	return nil
}
