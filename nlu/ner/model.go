package ner

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"sync"
)

// modelMagic opens a model file; version 2 models use the external
// gazetteer features (extgaz.go); version 3 models add a contextual layer
// (dense.go) after the feature weights.
const (
	modelMagic      = "NAJDI-NER-2\n"
	modelMagicDense = "NAJDI-NER-3\n"
)

// Save writes the tagger in the gzip-compressed najdi NER model format:
// magic, tags, lower-cased vocabulary, gazetteer, then features sorted by
// hash with int16 weights scaled by one float32. Features whose weights are
// all below minWeight in absolute value are dropped.
func (t *Tagger) Save(w io.Writer, minWeight float32) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return fmt.Errorf("ner: save: %w", err)
	}
	mw := modelWriter{bufio.NewWriter(zw)}
	if t.dense != nil {
		mw.WriteString(modelMagicDense)
	} else {
		mw.WriteString(modelMagic)
	}
	mw.lexicon(t)
	mw.weights(t, minWeight)
	if t.dense != nil {
		mw.dense(t.dense)
	}
	if err := mw.Flush(); err != nil {
		return fmt.Errorf("ner: save: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("ner: save: %w", err)
	}
	return nil
}

// modelWriter writes the parts of a model file; the first error of the
// buffered writer is reported by its Flush.
type modelWriter struct{ *bufio.Writer }

// n writes a uvarint.
func (mw modelWriter) n(n int) {
	var b [binary.MaxVarintLen64]byte
	mw.Write(b[:binary.PutUvarint(b[:], uint64(n))])
}

// str writes a string, its length first.
func (mw modelWriter) str(s string) {
	mw.n(len(s))
	mw.WriteString(s)
}

// lexicon writes the tags, the lower-cased vocabulary and the gazetteer.
func (mw modelWriter) lexicon(t *Tagger) {
	mw.n(len(t.tags))
	for _, g := range t.tags {
		mw.str(g)
	}
	lower := sortedKeys(t.lower)
	mw.n(len(lower))
	for _, l := range lower {
		mw.str(l)
	}
	phrases := sortedKeys(t.gaz.phrases)
	mw.n(t.gaz.maxLen)
	mw.n(len(phrases))
	for _, p := range phrases {
		mw.str(p)
		mw.str(t.gaz.phrases[p])
	}
}

// weights writes the scale and the features with a weight of minWeight or
// more in absolute value, sorted by hash (delta-coded), their weights
// quantized to int16 by the scale.
func (mw modelWriter) weights(t *Tagger, minWeight float32) {
	T := len(t.tags)
	keys := make([]uint64, 0, len(t.index))
	maxAbs := float32(0)
	for k, row := range t.index {
		keep := false
		for _, v := range t.w[int(row)*T : int(row)*T+T] {
			a := float32(math.Abs(float64(v)))
			keep = keep || a >= minWeight
			maxAbs = max(maxAbs, a)
		}
		if keep {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(a, b int) bool { return keys[a] < keys[b] })
	scale := maxAbs / 32767
	if scale == 0 {
		scale = 1
	}
	binary.Write(mw, binary.LittleEndian, scale)
	mw.n(len(keys))
	prev := uint64(0)
	for _, k := range keys {
		mw.n(int(k - prev)) // delta; uvarint of uint64 via int conversion is fine below 2^63
		prev = k
		row := t.index[k]
		for _, v := range t.w[int(row)*T : int(row)*T+T] {
			binary.Write(mw, binary.LittleEndian, int16(math.Round(float64(v/scale))))
		}
	}
}

// dense writes the contextual layer: its model, dimensions, window, and
// the float32 means, inverse deviations and weights.
func (mw modelWriter) dense(d *denseLayer) {
	mw.str(d.model)
	mw.n(d.dim)
	mw.n(d.win)
	binary.Write(mw, binary.LittleEndian, d.mean)
	binary.Write(mw, binary.LittleEndian, d.inv)
	binary.Write(mw, binary.LittleEndian, d.w)
}

// Load reads a model written by Save.
func Load(r io.Reader) (*Tagger, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("ner: load: %w: %v", ErrFormat, err)
	}
	mr := &modelReader{br: bufio.NewReader(zr)}
	magic := make([]byte, len(modelMagic))
	if _, err := io.ReadFull(mr.br, magic); err != nil || (string(magic) != modelMagic && string(magic) != modelMagicDense) {
		return nil, fmt.Errorf("ner: load: %w: bad magic", ErrFormat)
	}
	ext, err := englishGazetteer()
	if err != nil {
		return nil, err
	}
	t := &Tagger{index: map[uint64]int32{}, lower: map[string]bool{}, gaz: &gazetteer{phrases: map[string]string{}}, ext: ext}
	mr.lexicon(t)
	if err := mr.weights(t); err != nil {
		return nil, fmt.Errorf("ner: load: %w: %v", ErrFormat, err)
	}
	if string(magic) == modelMagicDense && mr.err == nil {
		mr.dense(t)
	}
	if mr.err != nil {
		return nil, fmt.Errorf("ner: load: %w: %v", ErrFormat, mr.err)
	}
	return t, nil
}

// modelReader reads the parts of a model file, keeping the first error of
// its uvarints and strings in err.
type modelReader struct {
	br  *bufio.Reader
	err error
}

// n reads a uvarint.
func (mr *modelReader) n() int {
	v, err := binary.ReadUvarint(mr.br)
	if err != nil && mr.err == nil {
		mr.err = err
	}
	return int(v)
}

// str reads a string of at most 1 MiB.
func (mr *modelReader) str() string {
	n := mr.n()
	if mr.err != nil || n > 1<<20 {
		mr.err = ErrFormat
		return ""
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(mr.br, b); err != nil && mr.err == nil {
		mr.err = err
	}
	return string(b)
}

// lexicon reads the tags, the lower-cased vocabulary and the gazetteer
// into t.
func (mr *modelReader) lexicon(t *Tagger) {
	tags := make([]string, mr.n())
	for i := range tags {
		tags[i] = mr.str()
	}
	t.setTags(tags)
	for n := mr.n(); n > 0 && mr.err == nil; n-- {
		t.lower[mr.str()] = true
	}
	t.gaz.maxLen = mr.n()
	for n := mr.n(); n > 0 && mr.err == nil; n-- {
		p := mr.str()
		t.gaz.phrases[p] = mr.str()
	}
}

// weights reads the scale and the features into t; it returns the first
// error, of this part or an earlier one.
func (mr *modelReader) weights(t *Tagger) error {
	var scale float32
	if err := binary.Read(mr.br, binary.LittleEndian, &scale); err != nil {
		return err
	}
	T := len(t.tags)
	n := mr.n()
	if mr.err != nil {
		return mr.err
	}
	if T == 0 {
		return errors.New("no tags")
	}
	t.w = make([]float32, 0, n*T)
	buf := make([]int16, T)
	prev := uint64(0)
	for i := 0; i < n; i++ {
		prev += uint64(mr.n())
		if err := binary.Read(mr.br, binary.LittleEndian, buf); err != nil {
			return err
		}
		t.index[prev] = int32(i)
		for _, q := range buf {
			t.w = append(t.w, float32(q)*scale)
		}
	}
	return nil
}

// dense reads the contextual layer into t.
func (mr *modelReader) dense(t *Tagger) {
	d := &denseLayer{model: mr.str()}
	d.dim = mr.n()
	d.win = mr.n()
	if mr.err == nil && (d.dim <= 0 || d.dim > 1<<16 || d.win < 0 || d.win > 8) {
		mr.err = fmt.Errorf("contextual layer of %d dimensions, window %d", d.dim, d.win)
	}
	if mr.err != nil {
		return
	}
	d.mean, d.inv, d.w = make([]float32, d.dim), make([]float32, d.dim), make([]float32, len(t.tags)*d.width())
	for _, dst := range [][]float32{d.mean, d.inv, d.w} {
		if err := binary.Read(mr.br, binary.LittleEndian, dst); err != nil && mr.err == nil {
			mr.err = err
		}
	}
	t.dense = d
}

// englishModel is the English tagger trained on CoNLL-2003 train.txt by
// scripts/build-nlu-ner.go.
//
//go:embed en.model.gz
var englishModel []byte

// englishTagger loads englishModel once.
var englishTagger = embeddedTagger(englishModel)

// English returns the embedded English tagger (PER, LOC, ORG, MISC),
// loading it on first use.
func English() (*Tagger, error) { return englishTagger() }

// embeddedTagger returns a function that loads the model data on its
// first call and returns the same tagger (or error) on every call.
func embeddedTagger(data []byte) func() (*Tagger, error) {
	return sync.OnceValues(func() (*Tagger, error) { return Load(bytes.NewReader(data)) })
}
