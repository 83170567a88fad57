//go:build ignore

// Command build-nlu-ner trains the English named-entity tagger of package
// nlu/ner on CoNLL-2003 train.txt and writes nlu/ner/en.model.gz. Its
// features include the external gazetteer nlu/ner/en_gazetteer.txt.gz
// (scripts/build-nlu-gazetteers.sh; make nlu-models runs both). Training
// is deterministic (fixed seed), so the committed model can be rebuilt
// byte-for-byte:
//
//	go run ./scripts/build-nlu-ner.go -train ../shared/data/ner/conll2003/train.txt
//
// Data license: CoNLL-2003 annotations over Reuters RCV1 text, research use
// (see shared/data/ner/conll2003/README.md); the model is derived from it.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/najdi/najdi/nlu/ner"
)

func main() {
	train := flag.String("train", "../shared/data/ner/conll2003/train.txt", "CoNLL-2003 training file")
	out := flag.String("out", "nlu/ner/en.model.gz", "model file to write")
	epochs := flag.Int("epochs", 15, "training epochs (15: +0.13 F1 over 10 on CoNLL valid)")
	minWeight := flag.Float64("min-weight", 0.05, "drop features whose weights are all smaller")
	flag.Parse()
	if err := run(*train, *out, *epochs, float32(*minWeight)); err != nil {
		fmt.Fprintln(os.Stderr, "build-nlu-ner:", err)
		os.Exit(1)
	}
}

func run(trainPath, out string, epochs int, minWeight float32) error {
	f, err := os.Open(trainPath)
	if err != nil {
		return err
	}
	defer f.Close()
	sents, err := ner.ReadCoNLL(f)
	if err != nil {
		return err
	}
	t, err := ner.Train(sents, ner.TrainOptions{Epochs: epochs})
	if err != nil {
		return err
	}
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := t.Save(w, minWeight); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	st, _ := os.Stat(out)
	fmt.Printf("wrote %s (%d bytes) from %d sentences\n", out, st.Size(), len(sents))
	return nil
}
