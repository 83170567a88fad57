package cluster

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests run against real nodes started by scripts/cluster.sh (once per
// package run; a node already running is reused and left running).
// NAJDI_TEST_CLUSTERS lists the flavours (default both);
// NAJDI_CLUSTER_KEEP=1 leaves nodes this run started running.

var (
	nodeURLs = map[Flavour]string{}
	nodeErrs = map[Flavour]error{}
)

func testFlavours() []Flavour {
	v := os.Getenv("NAJDI_TEST_CLUSTERS")
	if v == "" {
		return []Flavour{Elasticsearch, OpenSearch}
	}
	var out []Flavour
	for _, f := range strings.Split(v, ",") {
		out = append(out, Flavour(strings.TrimSpace(f)))
	}
	return out
}

// script runs scripts/cluster.sh and returns the last line of its output.
// A node start may download and install the distribution (minutes on a
// fresh machine); every other action is bounded by two minutes, so that a
// stuck stop cannot hold the test run (once seen at the end of a run: the
// tests had passed, "down" never returned).
func script(args ...string) (string, error) {
	limit := 2 * time.Minute
	if args[0] == "up" {
		limit = 20 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "../scripts/cluster.sh", args...)
	cmd.WaitDelay = 10 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if err != nil {
		return "", fmt.Errorf("scripts/cluster.sh %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return lines[len(lines)-1], nil
}

func TestMain(m *testing.M) {
	var started []Flavour
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, f := range testFlavours() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			url, err := script("status", string(f))
			if err != nil || url == "" {
				t0 := time.Now()
				url, err = script("up", string(f))
				if err == nil {
					fmt.Fprintf(os.Stderr, "cluster: started %s in %s\n", f, time.Since(t0).Round(time.Second))
					mu.Lock()
					started = append(started, f)
					mu.Unlock()
				}
			}
			mu.Lock()
			nodeURLs[f], nodeErrs[f] = url, err
			mu.Unlock()
		}()
	}
	wg.Wait()
	code := m.Run()
	if najdiBin.path != "" {
		// buildNajdi's temporary directory (a 53 MB binary per run).
		os.RemoveAll(filepath.Dir(najdiBin.path))
	}
	if os.Getenv("NAJDI_CLUSTER_KEEP") == "" {
		for _, f := range started {
			if _, err := script("down", string(f)); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
		}
	}
	os.Exit(code)
}

// forEachNode runs fn as a subtest per flavour with a client whose prefix
// is unique to the test; the test's indices are deleted afterwards.
func forEachNode(t *testing.T, fn func(t *testing.T, c *Client)) {
	t.Helper()
	for _, f := range testFlavours() {
		t.Run(string(f), func(t *testing.T) {
			if err := nodeErrs[f]; err != nil {
				t.Fatalf("node %s did not start: %v", f, err)
			}
			c := testClient(t, nodeURLs[f])
			if c.Info().Flavour != f {
				t.Fatalf("detected %s %s at %s, want %s", c.Info().Flavour, c.Info().Version, nodeURLs[f], f)
			}
			fn(t, c)
		})
	}
}

// testClient returns a client with a unique prefix and deletes its indices
// when the test ends.
func testClient(t testing.TB, url string) *Client {
	t.Helper()
	var b [4]byte
	_, _ = rand.Read(b[:])
	cfg := Config{URL: url, Prefix: "najdi-test-" + hex.EncodeToString(b[:]) + "-"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := New(ctx, cfg)
	if err != nil {
		t.Fatalf("New(%s): %v", url, err)
	}
	t.Cleanup(func() {
		_ = c.doJSON(context.Background(), "DELETE", "/"+cfg.Prefix+"*", nil, nil, nil)
	})
	return c
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
