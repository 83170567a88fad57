package server_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCrashDurabilityVectors kills the real server with SIGKILL while
// writers ingest into a collection with embeddings (real bge-small
// inference): three post single documents, whose small segments keep
// their float32 vectors inline in the Pebble batch, and one posts batches
// of 80 documents (240 chunks, 360 KiB of vectors), whose segments keep
// them in vectors files outside Pebble (docs/format/vector-index.md).
// After the restart every acknowledged document is stored and whole, the
// collection opens (each segment's vectors, inline or in a file present
// and matching its checksum), a search finds acknowledged documents, and
// no temporary or orphan vectors file is left.
func TestCrashDurabilityVectors(t *testing.T) {
	n := start(t, "")
	r := n.putJSON("/v1/collections/vcrash", `{}`)
	if r.status != 201 && r.status != 200 {
		t.Fatalf("create collection: %d %s", r.status, r.body)
	}
	var mu sync.Mutex
	acked := map[string]bool{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 20 * time.Second}
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; ; i += 3 {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("d%d", i)
				body, _ := json.Marshal(map[string]any{"documents": []any{map[string]any{"document_id": id, "sections": docSections(i)}}})
				r, err := client.Post(n.base+"/v1/collections/vcrash/documents", "application/json", bytes.NewReader(body))
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					continue
				}
				if err != nil {
					return // the server died
				}
				r.Body.Close()
				if r.StatusCode == 200 {
					mu.Lock()
					acked[id] = true
					mu.Unlock()
				}
			}
		}(w)
	}
	batches := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			default:
			}
			var docs []any
			for i := range 80 {
				docs = append(docs, map[string]any{"document_id": fmt.Sprintf("b%d-%d", k, i), "sections": docSections(100000 + 80*k + i)})
			}
			body, _ := json.Marshal(map[string]any{"documents": docs})
			r, err := (&http.Client{Timeout: time.Minute}).Post(n.base+"/v1/collections/vcrash/documents", "application/json", bytes.NewReader(body))
			if err != nil {
				return // the server died (or the batch timed out)
			}
			r.Body.Close()
			if r.StatusCode == 200 {
				mu.Lock()
				for i := range 80 {
					acked[fmt.Sprintf("b%d-%d", k, i)] = true
				}
				batches++
				mu.Unlock()
			}
		}
	}()
	time.Sleep(1500 * time.Millisecond)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		enough := len(acked)-80*batches >= 20 && batches >= 1
		mu.Unlock()
		if enough {
			break
		}
	}
	n.kill()
	close(stop)
	wg.Wait()
	if len(acked) < 5 {
		t.Fatalf("only %d documents were acknowledged before the crash; the test needs more", len(acked))
	}
	n.boot()
	if batches == 0 {
		t.Fatal("no batch of 80 documents was acknowledged before the crash; the test needs one")
	}
	for id := range acked {
		d := getDoc(t, n, "vcrash", id)
		var i, k int
		if _, err := fmt.Sscanf(id, "b%d-%d", &k, &i); err == nil {
			i = 100000 + 80*k + i
		} else {
			fmt.Sscanf(id, "d%d", &i)
		}
		checkSections(t, d, docSections(i))
	}
	res := must(t, n.postJSON("/v1/collections/vcrash/search", `{"query": "first paragraph alpha beta gamma", "max_results": 5}`), 200)
	if !bytes.Contains(res.body, []byte(`"document_id":"`)) {
		t.Errorf("search after restart found nothing: %s", truncate(res.body, 300))
	}
	ents, err := os.ReadDir(filepath.Join(n.data, "vectors"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) == 0 {
		t.Fatal("no vectors file after the restart, though a batch of 80 documents was acknowledged")
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".f32") {
			t.Errorf("left after the restart: %s", e.Name())
		}
	}
	t.Logf("acknowledged %d documents (%d in batches of 80), %d vectors files", len(acked), 80*batches, len(ents))
}
