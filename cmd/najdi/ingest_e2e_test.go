package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/najdi/najdi/internal/testutil"
)

// genTree writes n small files of several formats into dir (in ten
// subdirectories), a hidden file and a binary file, and returns the
// document ids the files should give.
func genTree(t *testing.T, dir string, n int) []string {
	t.Helper()
	var want []string
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango")
	for i := range n {
		sub := fmt.Sprintf("part%d", i%10)
		w := words[i%len(words)] + " " + words[(i*7)%len(words)]
		var name, body string
		switch i % 10 {
		case 0:
			name = fmt.Sprintf("rows%04d.csv", i)
			body = fmt.Sprintf("title,kind\n%s one,row\n%s two,row\n%s three,row\n", w, w, w)
			stem := sub + ":" + strings.TrimSuffix(name, ".csv")
			want = append(want, stem+"-1", stem+"-2", stem+"-3")
		case 1:
			name = fmt.Sprintf("lines%04d.jsonl", i)
			body = fmt.Sprintf("{\"title\": \"%s first\"}\n{\"title\": \"%s second\"}\n", w, w)
			stem := sub + ":" + strings.TrimSuffix(name, ".jsonl")
			want = append(want, stem+"-1", stem+"-2")
		case 2:
			name = fmt.Sprintf("page%04d.html", i)
			body = fmt.Sprintf("<html><head><title>Page %d</title></head><body><h1>%s</h1><p>Number %d speaks of %s.</p></body></html>", i, w, i, w)
			want = append(want, sub+":"+name)
		default:
			name = fmt.Sprintf("note%04d.txt", i)
			body = fmt.Sprintf("Note %d\n\nThis note is about %s and the number %d.\n", i, w, i)
			want = append(want, sub+":"+name)
		}
		p := filepath.Join(dir, sub, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".hidden.txt"), []byte("not to be ingested"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "part3", "blob.bin"), []byte{0x7f, 0, 1, 2, 0, 0, 0xfe, 0xff, 0, 3}, 0o644); err != nil {
		t.Fatal(err)
	}
	sort.Strings(want)
	return want
}

// ingestSummary is the JSON report of najdi ingest --json.
type ingestSummary struct {
	Files           int `json:"files"`
	Ingested        int `json:"ingested"`
	AlreadyIngested int `json:"already_ingested"`
	Unsupported     []struct {
		File string `json:"file"`
	} `json:"unsupported"`
	Failed       []any `json:"failed"`
	RecordErrors []struct {
		File    string `json:"file"`
		Record  *int   `json:"record"`
		Message string `json:"message"`
	} `json:"record_errors"`
	Documents   int    `json:"documents"`
	Created     int    `json:"created"`
	Replaced    int    `json:"replaced"`
	Interrupted bool   `json:"interrupted"`
	StateFile   string `json:"state_file"`
}

func summary(t *testing.T, r run) ingestSummary {
	t.Helper()
	var s ingestSummary
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatalf("ingest --json output %q: %v (stderr %s)", r.stdout, err, r.stderr)
	}
	return s
}

// progressLine matches a plain progress line of najdi ingest.
var progressLine = regexp.MustCompile(`^ingest tree: (\d+)/(\d+) files (\d+) records [\d.]+ [kMG]?B/[\d.]+ [kMG]?B [\d.]+ docs/s ETA (\S+)`)

// TestCLIIngestResume ingests a generated tree of 1,000 files with
// authentication, interrupts the run with SIGINT (Ctrl-C) in the middle,
// and runs it again: the second run skips what the first finished, sends
// the rest, and the collection ends with exactly the documents the files
// give, none twice. Later runs skip everything, also touched files, and
// send a changed file again (replacing its document).
func TestCLIIngestResume(t *testing.T) {
	s := startServer(t, "--no-embeddings", "--users", testutil.UsersFile(t, "alice:wonderland"))
	api := apiClient(s, "alice", "wonderland")
	ctx := context.Background()
	if _, _, err := api.PutCollection(ctx, "tree", map[string]any{"embedding_config": map[string]any{"model": "none"}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	want := genTree(t, dir, 1000)
	env := []string{"NAJDI_SERVER=" + s.url, "NAJDI_USER=alice", "NAJDI_PASSWORD=wonderland"}

	// Run 1, interrupted once a quarter of the files are done.
	cmd := exec.Command(bin, "ingest", dir, "--collection", "tree", "--progress", "lines", "--progress-interval", "50ms", "--concurrency", "2", "--json")
	cmd.Env = append(baseEnv(t), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sent := false
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		lines = append(lines, line)
		if m := progressLine.FindStringSubmatch(line); m != nil && !sent {
			if done, _ := strconv.Atoi(m[1]); done >= 250 {
				if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
				sent = true
			}
		}
	}
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !sent || !ok || ee.ExitCode() != 130 {
		t.Fatalf("interrupted run: signal sent %v, exit %v; stderr:\n%s", sent, err, strings.Join(lines, "\n"))
	}
	first := summary(t, run{stdout: stdout.String(), stderr: strings.Join(lines, "\n")})
	t.Logf("interrupted run: %d files ingested, %d documents; last lines: %q", first.Ingested, first.Documents, lines[max(0, len(lines)-3):])
	if !first.Interrupted || first.Ingested < 250 || first.Ingested >= 1000 || first.Files != 1001 {
		t.Fatalf("interrupted run summary: %+v", first)
	}
	if !strings.Contains(strings.Join(lines, "\n"), "run the same command again to resume") {
		t.Errorf("the interrupted run does not say how to resume:\n%s", strings.Join(lines, "\n"))
	}
	progress := 0
	for _, l := range lines {
		if progressLine.MatchString(l) {
			progress++
		}
	}
	if progress < 3 {
		t.Errorf("%d progress lines, want several:\n%s", progress, strings.Join(lines, "\n"))
	}
	state, err := os.ReadFile(first.StateFile)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(state), "\n"); n != first.Ingested {
		t.Errorf("state file holds %d entries, the run ingested %d files", n, first.Ingested)
	}

	// Run 2 resumes.
	r := cli(t, env, "ingest", dir, "--collection", "tree", "--json", "--progress", "none")
	second := summary(t, r)
	if r.code != 0 {
		t.Fatalf("resumed run: exit %d\n%s", r.code, r.stderr)
	}
	if second.AlreadyIngested != first.Ingested || second.Ingested != 1000-first.Ingested || len(second.Unsupported) != 1 || !strings.HasSuffix(second.Unsupported[0].File, "blob.bin") {
		t.Fatalf("resumed run after %d files: %+v", first.Ingested, second)
	}
	// Files in flight at the interruption may have reached the server: sent
	// again, their documents are replaced, never added.
	if second.Replaced > 2*3 {
		t.Errorf("resumed run replaced %d documents: more than the 2 files in flight could hold", second.Replaced)
	}
	ids := allIDs(t, api, "tree")
	if !slices.Equal(ids, want) {
		t.Fatalf("collection holds %d documents, want %d (first differences: %v)", len(ids), len(want), firstDiff(ids, want))
	}
	coll, err := api.Collection(ctx, "tree")
	if err != nil || coll.DocumentCount != int64(len(want)) {
		t.Fatalf("document_count %d, want %d (%v)", coll.DocumentCount, len(want), err)
	}

	// Run 3: nothing left. A touched file is recognized by its content.
	now := time.Now().Add(time.Minute)
	touched := filepath.Join(dir, "part4", "note0004.txt")
	if err := os.Chtimes(touched, now, now); err != nil {
		t.Fatal(err)
	}
	third := summary(t, cli(t, env, "ingest", dir, "--collection", "tree", "--json", "--progress", "none"))
	if third.Ingested != 0 || third.AlreadyIngested != 1000 {
		t.Fatalf("third run: %+v", third)
	}
	// A changed file is sent again and replaces its document.
	if err := os.WriteFile(touched, []byte("Note 4 rewritten: zulu."), 0o644); err != nil {
		t.Fatal(err)
	}
	fourth := summary(t, cli(t, env, "ingest", dir, "--collection", "tree", "--json", "--progress", "none"))
	if fourth.Ingested != 1 || fourth.Replaced != 1 || fourth.Created != 0 {
		t.Fatalf("run after a change: %+v", fourth)
	}
	res := cli(t, env, "search", "zulu", "--collection", "tree", "--json")
	var sr struct {
		Documents []struct {
			DocumentID string `json:"document_id"`
		} `json:"documents"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &sr); err != nil || len(sr.Documents) != 1 || sr.Documents[0].DocumentID != "part4:note0004.txt" {
		t.Fatalf("search for the changed text: %s %s (%v)", res.stdout, res.stderr, err)
	}
	if n := len(allIDs(t, api, "tree")); n != len(want) {
		t.Fatalf("%d documents after the change, want %d", n, len(want))
	}
}

func firstDiff(got, want []string) []string {
	var out []string
	g := map[string]int{}
	for _, id := range got {
		g[id]++
	}
	for _, id := range want {
		if g[id] == 0 {
			out = append(out, "missing "+id)
		}
		g[id]--
	}
	for id, n := range g {
		if n != 0 {
			out = append(out, fmt.Sprintf("%s %+d", id, n))
		}
	}
	sort.Strings(out)
	return out[:min(len(out), 10)]
}
