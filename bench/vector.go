package bench

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/najdi/najdi/embed"
)

// Files written by EmbedVectors under EmbedConfig.OutDir.
const (
	// VectorCorpusFile holds the passage vectors of SciFact titles,
	// sentences and clauses.
	VectorCorpusFile = "scifact-bge-small-384.f32"
	// VectorQueryFile holds the query vectors of all SciFact queries.
	VectorQueryFile = "scifact-queries-bge-small-384.f32"
)

// EmbedConfig configures EmbedVectors.
type EmbedConfig struct {
	// Dir is the BEIR SciFact directory (corpus.jsonl, queries.jsonl).
	Dir string
	// ModelDir is the embedding model directory (bge-small-en-v1.5).
	ModelDir string
	// LibraryPath is the path of libonnxruntime.so.
	LibraryPath string
	// OutDir receives VectorCorpusFile and VectorQueryFile.
	OutDir string
	// Limit caps the number of corpus texts embedded; 0 means all
	// (about 102k texts).
	Limit int
	// Threads is ONNX Runtime's thread count; 0 means all cores.
	Threads int
}

// EmbedVectors builds the real-vector fixture of the vector workload: it
// cuts every SciFact abstract into its title, its sentences and, for
// sentences with several clauses of at least four words, those clauses
// (about 102k texts), shuffles them with a fixed seed, embeds them as
// passages and appends them as raw little-endian float32 rows to
// OutDir/VectorCorpusFile, batch by batch (a killed run leaves a usable
// prefix). The SciFact queries go to OutDir/VectorQueryFile first.
func EmbedVectors(cfg EmbedConfig, w io.Writer) error {
	texts, queries, err := vectorTexts(cfg.Dir)
	if err != nil {
		return err
	}
	if cfg.Limit > 0 && len(texts) > cfg.Limit {
		texts = texts[:cfg.Limit]
	}
	m, err := embed.LoadLocal(cfg.ModelDir, embed.LocalOptions{LibraryPath: cfg.LibraryPath, Threads: cfg.Threads})
	if err != nil {
		return fmt.Errorf("load model: %w", err)
	}
	defer m.Close()
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return err
	}
	ctx := context.Background()
	qv, err := m.EmbedQueries(ctx, queries)
	if err != nil {
		return fmt.Errorf("embed queries: %w", err)
	}
	if err := WriteVectors(filepath.Join(cfg.OutDir, VectorQueryFile), qv); err != nil {
		return err
	}
	fmt.Fprintf(w, "embedded %d queries\n", len(qv))
	f, err := os.Create(filepath.Join(cfg.OutDir, VectorCorpusFile))
	if err != nil {
		return err
	}
	defer f.Close()
	start := time.Now()
	const batch = 512
	var buf []byte
	for lo := 0; lo < len(texts); lo += batch {
		hi := min(lo+batch, len(texts))
		vs, err := m.EmbedPassages(ctx, texts[lo:hi])
		if err != nil {
			return fmt.Errorf("embed passages %d..%d: %w", lo, hi, err)
		}
		buf = appendVectors(buf[:0], vs)
		if _, err := f.Write(buf); err != nil {
			return err
		}
		el := time.Since(start).Seconds()
		fmt.Fprintf(w, "embedded %d/%d passages, %.0f/s\n", hi, len(texts), float64(hi)/el)
	}
	return f.Close()
}

// vectorTexts returns the shuffled corpus texts and the queries of a SciFact
// directory.
func vectorTexts(dir string) (texts, queries []string, err error) {
	err = beirReadJSONL(filepath.Join(dir, "corpus.jsonl"), func(line []byte) error {
		var d BEIRDoc
		if err := json.Unmarshal(line, &d); err != nil {
			return err
		}
		if t := strings.TrimSpace(d.Title); t != "" {
			texts = append(texts, t)
		}
		for _, s := range splitSentences(d.Text) {
			texts = append(texts, s)
			var frags []string
			for _, c := range splitClauses(s) {
				if len(strings.Fields(c)) >= 4 {
					frags = append(frags, c)
				}
			}
			if len(frags) > 1 {
				texts = append(texts, frags...)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	err = beirReadJSONL(filepath.Join(dir, "queries.jsonl"), func(line []byte) error {
		var q BEIRQuery
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		queries = append(queries, q.Text)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(texts), func(i, j int) { texts[i], texts[j] = texts[j], texts[i] })
	return texts, queries, nil
}

// splitSentences cuts s after '.', '!' or '?' followed by white space and
// an upper-case letter or '('.
func splitSentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i+2 < len(s); i++ {
		c := s[i]
		if (c == '.' || c == '!' || c == '?') && s[i+1] == ' ' {
			n := s[i+2]
			if (n >= 'A' && n <= 'Z') || n == '(' {
				if t := strings.TrimSpace(s[start : i+1]); t != "" {
					out = append(out, t)
				}
				start = i + 2
			}
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// splitClauses cuts s at ", ", "; " and ": ".
func splitClauses(s string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == ',' || s[i] == ';' || s[i] == ':') && s[i+1] == ' ' {
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 2
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// WriteVectors writes vs to path as raw little-endian float32 rows.
func WriteVectors(path string, vs [][]float32) error {
	if err := os.WriteFile(path, appendVectors(nil, vs), 0o644); err != nil {
		return fmt.Errorf("write vectors: %w", err)
	}
	return nil
}

func appendVectors(dst []byte, vs [][]float32) []byte {
	for _, v := range vs {
		for _, f := range v {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(f))
		}
	}
	return dst
}

// ReadVectors reads raw little-endian float32 rows of dims values from path;
// limit > 0 reads at most limit rows. A trailing partial row is ignored.
func ReadVectors(path string, dims, limit int) ([][]float32, error) {
	if dims <= 0 {
		return nil, fmt.Errorf("read vectors %s: dims %d: %w", path, dims, ErrBadData)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	row := make([]byte, 4*dims)
	var out [][]float32
	for limit <= 0 || len(out) < limit {
		if _, err := io.ReadFull(r, row); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			return nil, fmt.Errorf("read vectors %s: %w", path, err)
		}
		v := make([]float32, dims)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(row[4*i:]))
		}
		out = append(out, v)
	}
	return out, nil
}
