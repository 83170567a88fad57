package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/internal/testutil"
)

// vecStub is an OpenAI-compatible /v1/embeddings endpoint that answers
// every text with a vector of its own (a unit vector seeded by a hash of
// the text), like a user's embedding server with a warm cache: the JSON
// of each text's vector is encoded once, on first sight, and reused, so
// the ingests that follow measure najdi's side of the call.
type vecStub struct {
	dims  int
	mu    sync.Mutex
	cache map[string][]byte
	calls int
}

func newVecStub(dims int) *vecStub { return &vecStub{dims: dims, cache: map[string][]byte{}} }

func (s *vecStub) vectorJSON(t string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.cache[t]; ok {
		return b
	}
	h := fnv.New64a()
	h.Write([]byte(t))
	r := rand.New(rand.NewPCG(h.Sum64(), 17))
	v := make([]float32, s.dims)
	var n float64
	for i := range v {
		v[i] = float32(r.NormFloat64())
		n += float64(v[i]) * float64(v[i])
	}
	b := []byte{'['}
	for i := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(v[i])/math.Sqrt(n), 'g', -1, 32)
	}
	b = append(b, ']')
	s.cache[t] = b
	return b
}

func (s *vecStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input []string `json:"input"`
	}
	data, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(data, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	var b bytes.Buffer
	b.WriteString(`{"object":"list","model":"m","data":[`)
	for i, t := range req.Input {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"object":"embedding","index":`)
		b.WriteString(strconv.Itoa(i))
		b.WriteString(`,"embedding":`)
		b.Write(s.vectorJSON(t))
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b.Bytes())
}

// BenchmarkIngestRemoteSciFact measures a synchronous ingest of the 5,183
// SciFact documents (title and abstract, in requests of 2,000 documents as
// the peer benchmark sends them) into a hybrid collection whose embedding
// model is a remote OpenAI-compatible endpoint on loopback that answers
// from a warm cache (vecStub): analysis, chunking, the embedding calls and
// their JSON, the IVF build and the synced commits. A first ingest into
// another collection warms the stub's cache.
func BenchmarkIngestRemoteSciFact(b *testing.B) {
	docs := testutil.SciFactDocs(b, 0)
	stub := newVecStub(384)
	srv := httptest.NewServer(stub)
	defer srv.Close()
	p := newModelProvider(nil, ProviderOptions{AllowOutbound: []string{strings.TrimPrefix(srv.URL, "http://")}})
	e, err := Open(Options{Dir: b.TempDir(), Embedders: p, MaxSegments: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	cfg := CollectionConfig{EmbeddingConfig: EmbeddingConfig{Remote: &RemoteEmbedding{URL: srv.URL + "/v1/embeddings", Model: "m", Dims: 384, BatchSize: 256}}}
	load := func(coll string) {
		if _, _, err := e.PutCollection(ctx, "", coll, cfg); err != nil {
			b.Fatal(err)
		}
		for lo := 0; lo < len(docs); lo += 2000 {
			var in []DocumentInput
			for _, d := range docs[lo:min(lo+2000, len(docs))] {
				in = append(in, DocumentInput{DocumentID: d.ID, Sections: []ingest.Section{{Type: "title", Content: d.Title}, {Type: "p", Content: d.Text}}})
			}
			res, err := e.Ingest(ctx, "", coll, IngestRequest{Documents: in})
			if err != nil || len(res.Errors) > 0 {
				b.Fatalf("ingest: %v %v", err, res.Errors)
			}
		}
	}
	load("warm")
	i := 0
	for b.Loop() {
		coll := "s" + strconv.Itoa(i)
		load(coll)
		b.StopTimer()
		if err := e.DeleteCollection(ctx, "", coll); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		i++
	}
}
