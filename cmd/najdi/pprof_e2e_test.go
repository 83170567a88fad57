package main_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestPprofAddr: `najdi serve --pprof-addr` serves Go's heap profile on
// the loopback address beside the API, and refuses an address other
// hosts could reach.
func TestPprofAddr(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	startServer(t, "--no-embeddings", "--pprof-addr", addr)
	resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/heap?debug=1", addr))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "heap profile:") {
		t.Fatalf("GET /debug/pprof/heap: %d %.200s", resp.StatusCode, body)
	}

	r := cli(t, nil, "serve", "--no-embeddings", "--data", t.TempDir(), "--addr", "127.0.0.1:0", "--pprof-addr", "0.0.0.0:6060")
	if r.code == 0 || !strings.Contains(r.stderr, "--pprof-addr") || !strings.Contains(r.stderr, "loopback") {
		t.Fatalf("serve --pprof-addr 0.0.0.0:6060: exit %d, stderr %q; want a refusal naming the flag", r.code, r.stderr)
	}
}
