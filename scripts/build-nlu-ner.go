//go:build ignore

// Command build-nlu-ner trains the English named-entity taggers of package
// nlu/ner on CoNLL-2003 train.txt: the lexical tagger nlu/ner/en.model.gz
// and, with -contextual, the tagger that also reads the contextual word
// vectors of an installed embedding model (nlu/ner/en-ctx.model.gz over
// bge-small-en-v1.5). Their features include the external gazetteer
// nlu/ner/en_gazetteer.txt.gz (scripts/build-nlu-gazetteers.sh; make
// nlu-models runs all). Training is deterministic (fixed seed; the word
// vectors come one sentence per run), so the committed models can be
// rebuilt:
//
//	go run ./scripts/build-nlu-ner.go -train ../shared/data/ner/conll2003/train.txt
//	go run ./scripts/build-nlu-ner.go -contextual bge-small-en-v1.5 -out nlu/ner/en-ctx.model.gz  # -window 1 -scale 0.1 by default
//
// -valid reports entity-level F1 on a validation file (never the test
// split). Data license: CoNLL-2003 annotations over Reuters RCV1 text,
// research use (see shared/data/ner/conll2003/README.md); the models are
// derived from it.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/nlu/ner"
)

func main() {
	train := flag.String("train", "../shared/data/ner/conll2003/train.txt", "CoNLL-2003 training file")
	valid := flag.String("valid", "", "CoNLL-2003 validation file to report F1 on (optional)")
	out := flag.String("out", "nlu/ner/en.model.gz", "model file to write")
	epochs := flag.Int("epochs", 15, "training epochs (15: +0.13 F1 over 10 on CoNLL valid)")
	minWeight := flag.Float64("min-weight", 0.05, "drop features whose weights are all smaller")
	contextual := flag.String("contextual", "", "embedding model whose word vectors the tagger reads (e.g. bge-small-en-v1.5); empty: lexical only")
	scale := flag.Float64("scale", 0, "scale of the standardized word vectors (0: the default)")
	window := flag.Int("window", 1, "neighbours on each side whose word vectors a word's contextual layer also reads (1: +0.003 micro F1 on CoNLL valid over 0)")
	cache := flag.String("cache", "", "directory caching the word vectors between runs (optional)")
	flag.Parse()
	if err := run(*train, *valid, *out, *contextual, *cache, *epochs, *window, float32(*minWeight), float32(*scale)); err != nil {
		fmt.Fprintln(os.Stderr, "build-nlu-ner:", err)
		os.Exit(1)
	}
}

func readCoNLL(path string) ([]ner.Sentence, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ner.ReadCoNLL(f)
}

// run trains a tagger on trainPath (with the contextual model's word
// vectors when contextual is set), saves it to out and, with validPath,
// reports its scores there (validate).
func run(trainPath, validPath, out, contextual, cache string, epochs, window int, minWeight, scale float32) error {
	sents, err := readCoNLL(trainPath)
	if err != nil {
		return err
	}
	opts := ner.TrainOptions{Epochs: epochs, DenseScale: scale, DenseWindow: window}
	var states wordStatesFunc
	if contextual != "" {
		modelsDir, lib := embed.CachePaths(embed.DefaultCacheDir())
		l, err := embed.LoadLocal(filepath.Join(modelsDir, contextual), embed.LocalOptions{LibraryPath: lib})
		if err != nil {
			return err
		}
		defer l.Close()
		states = func(path string, sents []ner.Sentence) ([][][]float32, error) {
			return wordStates(l, cache, path, sents)
		}
		if opts.Vectors, err = states(trainPath, sents); err != nil {
			return err
		}
		opts.Model = contextual
	}
	start := time.Now()
	t, err := ner.Train(sents, opts)
	if err != nil {
		return err
	}
	fmt.Printf("trained on %d sentences in %v\n", len(sents), time.Since(start).Round(time.Millisecond))
	if err := saveModel(t, out, minWeight); err != nil {
		return err
	}
	st, _ := os.Stat(out)
	fmt.Printf("wrote %s (%d bytes) from %d sentences\n", out, st.Size(), len(sents))
	if validPath == "" {
		return nil
	}
	return validate(out, validPath, states)
}

// wordStatesFunc returns the contextual word vectors of the sentences of
// the file at path.
type wordStatesFunc func(path string, sents []ner.Sentence) ([][][]float32, error)

// saveModel writes t to the file out, dropping weights below minWeight.
func saveModel(t *ner.Tagger, out string, minWeight float32) error {
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := t.Save(w, minWeight); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// validate loads the saved model out (as the service will) and prints its
// precision, recall and F1 per class on the CoNLL file validPath, with the
// word vectors of states when the model is contextual (states non-nil).
func validate(out, validPath string, states wordStatesFunc) error {
	vs, err := readCoNLL(validPath)
	if err != nil {
		return err
	}
	var vv [][][]float32
	if states != nil {
		if vv, err = states(validPath, vs); err != nil {
			return err
		}
	}
	f, err := os.Open(out)
	if err != nil {
		return err
	}
	defer f.Close()
	saved, err := ner.Load(f)
	if err != nil {
		return err
	}
	var gold, pred [][]string
	for i, s := range vs {
		gold = append(gold, s.Tags)
		var v [][]float32
		if vv != nil {
			v = vv[i]
		}
		pred = append(pred, saved.TagVectors(s.Words, v))
	}
	sc := ner.Evaluate(gold, pred, []string{"PER", "LOC", "ORG"})
	for _, k := range []string{"PER", "LOC", "ORG", ""} {
		name := k
		if k == "" {
			name = "all"
		}
		fmt.Printf("%s %-4s P %.3f R %.3f F1 %.3f\n", filepath.Base(validPath), name, sc[k].P(), sc[k].R(), sc[k].F1())
	}
	return nil
}

// wordStates returns the word vectors of sents, read from or written to
// cache/<base of path>.<model>.f32 when cache is set.
func wordStates(l *embed.Local, cache, path string, sents []ner.Sentence) ([][][]float32, error) {
	dims := l.Dims()
	n := 0
	for _, s := range sents {
		n += len(s.Words)
	}
	out := make([][][]float32, len(sents))
	flat := make([]float32, n*dims)
	off := 0
	for i, s := range sents {
		out[i] = make([][]float32, len(s.Words))
		for j := range s.Words {
			out[i][j] = flat[off : off+dims : off+dims]
			off += dims
		}
	}
	file := ""
	if cache != "" {
		file = filepath.Join(cache, filepath.Base(path)+"."+l.Name()+".f32")
		if f, err := os.Open(file); err == nil {
			defer f.Close()
			if err := binary.Read(bufio.NewReader(f), binary.LittleEndian, flat); err == nil {
				return out, nil
			} else if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
				return nil, err
			}
		}
	}
	start := time.Now()
	ctx := context.Background()
	for i, s := range sents {
		v, err := l.WordStates(ctx, s.Words)
		if err != nil {
			return nil, err
		}
		for j := range v {
			copy(out[i][j], v[j])
		}
		if i%2000 == 0 {
			fmt.Printf("word vectors: %d/%d sentences, %v\n", i, len(sents), time.Since(start).Round(time.Second))
		}
	}
	if file != "" {
		if err := os.MkdirAll(cache, 0o755); err != nil {
			return nil, err
		}
		f, err := os.Create(file)
		if err != nil {
			return nil, err
		}
		bw := bufio.NewWriter(f)
		if err := binary.Write(bw, binary.LittleEndian, flat); err != nil {
			f.Close()
			return nil, err
		}
		if err := bw.Flush(); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
