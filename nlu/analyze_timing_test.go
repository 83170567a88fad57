package nlu

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkAnalyze times one analysis of a short Czech text by a pipeline of
// builtin-ner, closed-ner and intent-classifier, per pipeline mode.
func BenchmarkAnalyze(b *testing.B) {
	ctx := context.Background()
	st := &MemStore{}
	s, err := NewService(st, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ps, err := s.CreatePhraseSet(ctx, "b", []byte(`{"name": "city", "language": "cs", "phrases": [{"text": "Praha"}, {"text": "Brno"}, {"text": "Karlín"}, {"text": "Smíchov"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	ic, err := s.CreateModel(ctx, "b", []byte(`{"name": "ic", "type": "annotator", "annotator": {"service": "builtin", "model": "intent-classifier", "config": {"examples": {
		"book": ["rezervuj stůl na zítra", "chci zamluvit stůl pro dva", "objednej mi místo v restauraci", "potřebuju rezervaci na večer"],
		"find": ["najdi levnou restauraci", "hledám italskou restauraci v Karlíně", "kde je dobrá pizzerie", "doporuč mi restauraci"]}}}}`))
	if err != nil {
		b.Fatal(err)
	}
	text := "Rezervuj stůl v Karlíně na pozítří ve 20 hodin pro čtyři lidi"
	for _, mode := range []string{ModeSequential, ModeParallel} {
		p, err := s.CreateModel(ctx, "b", []byte(fmt.Sprintf(`{"name": "p", "type": "pipeline", "mode": %q, "pipeline": {"models": [{"name": "builtin-ner", "language": "cs"}, {"name": "closed-ner", "phrase_set_ids": [%q]}, %q]}}`, mode, ps.PhraseSetID, ic.ModelID)))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := s.Analyze(ctx, "b", p.ModelID, text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
