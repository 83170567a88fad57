package embed

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkRemoteEmbedBatch embeds one batch of 256 passages through an
// OpenAI-compatible endpoint on loopback that answers with a fixed,
// pre-encoded answer of 256 vectors of 384 dims (float32 written in their
// shortest form, as OpenAI and the benchmark's stub write them): the HTTP
// round trip and najdi's decoding of the answer, the client's cost per
// batch of a bulk ingest.
func BenchmarkRemoteEmbedBatch(b *testing.B) {
	const n, dims = 256, 384
	r := rand.New(rand.NewPCG(5, 6))
	var sb strings.Builder
	sb.WriteString(`{"object":"list","data":[`)
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"object":"embedding","index":` + strconv.Itoa(i) + `,"embedding":[`)
		for j := range dims {
			if j > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(strconv.FormatFloat(r.NormFloat64()/20, 'g', -1, 32))
		}
		sb.WriteString(`]}`)
	}
	sb.WriteString(`],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}`)
	answer := []byte(sb.String())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	defer srv.Close()
	rem, err := NewRemote(RemoteConfig{URL: srv.URL, Model: "m", Dims: dims, BatchSize: n})
	if err != nil {
		b.Fatal(err)
	}
	texts := make([]string, n)
	for i := range texts {
		texts[i] = "passage " + strconv.Itoa(i)
	}
	ctx := context.Background()
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rem.EmbedPassages(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
}
