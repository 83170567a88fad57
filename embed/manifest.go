package embed

import (
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
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return m, fmt.Errorf("model %s: %w", dir, ErrNotInstalled)
	}
	if err != nil {
		return m, fmt.Errorf("read manifest: %w", err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("manifest %s: %w: %w", dir, ErrBadModel, err)
	}
	if m.Name == "" {
		m.Name = filepath.Base(dir)
	}
	if m.Model == "" {
		m.Model = "model.onnx"
	}
	if m.Tokenizer == "" {
		m.Tokenizer = "tokenizer.json"
		if _, err := os.Stat(filepath.Join(dir, m.Tokenizer)); err != nil {
			m.Tokenizer = "vocab.txt"
		}
	}
	if m.Pooling == "" {
		m.Pooling = PoolingMean
	}
	if m.MaxTokens == 0 {
		m.MaxTokens = 512
	}
	return m, m.Validate()
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
