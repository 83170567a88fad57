package peers

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/text"
)

// bucketOf gives a document its filter bucket in [0, 100) from its id.
func bucketOf(id string) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % 100)
}

// vecStore is an append-only file of text → vector records (uvarint text
// length, text, uvarint dims, little-endian float32s) with its contents in
// memory: embeddings made once survive the run and later runs.
type vecStore struct {
	mu   sync.Mutex
	m    map[string][]float32
	f    *os.File
	w    *bufio.Writer
	path string
}

func openVecStore(path string) (*vecStore, error) {
	s := &vecStore{m: map[string][]float32{}, path: path}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	if f, err := os.Open(path); err == nil {
		err := readVecRecords(bufio.NewReader(f), s.m)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("vector cache %s: %w", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	s.f, s.w = f, bufio.NewWriter(f)
	return s, nil
}

// readVecRecords reads records until EOF; a torn last record (a killed run)
// ends the reading without error.
func readVecRecords(r *bufio.Reader, m map[string][]float32) error {
	for {
		n, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return nil
		}
		if err != nil || n > 1<<24 {
			return nil
		}
		tb := make([]byte, n)
		if _, err := io.ReadFull(r, tb); err != nil {
			return nil
		}
		d, err := binary.ReadUvarint(r)
		if err != nil || d == 0 || d > 1<<16 {
			return nil
		}
		v := make([]float32, d)
		if err := binary.Read(r, binary.LittleEndian, v); err != nil {
			return nil
		}
		m[string(tb)] = v
	}
}

func (s *vecStore) get(t string) ([]float32, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[t]
	return v, ok
}

func (s *vecStore) put(t string, v []float32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[t] = v
	var hdr []byte
	hdr = binary.AppendUvarint(hdr, uint64(len(t)))
	hdr = append(hdr, t...)
	hdr = binary.AppendUvarint(hdr, uint64(len(v)))
	for _, x := range v {
		hdr = binary.LittleEndian.AppendUint32(hdr, math.Float32bits(x))
	}
	_, err := s.w.Write(hdr)
	return err
}

func (s *vecStore) flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Flush()
}

func (s *vecStore) Close() error {
	if err := s.flush(); err != nil {
		return err
	}
	return s.f.Close()
}

// modelEmbedder embeds passages with the local model, through a vecStore.
type modelEmbedder struct {
	m     *embed.Local
	store *vecStore
	mu    sync.Mutex // one embedding batch at a time
}

func (e *modelEmbedder) passages(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var miss []string
	var at []int
	for i, t := range texts {
		if v, ok := e.store.get(t); ok {
			out[i] = v
			continue
		}
		miss = append(miss, t)
		at = append(at, i)
	}
	if len(miss) == 0 {
		return out, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for lo := 0; lo < len(miss); lo += 64 {
		hi := min(lo+64, len(miss))
		vs, err := e.m.EmbedPassages(ctx, miss[lo:hi])
		if err != nil {
			return nil, err
		}
		for j, v := range vs {
			out[at[lo+j]] = v
			if err := e.store.put(miss[lo+j], v); err != nil {
				return nil, err
			}
		}
	}
	return out, e.store.flush()
}

// SciFactData loads BEIR SciFact and gives every document and query its
// bge-small-en-v1.5 vector (documents: title and abstract joined by a space,
// the model's 512-token limit; queries with the model's query instruction),
// embedding what the cache lacks.
func SciFactData(ctx context.Context, dir string, model *embed.Local, store *vecStore, log io.Writer) (*bench.BEIR, []Doc, []Query, error) {
	b, err := bench.LoadBEIR(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	me := &modelEmbedder{m: model, store: store}
	texts := make([]string, len(b.Docs))
	for i, d := range b.Docs {
		texts[i] = strings.TrimSpace(d.Title + " " + d.Text)
	}
	docs := make([]Doc, len(b.Docs))
	const step = 512
	for lo := 0; lo < len(texts); lo += step {
		hi := min(lo+step, len(texts))
		vs, err := me.passages(ctx, texts[lo:hi])
		if err != nil {
			return nil, nil, nil, fmt.Errorf("embed SciFact documents: %w", err)
		}
		for i := lo; i < hi; i++ {
			d := b.Docs[i]
			docs[i] = Doc{ID: d.ID, Title: d.Title, Text: d.Text, Bucket: bucketOf(d.ID), Vector: vs[i-lo]}
		}
		fmt.Fprintf(log, "  SciFact document vectors %d/%d\n", hi, len(texts))
	}
	qs := make([]Query, len(b.Queries))
	for i, q := range b.Queries {
		key := "\x00query\x00" + q.Text
		v, ok := store.get(key)
		if !ok {
			vs, err := model.EmbedQueries(ctx, []string{q.Text})
			if err != nil {
				return nil, nil, nil, fmt.Errorf("embed SciFact queries: %w", err)
			}
			v = vs[0]
			if err := store.put(key, v); err != nil {
				return nil, nil, nil, err
			}
		}
		qs[i] = Query{ID: q.ID, Text: q.Text, Vector: v}
	}
	return b, docs, qs, store.flush()
}

// staticDoc says how static vectors are made, for the report.
const staticDoc = "Static vectors: the mean of bge-small-en-v1.5's own input-token embedding rows (the uint8 `embeddings.word_embeddings` initializer of its model.onnx, zero point removed) over the text's WordPiece ids, L2-normalised — no transformer layers; made once and cached."

// SciFactStatic loads BEIR SciFact with static vectors (title and abstract
// joined; queries as they are).
func SciFactStatic(dir string, st *Static) (*bench.BEIR, []Doc, []Query, error) {
	b, err := bench.LoadBEIR(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	docs := make([]Doc, len(b.Docs))
	for i, d := range b.Docs {
		docs[i] = Doc{ID: d.ID, Title: d.Title, Text: d.Text, Bucket: bucketOf(d.ID), Vector: st.Embed(strings.TrimSpace(d.Title + " " + d.Text))}
	}
	qs := make([]Query, len(b.Queries))
	for i, q := range b.Queries {
		qs[i] = Query{ID: q.ID, Text: q.Text, Vector: st.Embed(q.Text)}
	}
	return b, docs, qs, nil
}

// LargeTexts returns n chunk texts of real vocabulary: each joins two
// SciFact abstract sentences (of more than 20 bytes) picked by a seeded
// random generator, so that a million distinct chunks come out of the
// 5,183 abstracts.
func LargeTexts(b *bench.BEIR, n int, seed uint64) []string {
	var sents []string
	for _, d := range b.Docs {
		for _, sp := range text.Sentences(d.Text) {
			if s := strings.TrimSpace(d.Text[sp.Start:sp.End]); len(s) > 20 {
				sents = append(sents, s)
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]string, n)
	for i := range out {
		out[i] = sents[rng.IntN(len(sents))] + " " + sents[rng.IntN(len(sents))]
	}
	return out
}

// LargeDocs makes the documents of the large collection with static
// vectors, cached as raw float32 rows in cacheFile (recomputed when its size
// does not match).
func LargeDocs(texts []string, st *Static, cacheFile string) ([]Doc, error) {
	dims := st.Dims()
	rowBytes := 4 * dims
	var raw []byte
	if data, err := os.ReadFile(cacheFile); err == nil && len(data) == len(texts)*rowBytes {
		raw = data
	}
	docs := make([]Doc, len(texts))
	var out []byte
	if raw == nil {
		out = make([]byte, 0, len(texts)*rowBytes)
	}
	for i, t := range texts {
		id := fmt.Sprintf("c%07d", i)
		var v []float32
		if raw != nil {
			v = make([]float32, dims)
			for j := range v {
				v[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[i*rowBytes+4*j:]))
			}
		} else {
			v = st.Embed(t)
			for _, x := range v {
				out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
			}
		}
		docs[i] = Doc{ID: id, Text: t, Bucket: bucketOf(id), Vector: v}
	}
	if raw == nil && cacheFile != "" {
		if err := os.MkdirAll(filepath.Dir(cacheFile), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(cacheFile+".tmp", out, 0o644); err != nil {
			return nil, err
		}
		if err := os.Rename(cacheFile+".tmp", cacheFile); err != nil {
			return nil, err
		}
	}
	return docs, nil
}
