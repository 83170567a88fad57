package embed

import (
	"context"
	"fmt"
	"testing"
	"time"

	ort "github.com/yalue/onnxruntime_go"
)

// scifactChunks returns the first n passages of at most 256 tokens cut from
// SciFact abstracts.
func scifactChunks(tb testing.TB, counter TokenCounter, n int) []string {
	tb.Helper()
	var out []string
	for _, text := range scifactTexts(tb, n) {
		for _, c := range ChunkText(text, counter, 256) {
			if len(out) < n {
				out = append(out, text[c.Start:c.End])
			}
		}
	}
	return out
}

func BenchmarkTokenize(b *testing.B) {
	l := loadModel(b, "bge-small-en-v1.5")
	chunks := scifactChunks(b, l.Tokenizer(), 500)
	var size int64
	for _, c := range chunks {
		size += int64(len(c))
	}
	b.ReportAllocs()
	b.SetBytes(size)
	for b.Loop() {
		for _, c := range chunks {
			l.tok.Encode(c, 512)
		}
	}
}

// BenchmarkEmbedBatch measures EmbedPassages on SciFact chunks, calling it
// with batches of 1, 8 and 32 texts.
func BenchmarkEmbedBatch(b *testing.B) {
	for _, batch := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			l := loadModel(b, "bge-small-en-v1.5")
			chunks := scifactChunks(b, l.Tokenizer(), 64)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				for i := 0; i < len(chunks); i += batch {
					if _, err := l.EmbedPassages(ctx, chunks[i:min(i+batch, len(chunks))]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N*len(chunks))/b.Elapsed().Seconds(), "sentences/s")
		})
	}
}

// BenchmarkIngestOverhead compares raw ONNX Runtime throughput (session.Run
// on tensors built beforehand from pre-tokenized chunks) with the full
// EmbedPassages path (tokenize, batch, run, pool, normalize) on the same 500
// SciFact chunks. Raw and full runs alternate chunk by chunk, so both see the
// same load on a shared machine. It reports both rates and full/raw.
func BenchmarkIngestOverhead(b *testing.B) {
	l := loadModel(b, "bge-small-en-v1.5")
	chunks := scifactChunks(b, l.Tokenizer(), 500)
	ctx := context.Background()

	type prepared struct{ in, out []ort.Value }
	var runs []prepared
	for _, c := range chunks {
		ids := l.tok.Encode(l.man.PassagePrefix+c, l.man.MaxTokens)
		var in inputBuf
		in.fill([][]int32{ids}, []int{0}, len(ids), l.tok.PadID())
		shape := ort.NewShape(1, int64(len(ids)))
		var p prepared
		for _, data := range [][]int64{in.ids, in.mask, in.types} {
			t, err := ort.NewTensor(shape, data)
			if err != nil {
				b.Fatal(err)
			}
			p.in = append(p.in, t)
		}
		t, err := ort.NewEmptyTensor[float32](ort.NewShape(1, int64(len(ids)), int64(l.Dims())))
		if err != nil {
			b.Fatal(err)
		}
		p.out = []ort.Value{t}
		runs = append(runs, p)
	}
	defer func() {
		for _, p := range runs {
			for _, v := range append(p.in, p.out...) {
				v.Destroy()
			}
		}
	}()
	ps, err := l.passageSession() // the session EmbedPassages runs in
	if err != nil {
		b.Fatal(err)
	}
	var raw, full time.Duration
	b.ReportAllocs()
	for b.Loop() {
		for i, p := range runs {
			start := time.Now()
			if err := ps.sess.Run(p.in, p.out); err != nil {
				b.Fatal(err)
			}
			mid := time.Now()
			if _, err := l.EmbedPassages(ctx, chunks[i:i+1]); err != nil {
				b.Fatal(err)
			}
			raw += mid.Sub(start)
			full += time.Since(mid)
		}
	}
	n := float64(len(chunks) * b.N)
	b.ReportMetric(n/raw.Seconds(), "raw_chunks/s")
	b.ReportMetric(n/full.Seconds(), "full_chunks/s")
	b.ReportMetric(full.Seconds()/raw.Seconds(), "full/raw")
}

// BenchmarkEmbedQuery measures the latency of one short query.
func BenchmarkEmbedQuery(b *testing.B) {
	l := loadModel(b, "bge-small-en-v1.5")
	q := []string{"what causes bone fractures in elderly patients"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.EmbedQueries(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}
