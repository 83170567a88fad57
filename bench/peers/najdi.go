package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// NajdiOptions configures the najdi system.
type NajdiOptions struct {
	// Bin is the najdi binary (bin/najdi).
	Bin string
	// Dir is the data directory (created; emptied first).
	Dir string
	// StubURL is the base URL of the embedding stub (Stub.URL).
	StubURL string
	// Stub is the embedding stub, whose cache a warm-up ingest fills
	// before najdi's timed ingests (warmStub).
	Stub *Stub
	// Dims is the vector size.
	Dims int
}

// najdi is the najdi server in its own process (`najdi serve`), reached
// over HTTP like any client would. Its collections embed through a remote
// OpenAI-compatible endpoint — the benchmark's Stub — which answers with the
// precomputed vectors, so najdi holds the same vectors as its peers.
//
// Every query goes to the one hybrid collection "<index>" (the default
// configuration), as every query goes to Weaviate's one class: keyword-only
// queries with "retrievers": "keyword", vector-only ones with "semantic",
// hybrid and filtered ones with both. Ingest fills it (the timed figure);
// IngestKeyword times the same load into a keyword-only collection in a
// najdi server of its own, so the measured server holds what its peers
// hold.
type najdi struct {
	opt  NajdiOptions
	url  string
	proc *proc
	reqs prepared // search bodies
}

// StartNajdi starts `najdi serve` on a free loopback port.
func StartNajdi(ctx context.Context, opt NajdiOptions) (System, error) {
	if err := os.RemoveAll(opt.Dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	stubHost := strings.TrimPrefix(opt.StubURL, "http://")
	args := []string{"serve", "--addr", "127.0.0.1:" + strconv.Itoa(port), "--data", filepath.Join(opt.Dir, "data"),
		"--allow-outbound", stubHost, "--max-body", strconv.Itoa(512 << 20)}
	p, err := startProc(opt.Bin, args, nil, filepath.Join(opt.Dir, "najdi.log"))
	if err != nil {
		return nil, err
	}
	n := &najdi{opt: opt, url: fmt.Sprintf("http://127.0.0.1:%d", port), proc: p}
	if err := waitHTTP(ctx, n.url+"/health", p, 2*time.Minute); err != nil {
		p.stop()
		return nil, fmt.Errorf("najdi: %w (log %s)", err, filepath.Join(opt.Dir, "najdi.log"))
	}
	return n, nil
}

func (n *najdi) Name() string { return "najdi" }

func (n *najdi) Settings() string {
	return "`najdi serve` (this commit), default collection configuration (fulltext engine `elastic`, language `en`), " +
		"embedding_config.model = the benchmark's OpenAI-compatible stub serving the precomputed vectors (batch_size 256; the stub's cache of " +
		"vectors and their JSON is filled by a warm-up ingest of the same documents into a separate najdi server before the timed ingest); requests with " +
		"`highlight: false`, `include_fields: [\"none\"]`; keyword-only and vector-only queries go to the same collection with " +
		"`retrievers: \"keyword\"` and `\"semantic\"`; the keyword-only ingest time is of a collection with `embedding_config.model: \"none\"` in a separate server"
}

func (n *najdi) Supports(Kind) bool { return true }

// najdiRequest returns the body of a najdi search of kind k for text,
// top k: no highlighting and no fields, one retriever for the
// keyword-only and vector-only kinds, the filter of the filtered kinds.
func najdiRequest(kind Kind, text string, k int) map[string]any {
	req := map[string]any{"query": text, "max_results": k, "highlight": false, "include_fields": []string{"none"}}
	switch kind {
	case Keyword:
		req["retrievers"] = "keyword"
	case Vector:
		req["retrievers"] = "semantic"
	}
	if m := filterMax(kind); m > 0 {
		req["filter"] = map[string]any{"range": map[string]any{"bucket": map[string]any{"lt": m}}}
	}
	return req
}

func (n *najdi) put(ctx context.Context, id string, cfg map[string]any) error {
	_ = doJSON(ctx, http.MethodDelete, n.url+"/v1/collections/"+id, nil, nil)
	return doJSON(ctx, http.MethodPut, n.url+"/v1/collections/"+id, cfg, nil)
}

func (n *najdi) remote() map[string]any {
	return map[string]any{"model": map[string]any{"url": n.opt.StubURL + "/v1/embeddings", "model": "precomputed", "dims": n.opt.Dims, "batch_size": 256}}
}

var najdiFields = map[string]any{"bucket": map[string]any{"type": "number"}}

func (n *najdi) Create(ctx context.Context, index string) error {
	if err := n.put(ctx, index, map[string]any{"embedding_config": n.remote(), "fields": najdiFields}); err != nil {
		return fmt.Errorf("najdi create %s: %w", index, err)
	}
	return nil
}

// ownServer runs fn on a najdi server of its own, started in Dir + suffix
// with the measured server's options, stopped and its directory removed
// after: loads whose traces the measured server must not hold.
func (n *najdi) ownServer(ctx context.Context, suffix, what string, fn func(*najdi) error) error {
	opt := n.opt
	opt.Dir += suffix
	s, err := StartNajdi(ctx, opt)
	if err != nil {
		return fmt.Errorf("najdi %s server: %w", what, err)
	}
	defer func() {
		s.Close()
		os.RemoveAll(opt.Dir)
	}()
	if err := fn(s.(*najdi)); err != nil {
		return fmt.Errorf("najdi %s: %w", what, err)
	}
	return nil
}

// IngestKeyword returns the time a najdi server of its own (ownServer,
// Dir + "-kw") takes to load docs into a keyword-only collection
// (embedding_config.model "none"): the keyword ingest figure, without
// leaving that collection in the measured server.
func (n *najdi) IngestKeyword(ctx context.Context, index string, docs []Doc) (time.Duration, error) {
	var took time.Duration
	err := n.ownServer(ctx, "-kw", "keyword-only", func(kn *najdi) error {
		if err := kn.put(ctx, index, map[string]any{"embedding_config": map[string]any{"model": "none"}, "fields": najdiFields}); err != nil {
			return err
		}
		t0 := time.Now()
		if err := kn.ingest(ctx, index, docs, true); err != nil {
			return err
		}
		took = time.Since(t0)
		return nil
	})
	return took, err
}

// warmStub ingests docs into a hybrid collection of a najdi server of its
// own (ownServer, Dir + "-warm"), so that the stub has embedded and
// encoded every chunk the measured server will ask for.
func (n *najdi) warmStub(ctx context.Context, index string, docs []Doc) error {
	return n.ownServer(ctx, "-warm", "warm-up", func(wn *najdi) error {
		if err := wn.Create(ctx, index); err != nil {
			return err
		}
		return wn.Ingest(ctx, index, docs)
	})
}

func (n *najdi) Ingest(ctx context.Context, index string, docs []Doc) error {
	return n.ingest(ctx, index, docs, true)
}

type najdiSection struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

type najdiDoc struct {
	DocumentID string         `json:"document_id"`
	Sections   []najdiSection `json:"sections"`
	Fields     map[string]any `json:"fields,omitempty"`
}

// najdiBatch is the number of documents per ingest request.
const najdiBatch = 2000

func (n *najdi) ingest(ctx context.Context, coll string, docs []Doc, fields bool) error {
	for lo := 0; lo < len(docs); lo += najdiBatch {
		part := docs[lo:min(lo+najdiBatch, len(docs))]
		env := struct {
			Documents []najdiDoc `json:"documents"`
		}{Documents: make([]najdiDoc, len(part))}
		for i, d := range part {
			nd := najdiDoc{DocumentID: d.ID}
			if d.Title != "" {
				nd.Sections = append(nd.Sections, najdiSection{"title", d.Title})
			}
			nd.Sections = append(nd.Sections, najdiSection{"p", d.Text})
			if fields {
				nd.Fields = map[string]any{"bucket": d.Bucket}
			}
			env.Documents[i] = nd
		}
		var resp struct {
			Errors []json.RawMessage `json:"errors"`
		}
		if err := doJSON(ctx, http.MethodPost, n.url+"/v1/collections/"+coll+"/documents", env, &resp); err != nil {
			return fmt.Errorf("najdi ingest %s: %w", coll, err)
		}
		if len(resp.Errors) > 0 {
			return fmt.Errorf("najdi ingest %s: %d documents refused, first: %s", coll, len(resp.Errors), resp.Errors[0])
		}
	}
	return nil
}

// najdiSearchResponse is the part of a najdi search answer the benchmark reads.
type najdiSearchResponse struct {
	Documents []struct {
		DocumentID string `json:"document_id"`
	} `json:"documents"`
	Metadata struct {
		TookMS  float64 `json:"took_ms"`
		Timings *struct {
			EmbedMS float64 `json:"embed_ms"`
		} `json:"timings"`
	} `json:"metadata"`
}

func parseNajdi(data []byte) (Result, error) {
	var r najdiSearchResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return Result{}, fmt.Errorf("najdi search answer: %w", err)
	}
	res := Result{Took: time.Duration(r.Metadata.TookMS * float64(time.Millisecond))}
	if t := r.Metadata.Timings; t != nil {
		res.Embed = time.Duration(t.EmbedMS * float64(time.Millisecond))
	}
	for _, d := range r.Documents {
		res.IDs = append(res.IDs, d.DocumentID)
	}
	return res, nil
}

func (n *najdi) Search(ctx context.Context, index string, kind Kind, q Query, k int) (Result, error) {
	body, err := n.reqs.get(queryKey{index, kind, q.ID, k}, func() (any, error) {
		return json.Marshal(najdiRequest(kind, q.Text, k))
	})
	if err != nil {
		return Result{}, err
	}
	var raw []byte
	if err := doJSON(ctx, http.MethodPost, n.url+"/v1/collections/"+index+"/search", body, &raw); err != nil {
		return Result{}, err
	}
	return parseNajdi(raw)
}

func (n *najdi) Footprint(ctx context.Context, index string) (int64, int64, error) {
	return processFootprint(n.proc.pid(), filepath.Join(n.opt.Dir, "data"))
}

// CPUTime returns the CPU time najdi's server has used.
func (n *najdi) CPUTime() (time.Duration, error) { return cpuTime(n.proc.pid()) }

func (n *najdi) Drop(ctx context.Context, index string) error {
	if err := doJSON(ctx, http.MethodDelete, n.url+"/v1/collections/"+index, nil, nil); err != nil && !strings.Contains(err.Error(), "404") {
		return err
	}
	return nil
}

func (n *najdi) Close() error {
	n.proc.stop()
	return nil
}
