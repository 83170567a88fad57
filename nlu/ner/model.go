package ner

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
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
	bw := bufio.NewWriter(zw)
	putStr := func(s string) {
		var b [binary.MaxVarintLen64]byte
		bw.Write(b[:binary.PutUvarint(b[:], uint64(len(s)))])
		bw.WriteString(s)
	}
	putN := func(n int) {
		var b [binary.MaxVarintLen64]byte
		bw.Write(b[:binary.PutUvarint(b[:], uint64(n))])
	}
	if t.dense != nil {
		bw.WriteString(modelMagicDense)
	} else {
		bw.WriteString(modelMagic)
	}
	putN(len(t.tags))
	for _, g := range t.tags {
		putStr(g)
	}
	lower := sortedKeys(t.lower)
	putN(len(lower))
	for _, l := range lower {
		putStr(l)
	}
	phrases := sortedKeys(t.gaz.phrases)
	putN(t.gaz.maxLen)
	putN(len(phrases))
	for _, p := range phrases {
		putStr(p)
		putStr(t.gaz.phrases[p])
	}
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
	binary.Write(bw, binary.LittleEndian, scale)
	putN(len(keys))
	prev := uint64(0)
	for _, k := range keys {
		putN(int(k - prev)) // delta; uvarint of uint64 via int conversion is fine below 2^63
		prev = k
		row := t.index[k]
		for _, v := range t.w[int(row)*T : int(row)*T+T] {
			binary.Write(bw, binary.LittleEndian, int16(math.Round(float64(v/scale))))
		}
	}
	if d := t.dense; d != nil {
		putStr(d.model)
		putN(d.dim)
		putN(d.win)
		binary.Write(bw, binary.LittleEndian, d.mean)
		binary.Write(bw, binary.LittleEndian, d.inv)
		binary.Write(bw, binary.LittleEndian, d.w)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("ner: save: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("ner: save: %w", err)
	}
	return nil
}

// Load reads a model written by Save.
func Load(r io.Reader) (*Tagger, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("ner: load: %w: %v", ErrFormat, err)
	}
	br := bufio.NewReader(zr)
	magic := make([]byte, len(modelMagic))
	if _, err := io.ReadFull(br, magic); err != nil || (string(magic) != modelMagic && string(magic) != modelMagicDense) {
		return nil, fmt.Errorf("ner: load: %w: bad magic", ErrFormat)
	}
	var rerr error
	getN := func() int {
		v, err := binary.ReadUvarint(br)
		if err != nil && rerr == nil {
			rerr = err
		}
		return int(v)
	}
	getStr := func() string {
		n := getN()
		if rerr != nil || n > 1<<20 {
			rerr = ErrFormat
			return ""
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil && rerr == nil {
			rerr = err
		}
		return string(b)
	}
	ext, err := englishGazetteer()
	if err != nil {
		return nil, err
	}
	t := &Tagger{index: map[uint64]int32{}, lower: map[string]bool{}, gaz: &gazetteer{phrases: map[string]string{}}, ext: ext}
	tags := make([]string, getN())
	for i := range tags {
		tags[i] = getStr()
	}
	t.setTags(tags)
	for n := getN(); n > 0 && rerr == nil; n-- {
		t.lower[getStr()] = true
	}
	t.gaz.maxLen = getN()
	for n := getN(); n > 0 && rerr == nil; n-- {
		p := getStr()
		t.gaz.phrases[p] = getStr()
	}
	var scale float32
	if err := binary.Read(br, binary.LittleEndian, &scale); err != nil {
		return nil, fmt.Errorf("ner: load: %w: %v", ErrFormat, err)
	}
	T := len(tags)
	n := getN()
	if rerr != nil || T == 0 {
		return nil, fmt.Errorf("ner: load: %w: %v", ErrFormat, rerr)
	}
	t.w = make([]float32, 0, n*T)
	buf := make([]int16, T)
	prev := uint64(0)
	for i := 0; i < n; i++ {
		prev += uint64(getN())
		if err := binary.Read(br, binary.LittleEndian, buf); err != nil {
			return nil, fmt.Errorf("ner: load: %w: %v", ErrFormat, err)
		}
		t.index[prev] = int32(i)
		for _, q := range buf {
			t.w = append(t.w, float32(q)*scale)
		}
	}
	if string(magic) == modelMagicDense && rerr == nil {
		d := &denseLayer{model: getStr()}
		d.dim = getN()
		d.win = getN()
		if rerr == nil && (d.dim <= 0 || d.dim > 1<<16 || d.win < 0 || d.win > 8) {
			rerr = fmt.Errorf("contextual layer of %d dimensions, window %d", d.dim, d.win)
		}
		if rerr == nil {
			d.mean, d.inv, d.w = make([]float32, d.dim), make([]float32, d.dim), make([]float32, T*d.width())
			for _, dst := range [][]float32{d.mean, d.inv, d.w} {
				if err := binary.Read(br, binary.LittleEndian, dst); err != nil && rerr == nil {
					rerr = err
				}
			}
			t.dense = d
		}
	}
	if rerr != nil {
		return nil, fmt.Errorf("ner: load: %w: %v", ErrFormat, rerr)
	}
	return t, nil
}

// englishModel is the English tagger trained on CoNLL-2003 train.txt by
// scripts/build-nlu-ner.go.
//
//go:embed en.model.gz
var englishModel []byte

var (
	englishOnce   sync.Once
	englishTagger *Tagger
	englishErr    error
)

// English returns the embedded English tagger (PER, LOC, ORG, MISC),
// loading it on first use.
func English() (*Tagger, error) {
	englishOnce.Do(func() {
		englishTagger, englishErr = Load(bytes.NewReader(englishModel))
	})
	return englishTagger, englishErr
}
